// The cache indexes the CSV-side controllers add to the shared caches, and the keys their watches map events to.
import type { KubeObject } from '../../../api/meta/v1.ts';
import { CopiedFromLabel, OwnerKindLabel, OwnerLabel, OwnerNamespaceLabel } from '../../../api/operators/index.ts';
import { ClusterServiceVersionKind, type ClusterServiceVersion } from '../../../api/operators/index.ts';
import { objectKey } from '../../shared/controller/index.ts';
import type { OlmCaches } from '../olmcache/index.ts';

export const REPLACES_INDEX = 'replaces';
/** The csv-rbac-change key of cluster-scoped RBAC: every namespace. */
export const ALL = '*';
export const CRD_INDEX = 'crd';
export const COPY_PARENT_INDEX = 'copiedFrom';

export const key = (o: KubeObject): string => objectKey(o) ?? '';
export const notSucceeded = (csv: ClusterServiceVersion): boolean => csv.status?.phase !== 'Succeeded';

/** The CSV an object is labelled or referenced as owned by. */
export function ownerCSVKey(o: KubeObject): string | undefined {
  const l = o.metadata.labels ?? {};
  if (l[OwnerKindLabel] === ClusterServiceVersionKind && l[OwnerLabel]) return `${l[OwnerNamespaceLabel] ?? ''}/${l[OwnerLabel]}`;
  const ref = (o.metadata.ownerReferences ?? []).find((r) => r.kind === ClusterServiceVersionKind);
  return ref && o.metadata.namespace ? `${o.metadata.namespace}/${ref.name}` : undefined;
}

/** The indexes the watches read: CSVs by the CSV they replace and by the CRDs they own or require; copies by parent. */
export function addCSVIndexes(caches: OlmCaches): void {
  caches.csvs.addIndex(REPLACES_INDEX, (csv) => (csv.spec.replaces ? [`${csv.metadata.namespace ?? ''}/${csv.spec.replaces}`] : []));
  caches.csvs.addIndex(CRD_INDEX, (csv) => [...(csv.spec.customresourcedefinitions?.owned ?? []), ...(csv.spec.customresourcedefinitions?.required ?? [])].map((d) => d.name));
  caches.copiedCSVs.addIndex(COPY_PARENT_INDEX, (c) => [`${c.metadata.labels?.[CopiedFromLabel] ?? ''}/${c.metadata.name ?? ''}`]);
}
