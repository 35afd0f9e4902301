// The Subscription side of olm-classic (upstream's catalog operator syncResolvingNamespace): one work queue of
// namespaces; a change to a Subscription, InstallPlan, CSV, OperatorGroup or CatalogSource enqueues the namespaces it
// can affect; the leader resolves each namespace and writes InstallPlans and Subscription statuses. See README.md.
export { subscriptionSetup, writeSubscriptionStatus } from './setup.ts';
export { bindingHash, bundleSteps, ContentHashLabelKey, inlineBundleSteps, propertiesAnnotation, rbacObjects, rulesHash, subscriptionStep } from './plan.ts';
export { namespaceCatalogs } from './sources.ts';
export { catalogHealth, checkInstallPlan, entryDeprecations, updateDeprecations, updateHealth } from './status.ts';
export { describeConflict, describeSubject } from './explain.ts';
export { resolveNamespace } from './resolve-namespace.ts';
