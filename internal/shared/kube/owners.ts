// Owner references as OLM's ownerutil builds and reads them.
import type { KubeObject, OwnerReference } from '../../../api/meta/v1.ts';

/**
 * A reference to `owner` that does not block its deletion (ownerutil.NonBlockingOwner; AddOwner(…, false, true) with
 * `controller`), its fields in apimachinery's order. A missing name or uid is ''.
 */
export const nonBlockingOwnerReference = (apiVersion: string, kind: string, owner: { readonly metadata: { readonly name?: string; readonly uid?: string } }, controller = false): OwnerReference => ({
  apiVersion,
  kind,
  name: owner.metadata.name ?? '',
  uid: owner.metadata.uid ?? '',
  controller,
  blockOwnerDeletion: false,
});

/** Whether one of `obj`'s owner references names `owner`'s uid. */
export const isOwnedBy = (obj: KubeObject, owner: { readonly metadata: { readonly uid?: string } }): boolean => (obj.metadata.ownerReferences ?? []).some((r) => r.uid === owner.metadata.uid);
