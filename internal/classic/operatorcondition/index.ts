// OperatorConditions (operators.coreos.com/v2) of classic: generated per CSV, their Role, RoleBinding and
// deployments' env kept, spec.conditions mirrored to status; and the rule the CSV controller asks before an
// upgrade (`operatorUpgradeable`). See README.md.
export { operatorConditionSetup } from './setup.ts';
export { operatorUpgradeable } from './upgradeable.ts';
export { OPERATOR_CONDITION_ENV } from './reconcilers.ts';
