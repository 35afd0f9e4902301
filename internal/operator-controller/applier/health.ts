// Health probes of applied objects: upstream's default progression probes (olmv1.md §5.3), run
// on the objects as the API server returned them. Each failing object gives one line
// `Object <Kind>.<group>/<version> <namespace>/<name>: <problems>`.
import type { Condition, KubeObject } from '../../../api/meta/v1.ts';
import { groupOf } from './phases.ts';

interface Status {
  readonly conditions?: readonly Pick<Condition, 'type' | 'status'>[];
  readonly phase?: string;
  readonly observedGeneration?: number;
  readonly replicas?: number;
  readonly updatedReplicas?: number;
}

const statusOf = (obj: KubeObject): Status => (obj['status'] ?? {}) as Status;

function conditionIs(obj: KubeObject, type: string, want: 'True' | 'False'): string | undefined {
  const c = statusOf(obj).conditions?.find((x) => x.type === type);
  return c?.status === want ? undefined : `condition ${JSON.stringify(type)} is ${JSON.stringify(c?.status ?? 'missing')}, not ${JSON.stringify(want)}`;
}

function phaseIs(obj: KubeObject, want: string): string | undefined {
  const got = statusOf(obj).phase;
  return got === want ? undefined : `.status.phase is ${JSON.stringify(got ?? '')}, not ${JSON.stringify(want)}`;
}

/** The controller has seen the latest spec (`.status.observedGeneration` ≥ `.metadata.generation`). */
function observed(obj: KubeObject): string | undefined {
  const gen = obj.metadata.generation;
  const seen = statusOf(obj).observedGeneration;
  if (gen === undefined || seen === undefined || seen >= gen) return undefined;
  return `.status.observedGeneration ${seen} is behind .metadata.generation ${gen}`;
}

function rolledOut(obj: KubeObject): string[] {
  const notSeen = observed(obj);
  if (notSeen) return [notSeen];
  const s = statusOf(obj);
  const [updated, replicas] = [s.updatedReplicas ?? 0, s.replicas ?? 0];
  const replicaProblem = updated !== replicas ? `.status.updatedReplicas ${updated} != .status.replicas ${replicas}` : undefined;
  return [replicaProblem, conditionIs(obj, 'Available', 'True')].filter((p) => p !== undefined);
}

/** The problems of one object; empty when healthy or when its kind has no probe. */
export function probe(obj: KubeObject): string[] {
  const group = groupOf(obj.apiVersion);
  const only = (p: string | undefined): string[] => (p ? [p] : []);
  switch (`${group}/${obj.kind ?? ''}`) {
    case 'apiextensions.k8s.io/CustomResourceDefinition':
      return only(conditionIs(obj, 'Established', 'True'));
    case 'apps/Deployment':
    case 'apps/StatefulSet':
      return rolledOut(obj);
    case '/Namespace':
      return only(phaseIs(obj, 'Active'));
    case '/PersistentVolumeClaim':
      return only(phaseIs(obj, 'Bound'));
    case 'cert-manager.io/Certificate':
    case 'cert-manager.io/Issuer':
      return only(observed(obj) ?? conditionIs(obj, 'Ready', 'True'));
    default:
      return [];
  }
}

export function describeObject(obj: KubeObject): string {
  const ns = obj.metadata.namespace;
  return `${obj.kind ?? ''}.${obj.apiVersion ?? ''} ${ns ? `${ns}/` : ''}${obj.metadata.name ?? ''}`;
}

/** One line per unhealthy object. */
export function probeAll(objects: readonly KubeObject[]): string[] {
  return objects.flatMap((obj) => {
    const problems = probe(obj);
    return problems.length ? [`Object ${describeObject(obj)}: ${problems.join('; ')}`] : [];
  });
}

/** When a CRD's names were accepted, if it is still not Established (undefined otherwise). */
export function stuckSince(crd: KubeObject): number | undefined {
  const conditions = (crd as { status?: { conditions?: { type: string; status: string; lastTransitionTime?: string }[] } }).status?.conditions ?? [];
  if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) return undefined;
  const accepted = conditions.find((c) => c.type === 'NamesAccepted' && c.status === 'True');
  if (!accepted?.lastTransitionTime) return undefined;
  const at = Date.parse(accepted.lastTransitionTime);
  return Number.isNaN(at) ? undefined : at;
}

/** Annotation of the update that makes the API server look at a stuck CRD again. */
export const ESTABLISH_REQUESTED = 'olm.operatorframework.io/establish-requested';
/**
 * How long after its names were accepted a CRD that is not Established counts as stuck. A CRD
 * normally establishes well under a second after its names are accepted.
 */
export const STUCK_CRD_MS = 5_000;

/**
 * What to do about a CRD and the establish request: `request` when it is stuck (names accepted
 * `stuckMs` ago or longer, not Established), `clear` when it is Established and still carries the
 * annotation of an earlier request, nothing otherwise.
 */
export function establishAction(crd: KubeObject, now: number, stuckMs = STUCK_CRD_MS): 'request' | 'clear' | undefined {
  const since = stuckSince(crd);
  if (since !== undefined) return now - since >= stuckMs ? 'request' : undefined;
  const established = conditionIs(crd, 'Established', 'True') === undefined;
  return established && crd.metadata.annotations?.[ESTABLISH_REQUESTED] !== undefined ? 'clear' : undefined;
}
