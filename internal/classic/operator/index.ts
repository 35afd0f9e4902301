// The Operator API (operators.coreos.com/v1 Operator) of classic: components adopted by label, one Operator per
// package and install namespace listing them. See README.md.
export { operatorSetup } from './setup.ts';
export { componentLabelKey, packageOperatorName } from './names.ts';
export { compareRefs } from './components.ts';
