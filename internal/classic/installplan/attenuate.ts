// The attenuated service account (upstream's pkg/lib/scoped): the one OperatorGroup that manages the
// namespace names, in `spec.serviceAccountName`, the account whose permissions an InstallPlan's steps are
// applied with; the OperatorGroup controller puts the account's reference in `status.serviceAccountRef`
// once the account exists. The steps then run as that account: upstream requests a token for it; we
// impersonate it (same permissions, no token to keep), after reading the account as upstream does.
import type { ObjectReference, OperatorGroup } from '../../../api/operators/index.ts';
import type { KubeClient } from '../../shared/kube/index.ts';

/** upstream's operatorGroupError: the namespace's OperatorGroups do not say which account to use. */
export class OperatorGroupError extends Error {
  override readonly name = 'OperatorGroupError';
}

/**
 * The service account to attenuate to, from the namespace's OperatorGroups (queryServiceAccountFromNamespace):
 * undefined when the managing OperatorGroup names none; OperatorGroupError when no OperatorGroup, or more than one,
 * manages the namespace (one manages it once its `status.namespaces` is filled), or when the named account has not
 * been synced to `status.serviceAccountRef` yet.
 */
export function serviceAccountFor(groups: readonly OperatorGroup[]): ObjectReference | undefined {
  if (groups.length === 0) throw new OperatorGroupError('no operator group found that is managing this namespace');
  const managing = groups.filter((og) => (og.status?.namespaces ?? []).length > 0);
  if (managing.length === 0) throw new OperatorGroupError('no operator group found that is managing this namespace');
  if (managing.length > 1) throw new OperatorGroupError(`more than one operator group(s) are managing this namespace count=${managing.length}`);
  const og = managing[0]!;
  const name = og.spec?.serviceAccountName ?? '';
  if (!name) return undefined;
  const ref = og.status?.serviceAccountRef;
  if (!ref) {
    throw new OperatorGroupError(`please make sure the service account exists. sa=${name} operatorgroup=${og.metadata.namespace ?? ''}/${og.metadata.name ?? ''}`);
  }
  return ref;
}

/**
 * The client steps are applied with: `base` itself without a reference, else `base` acting as that service account.
 * The account is read first (with `reader`, the controller's own client), so a missing one fails as upstream's
 * token retriever does (`serviceaccounts "<name>" not found`).
 */
export async function attenuatedClient(base: KubeClient, reader: KubeClient, ref: ObjectReference | undefined, signal?: AbortSignal): Promise<KubeClient> {
  if (!ref) return base;
  const namespace = ref.namespace ?? '';
  const name = ref.name ?? '';
  await reader.get({ apiVersion: 'v1', kind: 'ServiceAccount', namespace, name }, { signal });
  return base.asServiceAccount(namespace, name);
}
