// The OperatorCondition CRD (operators.coreos.com, v1, v2): the single source of
// config/crd/bases/operators.coreos.com_operatorconditions.yaml. Field for field upstream's CRD; descriptions are our own words.
// Embedded Kubernetes types come from kube-types.json (see README.md).
import type { CustomResourceDefinition, JSONSchemaProps } from '../../v1/schema/types.ts';
import { apiVersionProperty, kindProperty, metadataProperty } from './common.ts';
import { kube } from './kube.ts';

const v1Schema: JSONSchemaProps = {
  description: 'An OperatorCondition lets an operator tell OLM about its state (for example that it must not be upgraded now), and lets an administrator override what it says.',
  type: 'object',
  required: ['metadata'],
  properties: {
    apiVersion: apiVersionProperty,
    kind: kindProperty,
    metadata: metadataProperty,
    spec: {
      description: 'spec holds what the operator reports and what an administrator overrides.',
      type: 'object',
      properties: {
        deployments: {
          type: 'array',
          items: {
            type: 'string',
          },
        },
        overrides: {
          type: 'array',
          items: kube('ConditionOverride', 'One condition that replaces the operator\'s own condition of the same type.'),
        },
        serviceAccounts: {
          type: 'array',
          items: {
            type: 'string',
          },
        },
      },
    },
    status: {
      description: 'status holds the conditions OLM has taken into account.',
      type: 'object',
      properties: {
        conditions: {
          type: 'array',
          items: kube('Condition', 'One observation about the state of this object, identified by its type.'),
        },
      },
    },
  },
};

const v2Schema: JSONSchemaProps = {
  description: 'An OperatorCondition lets an operator tell OLM about its state (for example that it must not be upgraded now), and lets an administrator override what it says.',
  type: 'object',
  required: ['metadata'],
  properties: {
    apiVersion: apiVersionProperty,
    kind: kindProperty,
    metadata: metadataProperty,
    spec: {
      description: 'spec holds what the operator reports and what an administrator overrides.',
      type: 'object',
      properties: {
        conditions: {
          type: 'array',
          items: kube('Condition', 'One observation about the state of this object, identified by its type.'),
        },
        deployments: {
          type: 'array',
          items: {
            type: 'string',
          },
        },
        overrides: {
          type: 'array',
          items: kube('ConditionOverride', 'One condition that replaces the operator\'s own condition of the same type.'),
        },
        serviceAccounts: {
          type: 'array',
          items: {
            type: 'string',
          },
        },
      },
    },
    status: {
      description: 'status holds the conditions OLM has taken into account.',
      type: 'object',
      properties: {
        conditions: {
          type: 'array',
          items: kube('Condition', 'One observation about the state of this object, identified by its type.'),
        },
      },
    },
  },
};

export const operatorConditionCRD: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'operatorconditions.operators.coreos.com' },
  spec: {
    group: 'operators.coreos.com',
    names: { categories: ['olm'], kind: 'OperatorCondition', listKind: 'OperatorConditionList', plural: 'operatorconditions', shortNames: ['condition'], singular: 'operatorcondition' },
    scope: 'Namespaced',
    versions: [
    {
      name: 'v1',
      served: true,
      storage: false,
      schema: { openAPIV3Schema: v1Schema },
      subresources: { status: {} },
    },
    {
      name: 'v2',
      served: true,
      storage: true,
      schema: { openAPIV3Schema: v2Schema },
      subresources: { status: {} },
    },
    ],
  },
};
