// The Operator CRD (operators.coreos.com, v1): the single source of
// config/crd/bases/operators.coreos.com_operators.yaml. Field for field upstream's CRD; descriptions are our own words.
// Embedded Kubernetes types come from kube-types.json (see README.md).
import type { JSONSchemaProps } from '../../v1/schema/types.ts';
import { apiVersionProperty, classicCRD, conditionTextFields, kindProperty, metadataProperty } from './common.ts';
import { kube } from './kube.ts';

const v1Schema: JSONSchemaProps = {
  description: 'An Operator is a cluster-scoped view of an installed operator: the objects that make it up and their state.',
  type: 'object',
  properties: {
    apiVersion: apiVersionProperty,
    kind: kindProperty,
    metadata: metadataProperty,
    spec: {
      description: 'spec of the Operator (no fields yet).',
      type: 'object',
    },
    status: {
      description: 'status lists the parts of the operator.',
      type: 'object',
      properties: {
        components: {
          description: 'components are the objects that make up the operator.',
          type: 'object',
          required: ['labelSelector'],
          properties: {
            labelSelector: kube('LabelSelector', 'labelSelector matches the objects that belong to the operator.'),
            refs: {
              description: 'refs are the objects labelSelector matches.',
              type: 'array',
              items: {
                description: 'One object of the operator with the conditions it reports.',
                type: 'object',
                properties: {
                  apiVersion: {
                    description: 'apiVersion of the object.',
                    type: 'string',
                  },
                  conditions: {
                    description: 'conditions the object reports.',
                    type: 'array',
                    items: {
                      description: 'One condition reported by the object.',
                      type: 'object',
                      required: ['status', 'type'],
                      properties: {
                        lastTransitionTime: {
                          description: 'lastTransitionTime is when status last changed.',
                          type: 'string',
                          format: 'date-time',
                        },
                        lastUpdateTime: {
                          description: 'lastUpdateTime is when the condition was last checked.',
                          type: 'string',
                          format: 'date-time',
                        },
                        ...conditionTextFields,
                      },
                    },
                  },
                  fieldPath: {
                    description: 'fieldPath points into part of the object rather than all of it, for example spec.containers{name}.',
                    type: 'string',
                  },
                  kind: {
                    description: 'kind of the object.',
                    type: 'string',
                  },
                  name: {
                    description: 'name of the object.',
                    type: 'string',
                  },
                  namespace: {
                    description: 'namespace of the object; empty for cluster-scoped objects.',
                    type: 'string',
                  },
                  resourceVersion: {
                    description: 'resourceVersion of the object this reference was taken at, if any.',
                    type: 'string',
                  },
                  uid: {
                    description: 'uid of the object.',
                    type: 'string',
                  },
                },
                'x-kubernetes-map-type': 'atomic',
              },
            },
          },
        },
      },
    },
  },
};

export const operatorCRD = classicCRD({
  kind: 'Operator',
  plural: 'operators',
  scope: 'Cluster',
  versions: [
    { name: 'v1', storage: true, schema: v1Schema },
  ],
});
