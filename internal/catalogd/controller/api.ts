// The three writes the ClusterCatalog reconciler makes to the API server, behind a small seam so
// the reconcile logic is unit-tested without one: add or remove the finalizer, write status.
import { ClusterCatalogKind, GroupVersion, type ClusterCatalog, type ClusterCatalogStatus } from '../../../api/v1/index.ts';
import { addFinalizer, hasFinalizer, isNotFound, removeFinalizer, updateStatus, type KubeClient } from '../../shared/kube/index.ts';

export interface CatalogApi {
  /** Adds `finalizer` when missing; resolves the object as stored and whether it changed. */
  addFinalizer(catalog: ClusterCatalog, finalizer: string, signal?: AbortSignal): Promise<{ catalog: ClusterCatalog; added: boolean }>;
  /** Removes `finalizer` when present; resolves the object as stored (undefined once it is gone). */
  removeFinalizer(catalog: ClusterCatalog, finalizer: string, signal?: AbortSignal): Promise<ClusterCatalog | undefined>;
  /**
   * Replaces `status` through the status subresource, with the resourceVersion of the object the pass read. A 409
   * Conflict is returned (the pass decided on an older object; it runs again from fresh state); an object that is
   * gone is not an error.
   */
  writeStatus(catalog: ClusterCatalog, status: ClusterCatalogStatus, signal?: AbortSignal): Promise<void>;
}

const withKind = (c: ClusterCatalog): ClusterCatalog => ({ ...c, apiVersion: GroupVersion, kind: ClusterCatalogKind });
const opts = (signal?: AbortSignal): { signal?: AbortSignal } => (signal ? { signal } : {});

export function kubeCatalogApi(client: KubeClient): CatalogApi {
  return {
    async addFinalizer(catalog, finalizer, signal) {
      if (hasFinalizer(catalog, finalizer)) return { catalog, added: false };
      const stored = await addFinalizer(client, withKind(catalog), finalizer, opts(signal));
      return { catalog: stored, added: true };
    },
    async removeFinalizer(catalog, finalizer, signal) {
      if (!hasFinalizer(catalog, finalizer)) return catalog;
      return removeFinalizer(client, withKind(catalog), finalizer, opts(signal));
    },
    async writeStatus(catalog, status, signal) {
      const ref = { apiVersion: GroupVersion, kind: ClusterCatalogKind, name: catalog.metadata.name ?? '' };
      try {
        await updateStatus<ClusterCatalog>(
          client,
          ref,
          (obj) => {
            obj.status = structuredClone(status);
          },
          { current: withKind(catalog), ...opts(signal) },
        );
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
  };
}
