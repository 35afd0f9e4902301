// Garbage collection of a namespace's InstallPlans (upstream's gcInstallPlans, run at the start of every
// namespace sync): keep at most 5; of at most 10 plans considered per sweep, delete whole generations,
// oldest first, while that keeps 5, then the oldest of the next generation by creationTimestamp, then name.
// Upstream considers the first 10 its lister returns (an arbitrary order); we consider the 10 oldest,
// one of the orders upstream may meet, so a sweep deletes at most 5 plans and always the oldest.
import type { InstallPlan } from '../../../api/operators/index.ts';

export const MAX_INSTALL_PLAN_COUNT = 5;
export const MAX_DELETES_PER_SWEEP = 5;

const generationOf = (ip: InstallPlan): number => ip.spec?.generation ?? 0;
const createdAt = (ip: InstallPlan): number => Date.parse(ip.metadata.creationTimestamp ?? '') || 0;
const byAge = (a: InstallPlan, b: InstallPlan): number =>
  generationOf(a) - generationOf(b) || createdAt(a) - createdAt(b) || ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0);

/** The plans one sweep deletes from `all` (one namespace's InstallPlans), oldest first. */
export function installPlansToDelete(all: readonly InstallPlan[]): InstallPlan[] {
  if (all.length <= MAX_INSTALL_PLAN_COUNT) return [];
  const considered = [...all].sort(byAge).slice(0, MAX_INSTALL_PLAN_COUNT + MAX_DELETES_PER_SWEEP);
  const toDelete: InstallPlan[] = [];
  // `considered` is in age order, generations first: each generation's plans come together, oldest first.
  for (const g of new Set(considered.map(generationOf))) {
    const group = considered.filter((ip) => generationOf(ip) === g);
    const left = considered.length - toDelete.length;
    if (left <= MAX_INSTALL_PLAN_COUNT) break;
    if (left - group.length >= MAX_INSTALL_PLAN_COUNT) {
      toDelete.push(...group);
      continue;
    }
    // Several plans of one generation should not happen (each plan bumps it); a safeguard, as upstream.
    toDelete.push(...group.slice(0, left - MAX_INSTALL_PLAN_COUNT));
  }
  return toDelete;
}

export interface InstallPlanGcDeps {
  /** The namespace's InstallPlans (an informer's cache). */
  readonly list: (namespace: string) => readonly InstallPlan[];
  readonly delete: (namespace: string, name: string) => Promise<void>;
  readonly logger?: { warn(msg: string, fields?: Record<string, unknown>): void };
}

/**
 * One sweep over `namespace`: deletes what {@link installPlansToDelete} picks. A failed delete is logged and
 * left for the next sweep (upstream: "error GCing old installplan - may have already been deleted").
 * Resolves the names it deleted.
 */
export async function gcInstallPlans(deps: InstallPlanGcDeps, namespace: string): Promise<string[]> {
  const deleted: string[] = [];
  for (const ip of installPlansToDelete(deps.list(namespace))) {
    const name = ip.metadata.name ?? '';
    try {
      await deps.delete(namespace, name);
      deleted.push(name);
    } catch (err) {
      deps.logger?.warn('error GCing old installplan - may have already been deleted', { deleting: name, namespace, err });
    }
  }
  return deleted;
}
