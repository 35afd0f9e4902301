// An Operator's status from its components (upstream's decorators.Operator SetComponents / Component.Reference):
// one RichReference per component, with the component's conditions, in upstream's order.
import type { KubeObject } from '../../../api/meta/v1.ts';
import { ClusterServiceVersionKind, V1alpha1, type OperatorStatus, type RichReference } from '../../../api/operators/index.ts';
import { componentLabelSelector } from './names.ts';

type Condition = NonNullable<RichReference['conditions']>[number];

/** A component as the Operator controller sees it: the object and the version and kind it was read as. */
export interface Component {
  readonly apiVersion: string;
  readonly kind: string;
  readonly obj: KubeObject;
}

const CONDITION_FIELDS = ['type', 'status', 'reason', 'message', 'lastTransitionTime', 'lastUpdateTime'] as const;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** One condition as upstream decodes it into operatorsv1.Condition: its six fields, empty ones left out. */
function condition(raw: Record<string, unknown>): Condition {
  const c: Record<string, string> = { type: typeof raw['type'] === 'string' ? raw['type'] : '', status: typeof raw['status'] === 'string' ? raw['status'] : '' };
  for (const f of CONDITION_FIELDS.slice(2)) {
    const v = str(raw[f]);
    if (v !== undefined) c[f] = v;
  }
  return c as unknown as Condition;
}

/**
 * A component's conditions: a CSV's phase as one condition (`{type: phase, status: "True", reason, message,
 * lastUpdateTime, lastTransitionTime}`), any other object's `status.conditions`.
 */
export function componentConditions(c: Component): Condition[] | undefined {
  const status = c.obj['status'] as Record<string, unknown> | undefined | null;
  if (c.apiVersion === V1alpha1 && c.kind === ClusterServiceVersionKind) {
    const s = status ?? {};
    return [condition({ type: s['phase'], status: 'True', reason: s['reason'], message: s['message'], lastUpdateTime: s['lastUpdateTime'], lastTransitionTime: s['lastTransitionTime'] })];
  }
  const conditions = status?.['conditions'];
  if (!Array.isArray(conditions)) return undefined;
  return conditions.filter((x): x is Record<string, unknown> => x !== null && typeof x === 'object').map(condition);
}

/** A component's reference: kind, apiVersion, namespace (none for cluster-scoped objects), name, conditions. */
export function componentRef(c: Component): RichReference {
  const ref: RichReference = { kind: c.kind, apiVersion: c.apiVersion };
  if (c.obj.metadata.namespace) ref.namespace = c.obj.metadata.namespace;
  ref.name = c.obj.metadata.name ?? '';
  const conditions = componentConditions(c);
  if (conditions !== undefined) ref.conditions = conditions;
  return ref;
}

/** Go's byte order of strings (what sort.SliceStable compares with `<`), for ASCII and UTF-8 alike. */
function goLess(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Upstream's order of refs: kind, then apiVersion, then namespace, then name. */
export function compareRefs(a: RichReference, b: RichReference): number {
  return (
    goLess(a.kind ?? '', b.kind ?? '') ||
    goLess(a.apiVersion ?? '', b.apiVersion ?? '') ||
    goLess(a.namespace ?? '', b.namespace ?? '') ||
    goLess(a.name ?? '', b.name ?? '')
  );
}

/** An Operator's status: its component label selector and, when it has components, their references in order. */
export function operatorStatus(operatorName: string, components: readonly Component[]): OperatorStatus {
  const refs = components.map(componentRef).sort(compareRefs);
  return { components: { labelSelector: componentLabelSelector(operatorName), ...(refs.length > 0 && { refs }) } };
}
