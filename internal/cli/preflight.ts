// What `kubectl olm install` checks before it creates anything: that the namespace exists (unless
// --create-namespace), that no extension of that name exists (then `upgrade` is what the user wants), and that the
// serving catalogs have the package — with a "did you mean" for a typo. The package check answers only when every
// catalog it should read was read; otherwise operator-controller's resolution has the last word.
import type { LabelSelector } from '../../api/meta/v1.ts';
import { AvailabilityModeUnavailable } from '../../api/v1/index.ts';
import { labelSelectorAsSelector, type KubeClient } from '../shared/kube/index.ts';
import { isServing, listCatalogs, LiveContent } from './content.ts';

/** Levenshtein distance (insert, delete, substitute: 1 each). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** The names close to `want`, closest first (at most 3): within a third of its length (at least 2 edits), or containing it. */
export function suggestions(want: string, names: Iterable<string>): string[] {
  const w = want.toLowerCase();
  const limit = Math.max(2, Math.floor(w.length / 3));
  return [...new Set(names)]
    .map((n) => ({ n, d: editDistance(w, n.toLowerCase()), sub: w.length >= 3 && n.toLowerCase().includes(w) }))
    .filter((x) => x.d <= limit || x.sub)
    .sort((a, b) => a.d - b.d || (a.n < b.n ? -1 : 1))
    .slice(0, 3)
    .map((x) => x.n);
}

/** `did you mean "a" or "b"?` — or '' when there is nothing close. */
export function didYouMean(names: readonly string[]): string {
  if (names.length === 0) return '';
  return `; did you mean ${names.map((n) => `"${n}"`).join(names.length === 2 ? ' or ' : ', ').replace(/, ([^,]*)$/, ', or $1')}?`;
}

export type PackageCheck = { readonly found: true } | { readonly found: false; readonly catalogs: readonly string[]; readonly suggestions: readonly string[] } | { readonly found: undefined };

/**
 * Whether a serving catalog the selector picks has `packageName`. `found: undefined` when that cannot be told (no
 * catalog serves, or one could not be read).
 */
export async function findPackage(client: KubeClient, packageName: string, selector: LabelSelector | undefined): Promise<PackageCheck> {
  const matcher = labelSelectorAsSelector(selector);
  const all = await listCatalogs(client).catch(() => undefined);
  if (!all) return { found: undefined }; // not allowed to list catalogs: operator-controller will tell
  const catalogs = all.filter((c) => c.spec.availabilityMode !== AvailabilityModeUnavailable && matcher.matches(c.metadata.labels));
  const serving = catalogs.filter(isServing);
  if (serving.length === 0 || serving.length !== catalogs.length) return { found: undefined };
  const content = new LiveContent(client);
  try {
    const names: string[] = [];
    for (const c of serving) {
      const index = await content.index(c).catch(() => undefined);
      if (!index) return { found: undefined };
      const here = [...index.packageNames()];
      if (here.includes(packageName)) return { found: true };
      names.push(...here);
    }
    return { found: false, catalogs: serving.map((c) => c.metadata.name ?? ''), suggestions: suggestions(packageName, names) };
  } finally {
    await content.close();
  }
}
