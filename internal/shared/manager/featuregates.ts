// `--feature-gates`, as k8s component-base's featuregate flag reads it: comma-separated
// `Name=bool` pairs (spaces around names and values trimmed, empty items skipped, values as Go's
// strconv.ParseBool: 1 t T TRUE true True 0 f F FALSE false False), every name a known gate.
// Errors are component-base's texts.

/** A binary's gates and their defaults. */
export type FeatureGateDefaults = Readonly<Record<string, boolean>>;

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Every known gate's value: the defaults overridden by `text`. Throws an Error with component-base's message. */
export function parseFeatureGates<G extends FeatureGateDefaults>(text: string, known: G): { -readonly [K in keyof G]: boolean } {
  const set: Record<string, boolean> = {};
  for (const item of text.split(',')) {
    if (item === '') continue;
    const eq = item.indexOf('=');
    const name = (eq < 0 ? item : item.slice(0, eq)).trim();
    if (eq < 0) throw new Error(`missing bool value for ${name}`);
    const value = item.slice(eq + 1).trim();
    if (!TRUE.has(value) && !FALSE.has(value)) throw new Error(`invalid value of ${name}=${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
    set[name] = TRUE.has(value);
  }
  for (const name of Object.keys(set)) if (!Object.hasOwn(known, name)) throw new Error(`unrecognized feature gate: ${name}`);
  return { ...known, ...set } as { -readonly [K in keyof G]: boolean };
}
