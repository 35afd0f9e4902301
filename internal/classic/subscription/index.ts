// The Subscription side of olm-classic (upstream's catalog operator syncResolvingNamespace): one work queue of
// namespaces; a change to a Subscription, InstallPlan, CSV, OperatorGroup or CatalogSource enqueues the namespaces it
// can affect; the leader resolves each namespace and writes InstallPlans and Subscription statuses. See README.md.
export { subscriptionSetup, writeSubscriptionStatus } from './setup.ts';
export type { SubscriptionOptions } from './setup.ts';
export { bundleSteps, propertiesAnnotation, rbacObjects, stepFor, subscriptionStep } from './plan.ts';
export { installedEntries, namespaceCatalogs } from './sources.ts';
export { catalogHealth, checkInstallPlan, entryDeprecations, updateDeprecations, updateHealth } from './status.ts';
export { newNamespaceReconciler } from './sync.ts';
export { namespaceSyncSteps } from './sync-steps.ts';
export type { NamespaceState, SyncPorts } from './sync-steps.ts';
export { describeConflict, describeSubject } from './explain.ts';
export { ExcludeGlobalNamespaceAnnotation, resolveNamespace } from './resolve-namespace.ts';
export type { NamespaceResolution, NamespaceResolutionInput } from './resolve-namespace.ts';
