// CEL rules of olm.constraint properties (operator-framework/api pkg/constraints/cel.go): OLM's
// environment, `properties: list(map(string, dyn))` and `semver_compare`, on @marcbachmann/cel-js.
// The library (120 KiB) is loaded on first need, not when the controller starts: few catalogs carry
// an olm.constraint at all. `loadCel` must have been awaited before a rule is compiled; the
// resolver's `loadCelFor` does that when its input holds an olm.constraint.
import type { Environment } from '@marcbachmann/cel-js';
import { goQuote } from '../../shared/gocompat/index.ts';
import { compareVersions, parseTolerant } from '../../shared/semver/index.ts';

const CEL_NOT_BOOL = 'cel expressions must have type Bool';

let environment: Environment | undefined;
let loading: Promise<Environment> | undefined;

function semverOf(x: unknown): ReturnType<typeof parseTolerant> {
  const text = typeof x === 'bigint' ? x.toString() : String(x);
  try {
    return parseTolerant(text);
  } catch {
    throw new Error(`unable to parse '${text}' to semver format`);
  }
}

/** Loads the CEL library and builds OLM's environment, once (a failed load is tried again on the next call). */
export async function loadCel(): Promise<void> {
  loading ??= import('@marcbachmann/cel-js').then(
    ({ Environment }) =>
      (environment = new Environment({ homogeneousAggregateLiterals: false })
        .registerVariable('properties', 'list<map<string, dyn>>')
        .registerFunction('semver_compare(dyn, dyn): int', (a: unknown, b: unknown) => BigInt(compareVersions(semverOf(a), semverOf(b))))),
    (err: unknown) => {
      loading = undefined;
      throw err;
    },
  );
  await loading;
}

export const celLoaded = (): boolean => environment !== undefined;

/** Compiles a rule (upstream CelEnvironment.Validate); throws on compile errors and non-bool rules. */
export function compileCel(rule: string): (properties: readonly { type: string; value: unknown }[]) => boolean {
  if (!environment) throw new Error(`cel expression ${goQuote(rule)} met before the CEL library was loaded (loadCel)`);
  const checked = environment.check(rule);
  if (!checked.valid) {
    const detail = (checked.error?.message ?? 'invalid expression').split('\n')[0];
    throw new Error(`cel expression ${goQuote(rule)} does not compile: ${detail}`);
  }
  if (checked.type !== 'bool') throw new Error(CEL_NOT_BOOL);
  const program = environment.parse(rule);
  return (properties) => program({ properties }) === true;
}
