// Replacement between CSVs of one namespace (upstream's lib/csv replace_finder.go, olm getReplacementChain,
// crdOwnerConflicts, resolver WalkReplacementChain): who replaces whom, the chain a CSV belongs to, and whether
// another CSV outside it owns one of its CRDs.
import type { ClusterServiceVersion } from '../../../api/operators/index.ts';
import { isCopied } from './phase.ts';

const nameOf = (csv: ClusterServiceVersion): string => csv.metadata.name ?? '';

/** The non-copied CSV (other than `csv` itself) whose `spec.replaces` names `csv` (upstream's IsBeingReplaced). */
export const isBeingReplaced = (csv: ClusterServiceVersion, inNamespace: readonly ClusterServiceVersion[]): ClusterServiceVersion | undefined =>
  inNamespace.find((other) => !isCopied(other) && nameOf(other) !== nameOf(csv) && other.spec.replaces === nameOf(csv));

/** The name `csv` replaces when that is another CSV's (the caller fetches it live, as upstream's IsReplacing). */
export const replacedName = (csv: ClusterServiceVersion): string | undefined =>
  csv.spec.replaces && csv.spec.replaces !== nameOf(csv) ? csv.spec.replaces : undefined;

/** Every CSV name in `csv`'s replacement chain, forwards through replacers and backwards through `spec.replaces`. */
export function replacementChain(csv: ClusterServiceVersion, inNamespace: readonly ClusterServiceVersion[]): Set<string> {
  const chain = new Set([nameOf(csv)]);
  const replacer = (name: string): string | undefined => {
    const found = inNamespace.find((c) => c.spec.replaces === name);
    return found ? nameOf(found) : undefined;
  };
  const replaces = (name: string): string | undefined => {
    const found = inNamespace.find((c) => nameOf(c) === name);
    return found ? (found.spec.replaces ?? '') : undefined;
  };
  for (let next = replacer(nameOf(csv)); next !== undefined; next = replacer(next)) {
    if (chain.has(next)) break;
    chain.add(next);
  }
  let current = csv.spec.replaces ?? '';
  let prev = replaces(current);
  if (prev !== undefined) chain.add(current);
  while (prev !== undefined && prev !== '') {
    if (chain.has(prev)) break;
    current = prev;
    chain.add(current);
    prev = replaces(current);
  }
  return chain;
}

export const CRD_OWNER_CONFLICT = 'conflicting CRD owner in namespace';

/** Whether a CSV outside `csv`'s replacement chain owns one of its owned CRDs (upstream's ErrCRDOwnerConflict). */
export function crdOwnerConflict(csv: ClusterServiceVersion, inNamespace: readonly ClusterServiceVersion[]): boolean {
  const chain = replacementChain(csv, inNamespace);
  const owned = (csv.spec.customresourcedefinitions?.owned ?? []).map((d) => d.name);
  return inNamespace.some(
    (other) => !chain.has(nameOf(other)) && nameOf(other) !== nameOf(csv) && owned.some((crd) => (other.spec.customresourcedefinitions?.owned ?? []).some((d) => d.name === crd)),
  );
}

/** The last CSV of the chain of replacers starting at `csv`, each seen once (WalkReplacementChain + WithUniqueCSVs). */
export function lastInReplacementChain(csv: ClusterServiceVersion, inNamespace: readonly ClusterServiceVersion[]): ClusterServiceVersion {
  const replacementOf = new Map<string, ClusterServiceVersion>();
  for (const c of inNamespace) if (c.spec.replaces) replacementOf.set(c.spec.replaces, c);
  const seen = new Set<string>();
  let current = csv;
  for (let next = replacementOf.get(nameOf(current)); next !== undefined; next = replacementOf.get(nameOf(current))) {
    if (seen.has(nameOf(current))) throw new Error(`csv ${current.metadata.namespace ?? ''}/${nameOf(current)} has already been seen`);
    seen.add(nameOf(current));
    current = next;
  }
  return current;
}
