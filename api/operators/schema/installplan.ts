// The InstallPlan CRD (operators.coreos.com, v1alpha1): the single source of
// config/crd/bases/operators.coreos.com_installplans.yaml. Field for field upstream's CRD; descriptions are our own words.
// Embedded Kubernetes types come from kube-types.json (see README.md).
import type { JSONSchemaProps } from '../../v1/schema/types.ts';
import { apiVersionProperty, classicCRD, conditionTextFields, kindProperty, metadataProperty } from './common.ts';
import { kube } from './kube.ts';

const v1alpha1Schema: JSONSchemaProps = {
  description: 'An InstallPlan is the set of objects to create or update in a namespace to install or upgrade the operators its Subscriptions resolved to.',
  type: 'object',
  required: ['metadata', 'spec'],
  properties: {
    apiVersion: apiVersionProperty,
    kind: kindProperty,
    metadata: metadataProperty,
    spec: {
      description: 'spec is what the plan installs and whether it may go ahead.',
      type: 'object',
      required: ['approval', 'approved', 'clusterServiceVersionNames'],
      properties: {
        approval: {
          description: 'approval is Automatic (the plan runs at once) or Manual (it waits until spec.approved is true).',
          type: 'string',
        },
        approved: {
          type: 'boolean',
        },
        clusterServiceVersionNames: {
          type: 'array',
          items: {
            type: 'string',
          },
        },
        generation: {
          type: 'integer',
        },
        source: {
          type: 'string',
        },
        sourceNamespace: {
          type: 'string',
        },
      },
    },
    status: {
      description: 'status reports the progress of the plan and each of its steps.',
      type: 'object',
      required: ['catalogSources', 'phase'],
      properties: {
        attenuatedServiceAccountRef: kube('ObjectReference', 'A reference to an object.'),
        bundleLookups: {
          description: 'bundleLookups are the bundles whose content must be fetched before the plan\'s steps are known.',
          type: 'array',
          items: {
            description: 'One bundle to fetch and where it comes from.',
            type: 'object',
            required: ['catalogSourceRef', 'identifier', 'path', 'replaces'],
            properties: {
              catalogSourceRef: kube('ObjectReference', 'A reference to an object.'),
              conditions: {
                description: 'conditions report the progress of this lookup.',
                type: 'array',
                items: {
                  type: 'object',
                  required: ['status', 'type'],
                  properties: {
                    lastTransitionTime: {
                      description: 'lastTransitionTime is when status last changed.',
                      type: 'string',
                      format: 'date-time',
                    },
                    lastUpdateTime: {
                      description: 'lastUpdateTime is when this condition was last written.',
                      type: 'string',
                      format: 'date-time',
                    },
                    ...conditionTextFields,
                  },
                },
              },
              identifier: {
                description: 'identifier is the bundle\'s name in its catalog (the CSV name when the bundle has one).',
                type: 'string',
              },
              path: {
                description: 'path locates the bundle, usually an image reference.',
                type: 'string',
              },
              properties: {
                description: 'properties of the bundle as JSON text.',
                type: 'string',
              },
              replaces: {
                description: 'replaces is the name of the bundle this one upgrades.',
                type: 'string',
              },
            },
          },
        },
        catalogSources: {
          type: 'array',
          items: {
            type: 'string',
          },
        },
        conditions: {
          type: 'array',
          items: {
            description: 'One observation about the plan as a whole.',
            type: 'object',
            properties: {
              lastTransitionTime: {
                type: 'string',
                format: 'date-time',
              },
              lastUpdateTime: {
                type: 'string',
                format: 'date-time',
              },
              message: {
                type: 'string',
              },
              reason: {
                description: 'reason is a short CamelCase word for the last change.',
                type: 'string',
              },
              status: {
                type: 'string',
              },
              type: {
                description: 'type of the condition, for example Installed.',
                type: 'string',
              },
            },
          },
        },
        message: {
          description: 'message explains the current phase, for example why execution is being retried.',
          type: 'string',
        },
        phase: {
          description: 'phase of the whole plan.',
          type: 'string',
        },
        plan: {
          type: 'array',
          items: {
            description: 'One object the plan creates or updates, and how far that got.',
            type: 'object',
            required: ['resolving', 'resource', 'status'],
            properties: {
              optional: {
                type: 'boolean',
              },
              resolving: {
                type: 'string',
              },
              resource: {
                description: 'resource is the object of the step and the catalog it came from.',
                type: 'object',
                required: ['group', 'kind', 'name', 'sourceName', 'sourceNamespace', 'version'],
                properties: {
                  group: {
                    type: 'string',
                  },
                  kind: {
                    type: 'string',
                  },
                  manifest: {
                    type: 'string',
                  },
                  name: {
                    type: 'string',
                  },
                  sourceName: {
                    type: 'string',
                  },
                  sourceNamespace: {
                    type: 'string',
                  },
                  version: {
                    type: 'string',
                  },
                },
              },
              status: {
                description: 'status of this step.',
                type: 'string',
              },
            },
          },
        },
        startTime: {
          description: 'startTime is when the plan started installing; retries are measured from it.',
          type: 'string',
          format: 'date-time',
        },
      },
    },
  },
};

export const installPlanCRD = classicCRD({
  kind: 'InstallPlan',
  plural: 'installplans',
  shortNames: ['ip'],
  scope: 'Namespaced',
  versions: [
    { name: 'v1alpha1', storage: true, schema: v1alpha1Schema, printerColumns: [{ description: 'first CSV the plan installs', jsonPath: '.spec.clusterServiceVersionNames[0]', name: 'CSV', type: 'string' }, { description: 'Automatic or Manual', jsonPath: '.spec.approval', name: 'Approval', type: 'string' }, { jsonPath: '.spec.approved', name: 'Approved', type: 'boolean' }] },
  ],
});
