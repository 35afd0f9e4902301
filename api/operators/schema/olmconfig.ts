// The OLMConfig CRD (operators.coreos.com, v1): the single source of
// config/crd/bases/operators.coreos.com_olmconfigs.yaml. Field for field upstream's CRD; descriptions are our own words.
// Embedded Kubernetes types come from kube-types.json (see README.md).
import type { JSONSchemaProps } from '../../v1/schema/types.ts';
import { apiVersionProperty, classicCRD, kindProperty, metadataProperty } from './common.ts';
import { kube } from './kube.ts';

const v1Schema: JSONSchemaProps = {
  description: 'OLMConfig holds the cluster-wide settings of OLM; one object named cluster.',
  type: 'object',
  required: ['metadata'],
  properties: {
    apiVersion: apiVersionProperty,
    kind: kindProperty,
    metadata: metadataProperty,
    spec: {
      description: 'spec holds the settings.',
      type: 'object',
      properties: {
        features: {
          description: 'features switches optional behaviour of OLM on and off.',
          type: 'object',
          properties: {
            disableCopiedCSVs: {
              description: 'disableCopiedCSVs stops OLM from copying the CSVs of operators that watch all namespaces into every namespace.',
              type: 'boolean',
            },
            packageServerSyncInterval: {
              description: 'packageServerSyncInterval is how often the package server checks CatalogSources, as a duration such as 5m.',
              type: 'string',
              pattern: '^([0-9]+(\\.[0-9]+)?(s|m|h))+$',
            },
          },
        },
      },
    },
    status: {
      description: 'status reports how the settings were applied.',
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

export const olmConfigCRD = classicCRD({
  kind: 'OLMConfig',
  plural: 'olmconfigs',
  scope: 'Cluster',
  versions: [
    { name: 'v1', storage: true, schema: v1Schema },
  ],
});
