// The installer identity from a ServiceAccount cache: `spec.serviceAccount` exists, or the extension fails with
// upstream's ServiceAccountNotFoundError (a missing namespace has no accounts, so it reads the same).
import type { KubeObject } from '../../../api/meta/v1.ts';
import { ServiceAccountNotFoundError, type InstallerIdentity } from '../controller/index.ts';

/** `get('<namespace>/<name>')` of a ServiceAccount cache (an informer's). No account named: nothing to check. */
export function cachedServiceAccounts(get: (key: string) => KubeObject | undefined): InstallerIdentity {
  return {
    check: async (ext) => {
      const name = ext.spec?.serviceAccount?.name;
      if (!name) return;
      const namespace = ext.spec?.namespace ?? '';
      if (!get(`${namespace}/${name}`)) throw new ServiceAccountNotFoundError(name, namespace);
    },
  };
}
