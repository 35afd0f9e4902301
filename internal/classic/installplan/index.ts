// The InstallPlan controller of the classic binary: what happens to an InstallPlan once the Subscription
// side created it — approval, execution of its steps, Complete/Failed — plus the RBAC retry of Failed plans
// and the garbage collection the namespace sync calls. See README.md.
export { installPlanSetup } from './setup.ts';
export type { InstallPlanParts } from './setup.ts';
export { validateCustomResource, type JsonSchemaProps } from './crschema.ts';
export { BundleSecretKind } from './execute.ts';
export { getCondition, orderSteps } from './plan.ts';
