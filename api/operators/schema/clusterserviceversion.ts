// The ClusterServiceVersion CRD (operators.coreos.com, v1alpha1): the single source of
// config/crd/bases/operators.coreos.com_clusterserviceversions.yaml. Field for field upstream's CRD; descriptions are our own words.
// Embedded Kubernetes types come from kube-types.json (see README.md).
import type { JSONSchemaProps } from '../../v1/schema/types.ts';
import { apiVersionProperty, classicCRD, kindProperty, metadataProperty } from './common.ts';
import { kube } from './kube.ts';

/** A list of descriptors (actions, spec or status fields) of an API, for user interfaces. */
function descriptors(description: string): JSONSchemaProps {
  return {
    type: 'array',
    items: {
      description,
      type: 'object',
      required: ['path'],
      properties: {
        description: {
          type: 'string',
        },
        displayName: {
          type: 'string',
        },
        path: {
          type: 'string',
        },
        value: {
          description: 'value is arbitrary JSON kept as written.',
          type: 'string',
          format: 'byte',
        },
        'x-descriptors': {
          type: 'array',
          items: {
            type: 'string',
          },
        },
      },
    },
  };
}

/** The kinds of Kubernetes objects an API makes use of. */
const apiResources: JSONSchemaProps = {
  type: 'array',
  items: {
    description: 'A kind of Kubernetes object the API makes use of.',
    type: 'object',
    required: ['kind', 'name', 'version'],
    properties: {
      kind: {
        description: 'kind of the object type.',
        type: 'string',
      },
      name: {
        description: 'name is the plural resource name of a custom resource type; empty for built-in types.',
        type: 'string',
      },
      version: {
        description: 'version of the object type.',
        type: 'string',
      },
    },
  },
};

const apiServiceDescriptions: JSONSchemaProps = {
  type: 'array',
  items: {
    description: 'One aggregated API (APIService) and how it is served.',
    type: 'object',
    required: ['group', 'kind', 'name', 'version'],
    properties: {
      actionDescriptors: descriptors('An action that can be taken on an instance of the API, for user interfaces.'),
      containerPort: {
        type: 'integer',
        format: 'int32',
      },
      deploymentName: {
        type: 'string',
      },
      description: {
        type: 'string',
      },
      displayName: {
        type: 'string',
      },
      group: {
        type: 'string',
      },
      kind: {
        type: 'string',
      },
      name: {
        type: 'string',
      },
      resources: apiResources,
      specDescriptors: descriptors('Describes one field of the spec of the API, for user interfaces.'),
      statusDescriptors: descriptors('Describes one field of the status of the API, for user interfaces.'),
      version: {
        type: 'string',
      },
    },
  },
};

const crdDescriptions: JSONSchemaProps = {
  type: 'array',
  items: {
    description: 'One custom resource type with the details user interfaces show.',
    type: 'object',
    required: ['kind', 'name', 'version'],
    properties: {
      actionDescriptors: descriptors('An action that can be taken on an instance of the API, for user interfaces.'),
      description: {
        type: 'string',
      },
      displayName: {
        type: 'string',
      },
      kind: {
        type: 'string',
      },
      name: {
        type: 'string',
      },
      resources: apiResources,
      specDescriptors: descriptors('Describes one field of the spec of the API, for user interfaces.'),
      statusDescriptors: descriptors('Describes one field of the status of the API, for user interfaces.'),
      version: {
        type: 'string',
      },
    },
  },
};

const v1alpha1Schema: JSONSchemaProps = {
  description: 'A ClusterServiceVersion describes one version of an operator: what it installs, which APIs it owns and needs, and how it may be installed.',
  type: 'object',
  required: ['metadata', 'spec'],
  properties: {
    apiVersion: apiVersionProperty,
    kind: kindProperty,
    metadata: metadataProperty,
    spec: {
      description: 'spec tells OLM how to install and run this version of the operator.',
      type: 'object',
      required: ['displayName', 'install'],
      properties: {
        annotations: {
          description: 'annotations are free-form key/value metadata for tools.',
          type: 'object',
          additionalProperties: {
            type: 'string',
          },
        },
        apiservicedefinitions: {
          description: 'apiservicedefinitions lists the aggregated APIs the operator serves (owned) and needs (required).',
          type: 'object',
          properties: {
            owned: apiServiceDescriptions,
            required: apiServiceDescriptions,
          },
        },
        cleanup: {
          description: 'cleanup says what happens to the operator\'s custom resources when the CSV is deleted.',
          type: 'object',
          required: ['enabled'],
          properties: {
            enabled: {
              type: 'boolean',
            },
          },
        },
        customresourcedefinitions: {
          description: 'customresourcedefinitions lists the CRDs the operator owns and needs; an owned CRD counts as required too.',
          type: 'object',
          properties: {
            owned: crdDescriptions,
            required: crdDescriptions,
          },
        },
        description: {
          description: 'description of the operator, in Markdown.',
          type: 'string',
        },
        displayName: {
          description: 'displayName is the operator name shown to people.',
          type: 'string',
        },
        icon: {
          description: 'icon images of the operator.',
          type: 'array',
          items: {
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
        },
        install: {
          description: 'install says how the operator is deployed.',
          type: 'object',
          required: ['strategy'],
          properties: {
            spec: {
              description: 'spec holds the deployments and permissions of the deployment strategy.',
              type: 'object',
              required: ['deployments'],
              properties: {
                clusterPermissions: {
                  type: 'array',
                  items: {
                    description: 'Cluster-wide RBAC rules granted to one service account.',
                    type: 'object',
                    required: ['rules', 'serviceAccountName'],
                    properties: {
                      rules: {
                        type: 'array',
                        items: kube('PolicyRule', 'One RBAC rule.'),
                      },
                      serviceAccountName: {
                        type: 'string',
                      },
                    },
                  },
                },
                deployments: {
                  type: 'array',
                  items: {
                    description: 'One Deployment of the operator, by name.',
                    type: 'object',
                    required: ['name', 'spec'],
                    properties: {
                      label: {
                        description: 'label is a set of labels for the Deployment.',
                        type: 'object',
                        additionalProperties: {
                          type: 'string',
                        },
                      },
                      name: {
                        type: 'string',
                      },
                      spec: kube('DeploymentSpec', 'spec is the DeploymentSpec the Deployment is created with.'),
                    },
                  },
                },
                permissions: {
                  type: 'array',
                  items: {
                    description: 'Namespaced RBAC rules granted to one service account.',
                    type: 'object',
                    required: ['rules', 'serviceAccountName'],
                    properties: {
                      rules: {
                        type: 'array',
                        items: kube('PolicyRule', 'One RBAC rule.'),
                      },
                      serviceAccountName: {
                        type: 'string',
                      },
                    },
                  },
                },
              },
            },
            strategy: {
              type: 'string',
            },
          },
        },
        installModes: {
          description: 'installModes says which kinds of OperatorGroup target namespaces the operator supports.',
          type: 'array',
          items: {
            description: 'Whether one install mode is supported.',
            type: 'object',
            required: ['supported', 'type'],
            properties: {
              supported: {
                type: 'boolean',
              },
              type: {
                description: 'type of the install mode: OwnNamespace, SingleNamespace, MultiNamespace or AllNamespaces.',
                type: 'string',
              },
            },
          },
        },
        keywords: {
          description: 'keywords that describe the operator, for search.',
          type: 'array',
          items: {
            type: 'string',
          },
        },
        labels: {
          description: 'labels are free-form key/value metadata for tools.',
          type: 'object',
          additionalProperties: {
            type: 'string',
          },
        },
        links: {
          description: 'links to pages about the operator.',
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: {
                type: 'string',
              },
              url: {
                type: 'string',
              },
            },
          },
        },
        maintainers: {
          description: 'maintainers of the operator and how to reach them.',
          type: 'array',
          items: {
            type: 'object',
            properties: {
              email: {
                type: 'string',
              },
              name: {
                type: 'string',
              },
            },
          },
        },
        maturity: {
          type: 'string',
        },
        minKubeVersion: {
          type: 'string',
        },
        nativeAPIs: {
          type: 'array',
          items: {
            description: 'A group, version and kind that the cluster must serve for the operator to run.',
            type: 'object',
            required: ['group', 'kind', 'version'],
            properties: {
              group: {
                type: 'string',
              },
              kind: {
                type: 'string',
              },
              version: {
                type: 'string',
              },
            },
          },
        },
        provider: {
          description: 'provider is who publishes the operator.',
          type: 'object',
          properties: {
            name: {
              type: 'string',
            },
            url: {
              type: 'string',
            },
          },
        },
        relatedImages: {
          description: 'relatedImages lists every image the operator uses, for mirroring.',
          type: 'array',
          items: {
            type: 'object',
            required: ['image', 'name'],
            properties: {
              image: {
                type: 'string',
              },
              name: {
                type: 'string',
              },
            },
          },
        },
        release: {
          description: 'release tells apart builds of the same version (for example rebuilds for security fixes). Dot-separated identifiers of letters, digits and hyphens; numeric identifiers have no leading zeros; at most 20 characters.',
          type: 'string',
          maxLength: 20,
          'x-kubernetes-validations': [{ rule: 'self.matches(\'^[0-9A-Za-z-]+(\\\\.[0-9A-Za-z-]+)*$\')', message: 'release version must be composed of dot-separated identifiers containing only alphanumerics and hyphens' }, { rule: '!self.split(\'.\').exists(x, x.matches(\'^0[0-9]+$\'))', message: 'numeric identifiers in release version must not have leading zeros' }],
        },
        replaces: {
          description: 'replaces names the CSV this one upgrades. An upgrade continues only once that CSV is present and in phase Succeeded.',
          type: 'string',
        },
        selector: kube('LabelSelector', 'selector matches the objects that belong to the operator.'),
        skips: {
          description: 'skips names CSVs this one can upgrade directly, besides the one it replaces.',
          type: 'array',
          items: {
            type: 'string',
          },
        },
        version: {
          type: 'string',
        },
        webhookdefinitions: {
          type: 'array',
          items: {
            description: 'An admission or conversion webhook the operator serves, and how it is configured.',
            type: 'object',
            required: ['admissionReviewVersions', 'generateName', 'sideEffects', 'type'],
            properties: {
              admissionReviewVersions: {
                type: 'array',
                items: {
                  type: 'string',
                },
              },
              containerPort: {
                type: 'integer',
                format: 'int32',
                default: 443,
                maximum: 65535,
                minimum: 1,
              },
              conversionCRDs: {
                type: 'array',
                items: {
                  type: 'string',
                },
              },
              deploymentName: {
                type: 'string',
              },
              failurePolicy: {
                description: 'failurePolicy is what the API server does when the webhook cannot be called: Ignore or Fail.',
                type: 'string',
              },
              generateName: {
                type: 'string',
              },
              matchPolicy: {
                description: 'matchPolicy is how requests are matched against rules: Exact or Equivalent.',
                type: 'string',
              },
              objectSelector: kube('LabelSelector', 'A label query.'),
              reinvocationPolicy: {
                description: 'reinvocationPolicy says whether a mutating webhook may be called again in one admission: Never or IfNeeded.',
                type: 'string',
              },
              rules: {
                type: 'array',
                items: kube('RuleWithOperations', 'The operations and resources the webhook is called for.'),
              },
              sideEffects: {
                description: 'sideEffects says whether the webhook has effects beyond its answer: None or NoneOnDryRun (Unknown and Some are refused).',
                type: 'string',
              },
              targetPort: {
                anyOf: [{ type: 'integer' }, { type: 'string' }],
                'x-kubernetes-int-or-string': true,
              },
              timeoutSeconds: {
                type: 'integer',
                format: 'int32',
              },
              type: {
                description: 'type of the webhook: ValidatingAdmissionWebhook, MutatingAdmissionWebhook or ConversionWebhook.',
                type: 'string',
                enum: ['ValidatingAdmissionWebhook', 'MutatingAdmissionWebhook', 'ConversionWebhook'],
              },
              webhookPath: {
                type: 'string',
              },
            },
          },
        },
      },
    },
    status: {
      description: 'status is OLM\'s view of the CSV; it may lag behind the cluster.',
      type: 'object',
      properties: {
        certsLastUpdated: {
          description: 'certsLastUpdated is when the serving certificates OLM issued were last renewed.',
          type: 'string',
          format: 'date-time',
        },
        certsRotateAt: {
          description: 'certsRotateAt is when the serving certificates OLM issued will next be renewed.',
          type: 'string',
          format: 'date-time',
        },
        cleanup: {
          description: 'cleanup lists what is left to delete before the CSV goes away.',
          type: 'object',
          properties: {
            pendingDeletion: {
              description: 'pendingDeletion groups the custom resources still to be deleted by kind.',
              type: 'array',
              items: {
                description: 'The remaining objects of one kind.',
                type: 'object',
                required: ['group', 'instances', 'kind'],
                properties: {
                  group: {
                    type: 'string',
                  },
                  instances: {
                    type: 'array',
                    items: {
                      type: 'object',
                      required: ['name'],
                      properties: {
                        name: {
                          type: 'string',
                        },
                        namespace: {
                          description: 'namespace of the object; empty for cluster-scoped objects.',
                          type: 'string',
                        },
                      },
                    },
                  },
                  kind: {
                    type: 'string',
                  },
                },
              },
            },
          },
        },
        conditions: {
          description: 'conditions is the history of phase transitions, oldest first.',
          type: 'array',
          items: {
            description: 'One phase transition of the CSV.',
            type: 'object',
            properties: {
              lastTransitionTime: {
                description: 'lastTransitionTime is when the CSV entered this phase.',
                type: 'string',
                format: 'date-time',
              },
              lastUpdateTime: {
                description: 'lastUpdateTime is when this entry was last written.',
                type: 'string',
                format: 'date-time',
              },
              message: {
                description: 'message explains the transition in words meant for people.',
                type: 'string',
              },
              phase: {
                description: 'phase the CSV was in.',
                type: 'string',
              },
              reason: {
                description: 'reason is a short CamelCase word for why the CSV was in this phase.',
                type: 'string',
              },
            },
          },
        },
        lastTransitionTime: {
          description: 'lastTransitionTime is when the phase last changed.',
          type: 'string',
          format: 'date-time',
        },
        lastUpdateTime: {
          description: 'lastUpdateTime is when the status was last written.',
          type: 'string',
          format: 'date-time',
        },
        message: {
          description: 'message explains the current phase in words meant for people.',
          type: 'string',
        },
        phase: {
          description: 'phase of the CSV in its lifecycle.',
          type: 'string',
        },
        reason: {
          description: 'reason is a short CamelCase word for why the CSV is in its phase.',
          type: 'string',
        },
        requirementStatus: {
          description: 'requirementStatus lists each requirement of the CSV (CRDs, APIs, permissions) and whether it is met.',
          type: 'array',
          items: {
            type: 'object',
            required: ['group', 'kind', 'message', 'name', 'status', 'version'],
            properties: {
              dependents: {
                type: 'array',
                items: {
                  description: 'Whether one thing a requirement depends on (for example a permission of its service account) is present.',
                  type: 'object',
                  required: ['group', 'kind', 'status', 'version'],
                  properties: {
                    group: {
                      type: 'string',
                    },
                    kind: {
                      type: 'string',
                    },
                    message: {
                      type: 'string',
                    },
                    status: {
                      description: 'status is a CamelCase word: Present, NotPresent, PresentNotSatisfied.',
                      type: 'string',
                    },
                    uuid: {
                      type: 'string',
                    },
                    version: {
                      type: 'string',
                    },
                  },
                },
              },
              group: {
                type: 'string',
              },
              kind: {
                type: 'string',
              },
              message: {
                type: 'string',
              },
              name: {
                type: 'string',
              },
              status: {
                description: 'status is a CamelCase word: Present, NotPresent, PresentNotSatisfied.',
                type: 'string',
              },
              uuid: {
                type: 'string',
              },
              version: {
                type: 'string',
              },
            },
          },
        },
      },
    },
  },
};

export const clusterServiceVersionCRD = classicCRD({
  kind: 'ClusterServiceVersion',
  plural: 'clusterserviceversions',
  shortNames: ['csv', 'csvs'],
  scope: 'Namespaced',
  versions: [
    { name: 'v1alpha1', storage: true, schema: v1alpha1Schema, printerColumns: [{ description: 'displayName of the operator', jsonPath: '.spec.displayName', name: 'Display', type: 'string' }, { description: 'version of the operator', jsonPath: '.spec.version', name: 'Version', type: 'string' }, { description: 'release of that version', jsonPath: '.spec.release', name: 'Release', type: 'string' }, { description: 'CSV this one upgrades', jsonPath: '.spec.replaces', name: 'Replaces', type: 'string' }, { jsonPath: '.status.phase', name: 'Phase', type: 'string' }] },
  ],
});
