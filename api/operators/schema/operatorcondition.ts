// The OperatorCondition CRD (operators.coreos.com, v1, v2): the single source of
// config/crd/bases/operators.coreos.com_operatorconditions.yaml. Field for field upstream's CRD; descriptions are our own words.
// Embedded Kubernetes types come from kube-types.json (see README.md).
import type { JSONSchemaProps } from '../../v1/schema/types.ts';
import { apiVersionProperty, classicCRD, kindProperty, metadataProperty } from './common.ts';
import { kube } from './kube.ts';

const conditions: JSONSchemaProps = {
  type: 'array',
  items: kube('Condition', 'One observation about the state of this object, identified by its type.'),
};
const names: JSONSchemaProps = {
  type: 'array',
  items: {
    type: 'string',
  },
};

/** v1 and v2 differ only in v2's spec.conditions (the operator's own conditions). */
function operatorConditionSchema(specConditions: boolean): JSONSchemaProps {
  return {
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
          ...(specConditions && { conditions }),
          deployments: names,
          overrides: {
            type: 'array',
            items: kube('ConditionOverride', 'One condition that replaces the operator\'s own condition of the same type.'),
          },
          serviceAccounts: names,
        },
      },
      status: {
        description: 'status holds the conditions OLM has taken into account.',
        type: 'object',
        properties: {
          conditions,
        },
      },
    },
  };
}

const v1Schema = operatorConditionSchema(false);
const v2Schema = operatorConditionSchema(true);

export const operatorConditionCRD = classicCRD({
  kind: 'OperatorCondition',
  plural: 'operatorconditions',
  shortNames: ['condition'],
  scope: 'Namespaced',
  versions: [
    { name: 'v1', storage: false, schema: v1Schema },
    { name: 'v2', storage: true, schema: v2Schema },
  ],
});
