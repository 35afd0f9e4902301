// The identity an extension installs as: whether its service account exists, and the watches that re-enqueue the
// extensions a ServiceAccount or RBAC change could unblock. See README.md.
export { cachedServiceAccounts } from './identity.ts';
export { extensionsToRequeue, waitingOnPermissions, type IdentityChange } from './requeue.ts';
export { installerWatches, slimToName, type InstallerWatches, type InstallerWatchesOptions } from './watch.ts';
