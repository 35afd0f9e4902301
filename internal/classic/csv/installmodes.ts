// A CSV's install modes against its OperatorGroup's target namespaces (operator-framework/api NewInstallModeSet,
// InstallModeSet.Supports), with upstream's messages.
import {
  InstallModeTypeAllNamespaces,
  InstallModeTypeMultiNamespace,
  InstallModeTypeOwnNamespace,
  InstallModeTypeSingleNamespace,
  type InstallMode,
} from '../../../api/operators/index.ts';

export type InstallModeSet = ReadonlyMap<string, boolean>;

/** The modes as a set; a type listed twice is an error with upstream's text (Go's %v of the list). */
export function installModeSet(modes: readonly InstallMode[] | undefined): InstallModeSet {
  const set = new Map<string, boolean>();
  for (const m of modes ?? []) {
    if (set.has(m.type)) {
      throw new Error(`InstallMode list contains duplicates, cannot make set: [${(modes ?? []).map((x) => `{${x.type} ${x.supported === true}}`).join(' ')}]`);
    }
    set.set(m.type, m.supported === true);
  }
  return set;
}

/** Why the modes cannot serve these target namespaces (`""` alone = all), or undefined when they can. */
export function unsupportedTargets(set: InstallModeSet, operatorNamespace: string, namespaces: readonly string[]): string | undefined {
  const n = namespaces.length;
  if (n === 0) return 'operatorgroup has invalid selected namespaces, cannot configure to watch zero namespaces';
  if (n === 1) {
    const ns = namespaces[0]!;
    if (ns === operatorNamespace) {
      return set.get(InstallModeTypeOwnNamespace) ? undefined : `${InstallModeTypeOwnNamespace} InstallModeType not supported, cannot configure to watch own namespace`;
    }
    if (ns === '') {
      return set.get(InstallModeTypeAllNamespaces) ? undefined : `${InstallModeTypeAllNamespaces} InstallModeType not supported, cannot configure to watch all namespaces`;
    }
    return set.get(InstallModeTypeSingleNamespace) ? undefined : `${InstallModeTypeSingleNamespace} InstallModeType not supported, cannot configure to watch one namespace`;
  }
  if (!set.get(InstallModeTypeMultiNamespace)) return `${InstallModeTypeMultiNamespace} InstallModeType not supported, cannot configure to watch ${n} namespaces`;
  for (const ns of namespaces) {
    if (ns === operatorNamespace && !set.get(InstallModeTypeOwnNamespace)) {
      return `${InstallModeTypeOwnNamespace} InstallModeType not supported, cannot configure to watch own namespace`;
    }
    if (ns === '') return 'operatorgroup has invalid selected namespaces, NamespaceAll found when |selected namespaces| > 1';
  }
  return undefined;
}
