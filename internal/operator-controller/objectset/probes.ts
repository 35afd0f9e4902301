// Readiness probes of a ClusterObjectSet's objects: the assertions of spec.progressionProbes and the
// selectors that pick which objects they apply to, with the verdicts and messages of upstream's runtime
// (package-operator's boxcutter `probing` package, v0.14, which operator-controller v1.11 builds them from).
//
//   And            Unknown wins over False, False over True; the messages of the winning status are kept
//   GroupKind/Label an object the selector does not pick passes (True, no message)
//   ObservedGeneration  status.observedGeneration present and not metadata.generation → Unknown ".status outdated"
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { Assertion, ProgressionProbe } from '../../../api/v1/index.ts';
import { labelSelectorAsSelector } from '../../shared/kube/index.ts';
import { goJSONValue } from '../../shared/gocompat/index.ts';
import { groupOf } from '../applier/index.ts';
import { tryOr, tryOrThrow } from '../../shared/toolkit/index.ts';

export type ProbeStatus = 'True' | 'False' | 'Unknown';

export interface ProbeResult {
  readonly status: ProbeStatus;
  readonly messages: readonly string[];
}

export type Prober = (obj: KubeObject) => ProbeResult;

const result = (status: ProbeStatus, ...messages: string[]): ProbeResult => ({ status, messages });

/** Every prober must pass; see the header for how verdicts and messages combine. */
export function and(probers: readonly Prober[]): Prober {
  return (obj) => {
    const by: Record<ProbeStatus, string[]> = { True: [], False: [], Unknown: [] };
    const seen = new Set<ProbeStatus>();
    for (const p of probers) {
      const r = p(obj);
      seen.add(r.status);
      by[r.status].push(...r.messages);
    }
    if (seen.has('Unknown')) return result('Unknown', ...by.Unknown);
    if (seen.has('False')) return result('False', ...by.False);
    return result('True', ...by.True);
  };
}

/** The value at a dotted path of plain maps (unstructured.NestedFieldCopy); `error` when a step is not a map. */
function nested(obj: unknown, path: string): { found: boolean; value?: unknown; error?: string } {
  const steps = path.replace(/^\.+|\.+$/g, '').split('.');
  let cur: unknown = obj;
  for (let i = 0; i < steps.length; i++) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) {
      const at = steps.slice(0, i).join('.');
      return { found: false, error: `.${at} accessor error: ${goJSONValue(cur)} is of the type ${goTypeName(cur)}, expected map[string]interface{}` };
    }
    const m = cur as Record<string, unknown>;
    if (!(steps[i]! in m)) return { found: false };
    cur = m[steps[i]!];
  }
  return { found: true, value: cur };
}

function goTypeName(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return '<nil>';
}

const q = (s: string): string => JSON.stringify(s);

/** FieldValue: the field at `fieldPath` holds exactly the string `value`. */
export function fieldValue(fieldPath: string, value: string): Prober {
  return (obj) => {
    const r = nested(obj, fieldPath);
    if (r.error !== undefined) return result('False', `error locating key ${q(fieldPath)}; ${r.error}`);
    if (!r.found) return result('False', `missing key: ${q(fieldPath)}`);
    if (r.value !== value) {
      return result('False', `value at key ${q(fieldPath)} != ${q(value)}; expected: ${goJSONValue(value)} got: ${goJSONValue(r.value, true)}`);
    }
    return result('True', `value at key ${q(fieldPath)} == ${q(value)}`);
  };
}

/** FieldsEqual: the fields at `fieldA` and `fieldB` exist and hold equal values. */
export function fieldsEqual(fieldA: string, fieldB: string): Prober {
  return (obj) => {
    const a = nested(obj, fieldA);
    if (!a.found) return result('False', `"${fieldA}" missing`);
    const b = nested(obj, fieldB);
    if (!b.found) return result('False', `"${fieldB}" missing`);
    if (goJSONValue(a.value, true) !== goJSONValue(b.value, true)) {
      return result('False', `"${fieldA}" != "${fieldB}" expected: ${goJSONValue(a.value, true)} got: ${goJSONValue(b.value, true)}`);
    }
    return result('True', `"${fieldA}" == "${fieldB}"`);
  };
}

/** ConditionEqual: `status.conditions` has a current condition of `type` with `status`. */
export function conditionEqual(type: string, status: string): Prober {
  return (obj) => {
    const raw = (obj['status'] as Record<string, unknown> | undefined)?.['conditions'];
    if (raw === undefined || obj['status'] === null || typeof obj['status'] !== 'object') return result('Unknown', 'missing .status.conditions');
    if (!Array.isArray(raw)) return result('Unknown', 'malformed .status.conditions');
    for (const c of raw as unknown[]) {
      if (c === null || typeof c !== 'object' || Array.isArray(c)) return result('Unknown', 'malformed .status.conditions');
      const cond = c as Record<string, unknown>;
      if (cond['type'] !== type) continue;
      const og = cond['observedGeneration'];
      if (typeof og === 'number' && og !== (obj.metadata.generation ?? 0)) return result('Unknown', `.status.condition["${type}"] outdated`);
      if (cond['status'] === status) return result('True', `.status.condition["${type}"] is ${status}`);
      return result('False', `.status.condition["${type}"] is ${String(cond['status'])}`);
    }
    return result('Unknown', `missing .status.condition["${type}"]`);
  };
}

/** Wraps a prober: an object whose status.observedGeneration lags metadata.generation is Unknown. */
export function observedGeneration(inner: Prober): Prober {
  return (obj) => {
    const og = (obj['status'] as Record<string, unknown> | undefined)?.['observedGeneration'];
    if (typeof og === 'number' && og !== (obj.metadata.generation ?? 0)) return result('Unknown', '.status outdated');
    return inner(obj);
  };
}

/**
 * The objects a probe's selector picks (GroupKind or Label; an object it does not pick passes the probe). Throws on
 * a label selector that does not parse or a selector type the API does not define.
 */
function selects(selector: ProgressionProbe['selector']): (obj: KubeObject) => boolean {
  switch (selector.type) {
    case 'GroupKind': {
      const { group = '', kind = '' } = selector.groupKind ?? {};
      return (obj) => groupOf(obj.apiVersion) === group && obj.kind === kind;
    }
    case 'Label': {
      const label = selector.label ?? {};
      const sel = tryOrThrow(
        () => labelSelectorAsSelector(label),
        (err) => new Error(`invalid label selector in progressionProbe (${JSON.stringify(label)}): ${err.message}`, { cause: err }),
      );
      return (obj) => sel.matches(obj.metadata.labels ?? {});
    }
    default:
      throw new Error(`unknown progressionProbe selector type: ${String((selector as { type?: unknown }).type)}`);
  }
}

function assertionProber(a: Assertion): Prober {
  switch (a.type) {
    case 'ConditionEqual':
      return conditionEqual(a.conditionEqual?.type ?? '', a.conditionEqual?.status ?? '');
    case 'FieldsEqual':
      return fieldsEqual(a.fieldsEqual?.fieldA ?? '', a.fieldsEqual?.fieldB ?? '');
    case 'FieldValue':
      return fieldValue(a.fieldValue?.fieldPath ?? '', a.fieldValue?.value ?? '');
    default:
      throw new Error(`unknown progressionProbe assertion probe type: ${String((a as { type?: unknown }).type)}`);
  }
}

/**
 * The progress probe of a revision from its spec.progressionProbes (upstream's buildProgressionProbes): each probe's
 * assertions joined with `and` behind its selector, wrapped in the observedGeneration check, all of them joined with
 * `and`. No probes: everything passes. Throws on a selector or assertion type the API does not define.
 */
export function progressionProber(probes: readonly ProgressionProbe[] | undefined): Prober {
  const all: Prober[] = [];
  for (const p of probes ?? []) {
    const assertions = and(p.assertions.map(assertionProber));
    const picked = selects(p.selector);
    all.push(observedGeneration((obj) => (picked(obj) ? assertions(obj) : result('True'))));
  }
  return and(all);
}

/** Field paths a cached object (metadata, labels and status) answers without reading the object. */
const CACHED_PATH = /^(status(\.|$)|metadata\.(name|namespace|labels|generation)(\.|$))/;

/**
 * Whether probing `obj` reads more than its metadata and status (a FieldValue or FieldsEqual assertion on another
 * field, e.g. `data.foo`, of a probe that selects it): then the object must be read whole before it is probed.
 */
export function probesReadBeyondStatus(probes: readonly ProgressionProbe[] | undefined): (obj: KubeObject) => boolean {
  const wide = (probes ?? []).filter((p) =>
    p.assertions.some((a) =>
      a.type === 'FieldValue' ? !CACHED_PATH.test(a.fieldValue?.fieldPath ?? '') : a.type === 'FieldsEqual' ? !CACHED_PATH.test(a.fieldsEqual?.fieldA ?? '') || !CACHED_PATH.test(a.fieldsEqual?.fieldB ?? '') : false,
    ),
  );
  if (wide.length === 0) return () => false;
  // A selector that cannot be read picks everything (progressionProber refuses it anyway).
  const selectors = wide.map((p) => tryOr(() => selects(p.selector), () => true));
  return (obj) => selectors.some((s) => s(obj));
}
