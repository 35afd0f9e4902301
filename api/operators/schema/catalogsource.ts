// The CatalogSource CRD (operators.coreos.com, v1alpha1): the single source of
// config/crd/bases/operators.coreos.com_catalogsources.yaml. Field for field upstream's CRD; descriptions are our own words.
// Embedded Kubernetes types come from kube-types.json (see README.md).
import type { JSONSchemaProps } from '../../v1/schema/types.ts';
import { apiVersionProperty, classicCRD, kindProperty, metadataProperty } from './common.ts';
import { kube } from './kube.ts';

const v1alpha1Schema: JSONSchemaProps = {
  description: 'A CatalogSource is a source of operator packages, channels and bundles that Subscriptions in its namespace (or, in the global catalog namespace, in every namespace) resolve against.',
  type: 'object',
  required: ['metadata', 'spec'],
  properties: {
    apiVersion: apiVersionProperty,
    kind: kindProperty,
    metadata: metadataProperty,
    spec: {
      type: 'object',
      required: ['sourceType'],
      properties: {
        address: {
          description: 'address is the host:port of a registry gRPC server that already runs; used with sourceType grpc when image is empty (image wins when both are set).',
          type: 'string',
        },
        configMap: {
          description: 'configMap names the ConfigMap that holds the catalog for sourceType configmap or internal.',
          type: 'string',
        },
        description: {
          type: 'string',
        },
        displayName: {
          description: 'displayName is the name shown for this catalog in user interfaces.',
          type: 'string',
        },
        grpcPodConfig: {
          description: 'grpcPodConfig adjusts the Pod that serves the catalog image (sourceType grpc with image set).',
          type: 'object',
          properties: {
            affinity: kube('Affinity', 'affinity sets the scheduling affinity of the catalog Pod.'),
            extractContent: {
              description: 'extractContent makes the catalog Pod copy the file-based catalog out of the image and serve it with a known opm server. The image must hold a file-based catalog.',
              type: 'object',
              required: ['catalogDir'],
              properties: {
                cacheDir: {
                  description: 'cacheDir is the directory in the image that holds a precomputed serving cache, if any.',
                  type: 'string',
                },
                catalogDir: {
                  description: 'catalogDir is the directory in the image that holds the file-based catalog.',
                  type: 'string',
                },
              },
            },
            memoryTarget: kube('Quantity', 'memoryTarget is a soft memory goal for the catalog server: when set it becomes the GOMEMLIMIT of the server and the memory request of its container. Unset means no limit and no request. A good first value is twice the size of the package cache in the image.'),
            nodeSelector: {
              description: 'nodeSelector lists node labels the catalog Pod must be scheduled onto.',
              type: 'object',
              additionalProperties: {
                type: 'string',
              },
            },
            priorityClassName: {
              description: 'priorityClassName sets the priority class of the catalog Pod; empty leaves the cluster default.',
              type: 'string',
            },
            securityContextConfig: {
              description: 'securityContextConfig is "restricted" (the catalog Pod gets security contexts that satisfy the restricted Pod Security level) or "legacy" (no security contexts, so the Pod needs a baseline or privileged namespace). Unset follows the namespace: restricted when the namespace enforces restricted, legacy otherwise. Old catalog images that cannot run restricted need legacy.',
              type: 'string',
              enum: ['legacy', 'restricted'],
            },
            tolerations: {
              description: 'tolerations are added to the catalog Pod.',
              type: 'array',
              items: kube('Toleration', 'One toleration of a node taint.'),
            },
          },
        },
        icon: {
          type: 'object',
          required: ['base64data', 'mediatype'],
          properties: {
            base64data: {
              type: 'string',
            },
            mediatype: {
              type: 'string',
            },
          },
        },
        image: {
          description: 'image is a catalog image to serve (sourceType grpc). When set, address is ignored.',
          type: 'string',
        },
        priority: {
          description: 'priority ranks this catalog during dependency resolution: a higher value is preferred. Any int32; omitted means 0. Catalogs of equal priority are ordered by name.',
          type: 'integer',
        },
        publisher: {
          type: 'string',
        },
        secrets: {
          description: 'secrets name pull secrets tried when reading catalog content. Keep the list short: each one may be tried for every entry.',
          type: 'array',
          items: {
            type: 'string',
          },
        },
        sourceType: {
          description: 'sourceType says how the catalog is served: grpc, configmap or internal.',
          type: 'string',
        },
        updateStrategy: {
          description: 'updateStrategy says how a newer catalog image is discovered.',
          type: 'object',
          properties: {
            registryPoll: {
              type: 'object',
              properties: {
                interval: {
                  description: 'interval is how often the image tag is checked for new content; when it moved, the new content replaces the old.',
                  type: 'string',
                },
              },
            },
          },
        },
      },
    },
    status: {
      type: 'object',
      properties: {
        conditions: {
          description: 'conditions describe the state of the CatalogSource; reason and message remain for older clients.',
          type: 'array',
          items: kube('Condition', 'One observation about the state of this object, identified by its type.'),
          'x-kubernetes-list-map-keys': ['type'],
          'x-kubernetes-list-type': 'map',
        },
        configMapReference: {
          description: 'configMapReference (deprecated) points at the ConfigMap a configmap catalog was read from.',
          type: 'object',
          required: ['name', 'namespace'],
          properties: {
            lastUpdateTime: {
              type: 'string',
              format: 'date-time',
            },
            name: {
              type: 'string',
            },
            namespace: {
              type: 'string',
            },
            resourceVersion: {
              type: 'string',
            },
            uid: {
              description: 'uid of the ConfigMap.',
              type: 'string',
            },
          },
        },
        connectionState: {
          description: 'connectionState is the last observed state of the connection to the catalog server.',
          type: 'object',
          required: ['lastObservedState'],
          properties: {
            address: {
              type: 'string',
            },
            lastConnect: {
              type: 'string',
              format: 'date-time',
            },
            lastObservedState: {
              type: 'string',
            },
          },
        },
        latestImageRegistryPoll: {
          description: 'latestImageRegistryPoll is when the image tag was last checked for new content.',
          type: 'string',
          format: 'date-time',
        },
        message: {
          description: 'message explains the current state in words meant for people.',
          type: 'string',
        },
        reason: {
          description: 'reason is why the CatalogSource is in its current state.',
          type: 'string',
        },
        registryService: {
          description: 'registryService describes the gRPC service that serves the catalog.',
          type: 'object',
          properties: {
            createdAt: {
              type: 'string',
              format: 'date-time',
            },
            port: {
              type: 'string',
            },
            protocol: {
              type: 'string',
            },
            serviceName: {
              type: 'string',
            },
            serviceNamespace: {
              type: 'string',
            },
          },
        },
      },
    },
  },
};

export const catalogSourceCRD = classicCRD({
  kind: 'CatalogSource',
  plural: 'catalogsources',
  shortNames: ['catsrc'],
  scope: 'Namespaced',
  versions: [
    { name: 'v1alpha1', storage: true, schema: v1alpha1Schema, printerColumns: [{ description: 'displayName of the catalog', jsonPath: '.spec.displayName', name: 'Display', type: 'string' }, { description: 'how the catalog is served', jsonPath: '.spec.sourceType', name: 'Type', type: 'string' }, { description: 'who publishes the catalog', jsonPath: '.spec.publisher', name: 'Publisher', type: 'string' }, { jsonPath: '.metadata.creationTimestamp', name: 'Age', type: 'date' }] },
  ],
});
