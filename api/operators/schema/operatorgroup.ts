// The OperatorGroup CRD (operators.coreos.com, v1, v1alpha2): the single source of
// config/crd/bases/operators.coreos.com_operatorgroups.yaml. Field for field upstream's CRD; descriptions are our own words.
// Embedded Kubernetes types come from kube-types.json (see README.md).
import type { JSONSchemaProps } from '../../v1/schema/types.ts';
import { apiVersionProperty, classicCRD, kindProperty, metadataProperty } from './common.ts';
import { kube } from './kube.ts';

const stringList = (description: string, set: boolean): JSONSchemaProps => ({
  description,
  type: 'array',
  items: {
    type: 'string',
  },
  ...(set && { 'x-kubernetes-list-type': 'set' }),
});

/** v1 adds to v1alpha2: spec.upgradeStrategy (and its default), status.conditions and set semantics for the lists. */
function operatorGroupSchema(v1: boolean): JSONSchemaProps {
  return {
    description: 'An OperatorGroup sets which namespaces the operators installed in its namespace serve (their target namespaces).',
    type: 'object',
    required: ['metadata'],
    properties: {
      apiVersion: apiVersionProperty,
      kind: kindProperty,
      metadata: metadataProperty,
      spec: {
        description: 'spec says which namespaces are targeted and how operators are installed.',
        type: 'object',
        ...(v1 && { default: { upgradeStrategy: 'Default' } }),
        properties: {
          selector: kube('LabelSelector', 'selector picks target namespaces by label; ignored when targetNamespaces is set.'),
          serviceAccountName: {
            description: 'serviceAccountName names a service account in this namespace that installs the operators of this group instead of OLM itself, so installs get no more rights than the account has.',
            type: 'string',
          },
          staticProvidedAPIs: {
            description: 'staticProvidedAPIs keeps OLM from updating the group\'s provided-APIs annotation.',
            type: 'boolean',
          },
          targetNamespaces: stringList('targetNamespaces lists the target namespaces; when set, selector is ignored.', v1),
          ...(v1 && {
            upgradeStrategy: {
              description: 'upgradeStrategy is how upgrades behave in this namespace. Default: a CSV is replaced only after it succeeded, so a failed install or upgrade stops further upgrades. TechPreviewUnsafeFailForward: a failed CSV may be replaced too, and a Subscription whose InstallPlan failed gets a new plan when the catalog offers a newer upgrade. The latter can lose data; use it only when you know the operators involved well.',
              type: 'string',
              default: 'Default',
              enum: ['Default', 'TechPreviewUnsafeFailForward'],
            },
          }),
        },
      },
      status: {
        description: 'status reports the namespaces the group targets now.',
        type: 'object',
        required: ['lastUpdated'],
        properties: {
          ...(v1 && {
            conditions: {
              description: 'conditions describe the state of the group.',
              type: 'array',
              items: kube('Condition', 'One observation about the state of this object, identified by its type.'),
            },
          }),
          lastUpdated: {
            description: 'lastUpdated is when the status last changed.',
            type: 'string',
            format: 'date-time',
          },
          namespaces: stringList('namespaces is the current set of target namespaces.', v1),
          serviceAccountRef: kube('ObjectReference', 'serviceAccountRef points at the service account named in spec.serviceAccountName.'),
        },
      },
    },
  };
}

const v1Schema = operatorGroupSchema(true);
const v1alpha2Schema = operatorGroupSchema(false);

export const operatorGroupCRD = classicCRD({
  kind: 'OperatorGroup',
  plural: 'operatorgroups',
  shortNames: ['og'],
  scope: 'Namespaced',
  versions: [
    { name: 'v1', storage: true, schema: v1Schema },
    { name: 'v1alpha2', storage: false, schema: v1alpha2Schema },
  ],
});
