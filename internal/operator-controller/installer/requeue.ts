// Which ClusterExtensions a change to a ServiceAccount or to RBAC could unblock: pure, over the cached extensions.
import type { ClusterExtension } from '../../../api/v1/index.ts';
import { findCondition } from '../../shared/controller/index.ts';
import { MISSING_SERVICE_ACCOUNT } from '../controller/index.ts';

/** A ServiceAccount, Role, ClusterRole, RoleBinding or ClusterRoleBinding that was added, changed or deleted. */
export interface IdentityChange {
  readonly kind: 'ServiceAccount' | 'Role' | 'ClusterRole' | 'RoleBinding' | 'ClusterRoleBinding';
  /** `''` for cluster-scoped kinds. */
  readonly namespace: string;
  readonly name: string;
}

/** Text of a Progressing message that says the install waits for the service account's permissions. */
const PERMISSION_FAILURES = ['pre-authorization failed:', ' is forbidden: ', MISSING_SERVICE_ACCOUNT];

/**
 * Whether the extension's last pass stopped for want of its service account or of the account's permissions: the
 * permission preflight refused it, an apply as the account was forbidden, or the account was missing.
 */
export function waitingOnPermissions(ext: ClusterExtension): boolean {
  if (!ext.spec?.serviceAccount?.name || ext.metadata.deletionTimestamp) return false;
  const progressing = findCondition(ext.status?.conditions, 'Progressing');
  if (!progressing || progressing.reason === 'Succeeded') return false;
  return PERMISSION_FAILURES.some((text) => progressing.message.includes(text));
}

/**
 * The extensions to reconcile now for a change: every extension installing as a changed ServiceAccount (it may have
 * appeared or gone), and for RBAC changes the extensions waiting on a permission failure.
 */
export function extensionsToRequeue(change: IdentityChange, extensions: readonly ClusterExtension[]): string[] {
  const affected = (ext: ClusterExtension): boolean =>
    change.kind === 'ServiceAccount' ? ext.spec?.serviceAccount?.name === change.name && ext.spec.namespace === change.namespace : waitingOnPermissions(ext);
  return extensions.filter((ext) => ext.metadata.name && affected(ext)).map((ext) => ext.metadata.name!);
}
