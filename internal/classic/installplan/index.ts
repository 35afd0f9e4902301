// The InstallPlan controller of the classic binary: what happens to an InstallPlan once the Subscription
// side created it — approval, execution of its steps, Complete/Failed — plus the RBAC retry of Failed plans
// and the garbage collection the namespace sync calls. See README.md.
export { DEFAULT_INSTALL_PLAN_RETRY_TIMEOUT_MS, installPlanSetup } from './setup.ts';
export type { InstallPlanOptions, InstallPlanParts } from './setup.ts';
export { ALONGSIDE_ANNOTATION_PREFIX, alongsideKey, fnv64a } from './alongside.ts';
export { OperatorGroupError, serviceAccountFor } from './attenuate.ts';
export { CrValidationError, crdManifestVersion, OLM_MANAGED_LABEL } from './crd.ts';
export { aggregate as aggregateFieldErrors, validateCustomResource, type JsonSchemaProps } from './crschema.ts';
export { BundleSecretKind, GENERATED_BY_ANNOTATION, SUPPORTED_KINDS } from './execute.ts';
export { ERR_INVALID_INSTALL_PLAN, gvkNotFound } from './errors.ts';
export { gcInstallPlans, installPlansToDelete, MAX_DELETES_PER_SWEEP, MAX_INSTALL_PLAN_COUNT, type InstallPlanGcDeps } from './gc.ts';
export { conditionFailed, conditionMet, getCondition, needsRequeue, orderSteps, setCondition, stepResourceString, stepString } from './plan.ts';
export { INSTALLING_REQUEUE_MS } from './reconciler.ts';
export { retryingMessage, transitionInstallPlanState, type PlanExecutor, type Transition } from './transition.ts';
