// The writes the ClusterCatalog reconciler makes to the API server (finalizer add/remove, the status write), behind
// the shared ObjectWriter seam so the reconcile logic is unit-tested without one.
import { ClusterCatalogKind, GroupVersion, type ClusterCatalog } from '../../../api/v1/index.ts';
import { kubeObjectWriter, type ObjectWriter } from '../../shared/controller/index.ts';
import type { KubeClient } from '../../shared/kube/index.ts';

export type CatalogApi = Required<ObjectWriter<ClusterCatalog>>;

const withKind = (c: ClusterCatalog): ClusterCatalog => ({ ...c, apiVersion: GroupVersion, kind: ClusterCatalogKind });

export function kubeCatalogApi(client: KubeClient): CatalogApi {
  const w = kubeObjectWriter<ClusterCatalog>(client);
  return {
    updateStatus: (c, signal) => w.updateStatus(withKind(c), signal),
    addFinalizer: (c, f, signal) => w.addFinalizer(withKind(c), f, signal),
    removeFinalizer: (c, f, signal) => w.removeFinalizer(withKind(c), f, signal),
  };
}
