// The solver's minimal conflicting set in words (ours, not upstream's): one line per constraint naming what it is
// about — a Subscription, a catalog bundle, an installed CSV, a package or an API — and the constraint's own text.
// Used by `kubectl olm resolve --namespace`; Subscription conditions keep upstream's NotSatisfiable message.
import { constraintString, type NotSatisfiableError } from '../resolver/index.ts';

/** What a solver variable stands for, from its identifier (upstream's id formats, olm-classic.md §1.2). */
export function describeSubject(id: string): string {
  if (id.startsWith('subscription:')) return `Subscription ${id.slice('subscription:'.length)}`;
  if (id.startsWith('@existing/')) return `installed CSV ${id.split('/').slice(3).join('/')}`;
  const parts = id.split('/');
  if (parts.length >= 4) {
    const [catalog, namespace, channel, ...csv] = parts;
    return `bundle ${csv.join('/')} (channel ${channel} of CatalogSource ${namespace}/${catalog})`;
  }
  if (/^\S+ \(.*\)$/.test(id)) return `API ${id}`;
  return `package ${id}`;
}

/** One line per constraint of the minimal set: `<subject>: <constraint text>`. */
export function describeConflict(err: NotSatisfiableError): string[] {
  return err.constraints.map((c) => `${describeSubject(c.variable.id)}: ${constraintString(c.constraint, c.variable.id)}`);
}
