// KindServed over the client's REST mapper (a miss refreshes discovery, so a provider installed later is seen).
import { NoKindMatchError, type KubeClient } from '../../../shared/kube/index.ts';
import type { KindServed } from './preflight.ts';

export function kubeKindServed(client: KubeClient): KindServed {
  return async (apiVersion, kind) => {
    try {
      await client.mapping(apiVersion, kind);
      return true;
    } catch (err) {
      if (err instanceof NoKindMatchError) return false;
      throw err;
    }
  };
}
