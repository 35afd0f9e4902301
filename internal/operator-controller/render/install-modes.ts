// Target namespaces (render.go): the default from the bundle's install modes, and the check of a
// requested set against them, with upstream's messages.
import { goStringSlice as goList } from '../../shared/gocompat/index.ts';
import { supportedInstallModes, type ClusterServiceVersion } from '../../shared/registryv1/index.ts';

/** AllNamespaces supported ⇒ [""]; otherwise none (must come from watchNamespace). */
export function defaultTargetNamespaces(csv: ClusterServiceVersion): string[] {
  return supportedInstallModes(csv).includes('AllNamespaces') ? [''] : [];
}

/** undefined when `targets` is allowed; otherwise why not. */
export function targetNamespacesError(csv: ClusterServiceVersion, installNamespace: string, targets: readonly string[]): string | undefined {
  const modes = supportedInstallModes(csv);
  const has = (m: string): boolean => modes.includes(m as never);
  const set = new Set(targets);
  if (set.size === 0) {
    return has('MultiNamespace') ? 'at least one target namespace must be specified' : 'exactly one target namespace must be specified';
  }
  if (set.size === 1 && set.has('')) {
    return has('AllNamespaces') ? undefined : `supported install modes ${goList(modes)} do not support targeting all namespaces`;
  }
  if (set.size === 1) {
    if (targets[0] === installNamespace) {
      return has('OwnNamespace') ? undefined : `supported install modes ${goList(modes)} do not support targeting own namespace`;
    }
    if (has('SingleNamespace')) return undefined;
  } else {
    if (!has('OwnNamespace') && set.has(installNamespace)) {
      return `supported install modes ${goList(modes)} do not support targeting own namespace`;
    }
    if (has('MultiNamespace') && !set.has('')) return undefined;
  }
  return `supported install modes ${goList(modes)} do not support target namespaces ${goList(targets)}`;
}
