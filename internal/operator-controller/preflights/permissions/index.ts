// The service-account permission preflight (olmv1.md §5.5). See README.md.
export { kubePermissionSource } from './kube.ts';
export type { PermissionSource } from './preflight.ts';
export { PermissionPreflight, PermissionPreflightError } from './preflight.ts';
export type { Attributes, PolicyRule, ScopedPolicyRules } from './rules.ts';
export { compactRules, preAuthorizationMessage, ruleDescription } from './rules.ts';
