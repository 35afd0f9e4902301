// Failing fast in `--wait --classic`: what olm-classic reports for a Subscription that waiting will not fix — an
// InstallPlan that Failed (olm-classic never retries a failed plan), a resolution the catalogs cannot satisfy, a CSV
// its OperatorGroup refuses. As for extensions (../failfast.ts), `--wait` gives up once the cause has stayed for two
// reads spanning two seconds, and names the command to run next.
import { CSVPhaseFailed, CSVReasons, InstallPlanPhaseFailed } from '../../../api/operators/index.ts';
import { shellQuote, type Unfixable } from '../failfast.ts';
import type { Observed } from './logic.ts';
import { oneLine } from '../../shared/toolkit/index.ts';

/** CSV reasons that only a change to the namespace's OperatorGroups (or the CSV's install modes) can end. */
const OPERATOR_GROUP_REASONS: readonly string[] = [
  CSVReasons.UnsupportedOperatorGroup,
  CSVReasons.NoOperatorGroup,
  CSVReasons.TooManyOperatorGroups,
  CSVReasons.InterOperatorGroupOwnerConflict,
  CSVReasons.InvalidInstallModes,
  CSVReasons.CannotModifyStaticOperatorGroupProvidedAPIs,
];

/** Resolution messages that only a change to the catalogs or the Subscription can end. */
const UNSATISFIABLE = /^constraints not satisfiable|\bno operators found\b/;

/** The cause waiting will not fix in what a `--wait --classic` read, or undefined. */
export function unfixableClassic(o: Observed | undefined): Unfixable | undefined {
  const sub = o?.sub;
  if (!sub) return undefined;
  const ns = sub.metadata.namespace ?? '';
  const name = sub.metadata.name ?? '';
  const uninstall = `kubectl olm uninstall --classic ${shellQuote(name)} -n ${shellQuote(ns)}`;
  if (o.plan?.status?.phase === InstallPlanPhaseFailed) {
    const plan = o.plan.metadata.name ?? '';
    return {
      cause: `installplan "${plan}" Failed${o.plan.status.message ? `: ${oneLine(o.plan.status.message)}` : ''}`,
      next: [`kubectl get installplan ${shellQuote(plan)} -n ${shellQuote(ns)} -o yaml`, uninstall],
    };
  }
  const resolution = sub.status?.conditions?.find((c) => c.type === 'ResolutionFailed' && c.status === 'True');
  if (resolution?.message && UNSATISFIABLE.test(resolution.message)) {
    return { cause: `ResolutionFailed (${resolution.reason ?? ''}): ${oneLine(resolution.message)}`, next: [`kubectl olm resolve -n ${shellQuote(ns)}`, uninstall] };
  }
  const csv = o.csv;
  if (csv?.status?.phase === CSVPhaseFailed && OPERATOR_GROUP_REASONS.includes(csv.status.reason ?? '')) {
    return {
      cause: `clusterserviceversion "${csv.metadata.name ?? ''}" is Failed (${csv.status.reason ?? ''})${csv.status.message ? `: ${oneLine(csv.status.message)}` : ''}`,
      next: [`kubectl get operatorgroups -n ${shellQuote(ns)} -o yaml`, uninstall],
    };
  }
  return undefined;
}
