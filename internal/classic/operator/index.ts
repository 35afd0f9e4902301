// The Operator API (operators.coreos.com/v1 Operator) of classic: components adopted by label, one Operator per
// package and install namespace listing them. See README.md.
export { operatorSetup, type OperatorSetupOptions } from './setup.ts';
export { COMPONENT_LABEL_KEY_PREFIX, componentLabelKey, componentLabelSelector, operatorNames, packageOperatorName } from './names.ts';
export { compareRefs, componentRef, operatorStatus, type Component } from './components.ts';
