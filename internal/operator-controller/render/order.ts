// Upstream's golden-file order (test/regression/convert): objects sorted by kind, namespace, name
// with plain string comparison.
import type { KubeObject } from '../../../api/meta/v1.ts';

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function sortForGolden(objects: readonly KubeObject[]): KubeObject[] {
  return [...objects].sort(
    (a, b) =>
      cmp(a.kind ?? '', b.kind ?? '') ||
      cmp(a.metadata.namespace ?? '', b.metadata.namespace ?? '') ||
      cmp(a.metadata.name ?? '', b.metadata.name ?? ''),
  );
}
