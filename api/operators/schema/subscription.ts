// The Subscription CRD (operators.coreos.com, v1alpha1): the single source of
// config/crd/bases/operators.coreos.com_subscriptions.yaml. Field for field upstream's CRD; descriptions are our own words.
// Embedded Kubernetes types come from kube-types.json (see README.md).
import type { JSONSchemaProps } from '../../v1/schema/types.ts';
import { apiVersionProperty, classicCRD, conditionTextFields, kindProperty, metadataProperty } from './common.ts';
import { kube } from './kube.ts';

const v1alpha1Schema: JSONSchemaProps = {
  description: 'A Subscription asks OLM to install a package from a catalog and keep it upgraded along a channel.',
  type: 'object',
  required: ['metadata', 'spec'],
  properties: {
    apiVersion: apiVersionProperty,
    kind: kindProperty,
    metadata: metadataProperty,
    spec: {
      description: 'spec names the package, catalog and channel, and how upgrades are approved.',
      type: 'object',
      required: ['name', 'source', 'sourceNamespace'],
      properties: {
        channel: {
          type: 'string',
        },
        config: {
          description: 'config overrides parts of the operator\'s Deployments and Pods.',
          type: 'object',
          properties: {
            affinity: kube('Affinity', 'affinity replaces the scheduling affinity of the operator Pods, one part at a time: an omitted part keeps the original, an empty object ({}) removes it.'),
            annotations: {
              description: 'annotations are added to every Deployment, Pod and APIService of the operator.',
              type: 'object',
              additionalProperties: {
                type: 'string',
              },
            },
            env: {
              description: 'env variables are set in the operator containers.',
              type: 'array',
              items: kube('EnvVar', 'One environment variable.'),
            },
            envFrom: {
              description: 'envFrom sets environment variables of the operator containers from ConfigMaps or Secrets; later sources win over earlier ones and env wins over all of them.',
              type: 'array',
              items: kube('EnvFromSource', 'One ConfigMap or Secret to read variables from.'),
            },
            nodeSelector: {
              description: 'nodeSelector lists node labels the operator Pods must be scheduled onto.',
              type: 'object',
              additionalProperties: {
                type: 'string',
              },
            },
            resources: kube('ResourceRequirements', 'resources sets the compute requests and limits of the operator containers.'),
            selector: kube('LabelSelector', 'selector matches the operator Pods this configuration applies to.'),
            tolerations: {
              description: 'tolerations are added to the operator Pods.',
              type: 'array',
              items: kube('Toleration', 'One toleration of a node taint.'),
            },
            volumeMounts: {
              description: 'volumeMounts are added to the operator containers.',
              type: 'array',
              items: kube('VolumeMount', 'One volume mount.'),
            },
            volumes: {
              description: 'volumes are added to the operator Pods.',
              type: 'array',
              items: kube('Volume', 'One volume.'),
            },
          },
        },
        installPlanApproval: {
          description: 'installPlanApproval is Automatic (InstallPlans run at once) or Manual (they wait for approval).',
          type: 'string',
        },
        name: {
          type: 'string',
        },
        source: {
          type: 'string',
        },
        sourceNamespace: {
          type: 'string',
        },
        startingCSV: {
          type: 'string',
        },
      },
    },
    status: {
      type: 'object',
      required: ['lastUpdated'],
      properties: {
        catalogHealth: {
          description: 'catalogHealth is the health of every CatalogSource the Subscription may resolve against; the catalog conditions are computed from it.',
          type: 'array',
          items: {
            description: 'Health of one CatalogSource.',
            type: 'object',
            required: ['catalogSourceRef', 'healthy', 'lastUpdated'],
            properties: {
              catalogSourceRef: kube('ObjectReference', 'catalogSourceRef points at the CatalogSource.'),
              healthy: {
                description: 'healthy is true when the CatalogSource can be read.',
                type: 'boolean',
              },
              lastUpdated: {
                description: 'lastUpdated is when this entry last changed.',
                type: 'string',
                format: 'date-time',
              },
            },
          },
        },
        conditions: {
          description: 'conditions describe the state of the Subscription.',
          type: 'array',
          items: {
            description: 'One observation about the Subscription, identified by its type.',
            type: 'object',
            required: ['status', 'type'],
            properties: {
              lastHeartbeatTime: {
                description: 'lastHeartbeatTime is when the condition was last checked.',
                type: 'string',
                format: 'date-time',
              },
              lastTransitionTime: {
                description: 'lastTransitionTime is when status last changed.',
                type: 'string',
                format: 'date-time',
              },
              ...conditionTextFields,
            },
          },
        },
        currentCSV: {
          description: 'currentCSV is the CSV the Subscription is moving to.',
          type: 'string',
        },
        installPlanGeneration: {
          description: 'installPlanGeneration is the generation of the InstallPlan last made for this Subscription.',
          type: 'integer',
        },
        installPlanRef: kube('ObjectReference', 'installPlanRef points at the latest InstallPlan that contains currentCSV.'),
        installedCSV: {
          description: 'installedCSV is the CSV the Subscription has installed.',
          type: 'string',
        },
        installplan: {
          description: 'installplan (deprecated, see installPlanRef) names the latest InstallPlan made for the Subscription.',
          type: 'object',
          required: ['apiVersion', 'kind', 'name', 'uuid'],
          properties: {
            apiVersion: {
              type: 'string',
            },
            kind: {
              type: 'string',
            },
            name: {
              type: 'string',
            },
            uuid: {
              description: 'uuid of the InstallPlan.',
              type: 'string',
            },
          },
        },
        lastUpdated: {
          description: 'lastUpdated is when the status was last written.',
          type: 'string',
          format: 'date-time',
        },
        reason: {
          description: 'reason is why the Subscription is in its current state.',
          type: 'string',
        },
        state: {
          description: 'state of the Subscription: UpgradePending, AtLatestKnown, UpgradeFailed or empty.',
          type: 'string',
        },
      },
    },
  },
};

export const subscriptionCRD = classicCRD({
  kind: 'Subscription',
  plural: 'subscriptions',
  shortNames: ['sub', 'subs'],
  scope: 'Namespaced',
  versions: [
    { name: 'v1alpha1', storage: true, schema: v1alpha1Schema, printerColumns: [{ description: 'package', jsonPath: '.spec.name', name: 'Package', type: 'string' }, { description: 'CatalogSource of the package', jsonPath: '.spec.source', name: 'Source', type: 'string' }, { description: 'channel followed for upgrades', jsonPath: '.spec.channel', name: 'Channel', type: 'string' }] },
  ],
});
