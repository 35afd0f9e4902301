// Kubernetes types embedded in the classic CRDs (DeploymentSpec, Volume, Affinity, PolicyRule, ...), as
// data: kube-types.json holds each type's schema exactly as Kubernetes' own OpenAPI (k8s.io/api and
// apimachinery, Apache-2.0) publishes it inside upstream's CRDs, descriptions included, without the
// description of the type's root — each use site writes its own. Regenerate with
// `node --import tsx api/operators/schema/import-kube-types.ts` when upstream moves to a newer Kubernetes.
import { readFileSync } from 'node:fs';
import type { JSONSchemaProps } from '../../v1/schema/types.ts';

/** Names of the embedded Kubernetes types, as in kube-types.json. */
export type KubeTypeName =
  | 'Affinity'
  | 'Condition'
  | 'ConditionOverride'
  | 'DeploymentSpec'
  | 'EnvFromSource'
  | 'EnvVar'
  | 'LabelSelector'
  | 'ObjectReference'
  | 'PolicyRule'
  | 'Quantity'
  | 'ResourceRequirements'
  | 'RuleWithOperations'
  | 'Toleration'
  | 'Volume'
  | 'VolumeMount';

const types = JSON.parse(readFileSync(new URL('./kube-types.json', import.meta.url), 'utf8')) as Record<KubeTypeName, JSONSchemaProps>;

/** A fresh copy of one embedded Kubernetes type's schema, with the use site's description. */
export function kube(name: KubeTypeName, description?: string): JSONSchemaProps {
  const schema = types[name];
  if (!schema) throw new Error(`kube-types.json has no ${name}`);
  const copy = structuredClone(schema);
  return description === undefined ? copy : { ...copy, description };
}

/** Every type kube-types.json holds. */
export const kubeTypeNames = Object.keys(types) as KubeTypeName[];
