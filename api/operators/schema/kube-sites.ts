// Where upstream's classic CRDs embed a Kubernetes type: CRD file → schema path (property names joined
// by ".", "[]" for array items; the same in every version) → type name in kube-types.json. Read by
// import-kube-types.ts (to refresh kube-types.json) and by the drift test.
import type { KubeTypeName } from './kube.ts';

export const kubeSites: Readonly<Record<string, Readonly<Record<string, KubeTypeName>>>> = {
  'operators.coreos.com_catalogsources.yaml': {
    'spec.grpcPodConfig.affinity': 'Affinity',
    'spec.grpcPodConfig.memoryTarget': 'Quantity',
    'spec.grpcPodConfig.tolerations[]': 'Toleration',
    'status.conditions[]': 'Condition',
  },
  'operators.coreos.com_clusterserviceversions.yaml': {
    'spec.install.spec.deployments[].spec': 'DeploymentSpec',
    'spec.install.spec.permissions[].rules[]': 'PolicyRule',
    'spec.install.spec.clusterPermissions[].rules[]': 'PolicyRule',
    'spec.selector': 'LabelSelector',
    'spec.webhookdefinitions[].objectSelector': 'LabelSelector',
    'spec.webhookdefinitions[].rules[]': 'RuleWithOperations',
  },
  'operators.coreos.com_installplans.yaml': {
    'status.attenuatedServiceAccountRef': 'ObjectReference',
    'status.bundleLookups[].catalogSourceRef': 'ObjectReference',
  },
  'operators.coreos.com_olmconfigs.yaml': {
    'status.conditions[]': 'Condition',
  },
  'operators.coreos.com_operatorconditions.yaml': {
    'spec.conditions[]': 'Condition',
    'spec.overrides[]': 'ConditionOverride',
    'status.conditions[]': 'Condition',
  },
  'operators.coreos.com_operatorgroups.yaml': {
    'spec.selector': 'LabelSelector',
    'status.conditions[]': 'Condition',
    'status.serviceAccountRef': 'ObjectReference',
  },
  'operators.coreos.com_operators.yaml': {
    'status.components.labelSelector': 'LabelSelector',
  },
  'operators.coreos.com_subscriptions.yaml': {
    'spec.config.affinity': 'Affinity',
    'spec.config.env[]': 'EnvVar',
    'spec.config.envFrom[]': 'EnvFromSource',
    'spec.config.resources': 'ResourceRequirements',
    'spec.config.selector': 'LabelSelector',
    'spec.config.tolerations[]': 'Toleration',
    'spec.config.volumeMounts[]': 'VolumeMount',
    'spec.config.volumes[]': 'Volume',
    'status.catalogHealth[].catalogSourceRef': 'ObjectReference',
    'status.installPlanRef': 'ObjectReference',
  },
};
