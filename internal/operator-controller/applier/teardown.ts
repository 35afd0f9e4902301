// What an uninstall waits for, in words: one line per object that was deleted but is still there,
// saying since when it is being deleted and what holds it (its finalizers, the conditions the API
// server reports while it removes a CRD's custom resources or a namespace's content, and for a
// CRD the first custom resources left with their own finalizers).
import type { KubeObject } from '../../../api/meta/v1.ts';
import { describeObject } from './health.ts';

/** A deleted object that is still there. */
export interface Remaining {
  readonly object: KubeObject;
  /** For a CRD being deleted: the first few of its custom resources left, and how many there are. */
  readonly customResources?: { readonly items: readonly KubeObject[]; readonly total: number };
}

interface StatusCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

/** Conditions that explain a slow deletion (a CRD's `Terminating`, a namespace's `Namespace…Remaining` / `…Failure`). */
function deletionConditions(obj: KubeObject): string[] {
  const conditions = ((obj['status'] as { conditions?: StatusCondition[] } | undefined)?.conditions ?? []).filter(
    (c) => c.status === 'True' && (c.type === 'Terminating' || c.type.startsWith('Namespace')),
  );
  return conditions.map((c) => [c.reason, c.message].filter(Boolean).join(': ')).filter((t) => t !== '');
}

function state(obj: KubeObject): string {
  const since = obj.metadata.deletionTimestamp ? `being deleted since ${obj.metadata.deletionTimestamp}` : 'not deleted yet';
  const finalizers = obj.metadata.finalizers ?? [];
  return finalizers.length ? `${since}, finalizers [${finalizers.join(', ')}]` : since;
}

const where = (obj: KubeObject): string => `${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata.name ?? ''}`;

/** `Object <Kind>.<apiVersion> <ns>/<name>: being deleted since <time>, finalizers [...]; <why>; <n> <Kind> left: ...`. */
export function describeRemaining(r: Remaining): string {
  const parts = [state(r.object), ...deletionConditions(r.object)];
  const crs = r.customResources;
  if (crs && crs.total > 0) {
    const kind = crs.items[0]?.kind ?? 'custom resource';
    const shown = crs.items.map((i) => `${where(i)} (${state(i)})`).join(', ');
    const more = crs.total > crs.items.length ? `, and ${crs.total - crs.items.length} more` : '';
    parts.push(`${crs.total} ${kind} left: ${shown}${more}`);
  }
  return `Object ${describeObject(r.object)}: ${parts.join('; ')}`;
}
