// The CrdGetter over the API server.
import { ignoreNotFound, type KubeClient } from '../../../shared/kube/index.ts';
import type { CrdGetter } from './preflight.ts';
import type { Crd } from './schema.ts';

/** Reads CRDs with `client`; a 404 is "no existing CRD". */
export function kubeCrdGetter(client: KubeClient): CrdGetter {
  return (name, signal) => ignoreNotFound(client.get<Crd>({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name }, { signal }));
}
