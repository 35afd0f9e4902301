// The names of upstream's Operator API (pkg/controller/operators/decorators/operator.go): an Operator per package and
// install namespace, its component label key and selector, and the Operators an object's labels name.
import type { LabelSelector } from '../../../api/meta/v1.ts';

/** The prefix of every component label key (upstream's ComponentLabelKeyPrefix). */
export const COMPONENT_LABEL_KEY_PREFIX = 'operators.coreos.com/';

/** The Operator of a package installed in a namespace: `<package>.<namespace>`, the package alone when no namespace. */
export function packageOperatorName(pkg: string, namespace: string): string {
  return namespace === '' ? pkg : `${pkg}.${namespace}`;
}

/**
 * The component label key of an Operator: the prefix and its name, the name cut to 63 characters and then rid of
 * trailing `.`, `_` and `-` (a label name's limits).
 */
export function componentLabelKey(operatorName: string): string {
  if (operatorName === '') throw new Error('cannot generate component label key: empty name field');
  let name = operatorName;
  if (name.length > 63) {
    name = name.slice(0, 63);
    let end = name.length;
    while (end > 0 && '._-'.includes(name[end - 1]!)) end--;
    if (end === 0) throw new Error('cannot generate component label key: unsupported name field');
    name = name.slice(0, end);
  }
  return COMPONENT_LABEL_KEY_PREFIX + name;
}

/** What an Operator's components carry, as a LabelSelector: its component label key exists. */
export function componentLabelSelector(operatorName: string): LabelSelector {
  return { matchExpressions: [{ key: componentLabelKey(operatorName), operator: 'Exists' }] };
}

/** The names of the Operators an object's labels make it a component of (upstream's OperatorNames). */
export function operatorNames(labels: Readonly<Record<string, string>> | undefined): string[] {
  return Object.keys(labels ?? {})
    .filter((k) => k.startsWith(COMPONENT_LABEL_KEY_PREFIX))
    .map((k) => k.slice(COMPONENT_LABEL_KEY_PREFIX.length));
}
