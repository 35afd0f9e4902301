// The ClusterCatalog CRD (standard feature set): the single source config/crd/bases is generated from.
import {
  ClusterCatalogCRDName,
  ClusterCatalogKind,
  ClusterCatalogListKind,
  ClusterCatalogResource,
  ClusterCatalogSingular,
  GroupName,
  Version,
} from '../groupversion.ts';
import {
  ageColumn,
  apiVersionProperty,
  conditionsProperty,
  digestRefRules,
  imageRefRules,
  kindProperty,
  metadataProperty,
  noPollingOfDigestsRule,
} from './common.ts';
import type { CustomResourceDefinition, JSONSchemaProps } from './types.ts';

const imageUnionRule = {
  rule: `has(self.type) && self.type == 'Image' ? has(self.image) : !has(self.image)`,
  message: 'image is required when source type is Image, and forbidden otherwise',
};

const imageRefDescription = `ref names the container image that holds the catalog, as registry host, repository and
tag or digest, in at most 1000 characters.

- Host: DNS labels of letters (either case), digits and inner hyphens, joined by "."; a ":<port>" may
  follow. Examples: "quay.io", "registry.example.com", "my-registry.io:5000".
- Repository: follows the host after "/"; one or more "/"-separated components of lowercase letters
  and digits, joined inside a component by ".", "_", "__" or hyphens. Examples:
  "quay.io/operatorhubio/catalog", "example.com/team/catalog.v2".
- Identifier (required): either ":<tag>" or "@<algorithm>:<hex digest>".
  A tag starts with a letter, digit or "_", continues with those characters, "." or "-", and is at
  most 127 characters long, e.g. "quay.io/operatorhubio/catalog:latest".
  An algorithm starts with a letter and continues with letters and digits, with "-", "_", "+" or "."
  allowed between such parts (e.g. "sha256", "sha256+b64u"); the digest is at least 32 hexadecimal
  characters, e.g. "quay.io/operatorhubio/catalog@sha256:" followed by 64 hex characters.

A tag is followed: the content is re-read when the tag moves (see pollIntervalMinutes). A digest pins
the content for good.`;

const spec: JSONSchemaProps = {
  type: 'object',
  description: 'spec says where the catalog content comes from and how clients should treat this catalog. It is required.',
  required: ['source'],
  properties: {
    availabilityMode: {
      type: 'string',
      enum: ['Unavailable', 'Available'],
      default: 'Available',
      description: `availabilityMode says whether the catalog is offered to clients: "Available" (the default) or
"Unavailable".

Available: the content is unpacked and served by the catalog content server, and clients may use it.
Unavailable: the content is no longer served and clients behave as if this ClusterCatalog did not
exist. Use it to switch a catalog off without deleting the object.`,
    },
    priority: {
      type: 'integer',
      format: 'int32',
      default: 0,
      minimum: -2147483648,
      maximum: 2147483647,
      description: `priority ranks this catalog against others: when several catalogs offer what a client needs, the
one with the larger number is preferred. How a tie between equally ranked catalogs is settled is up
to the client, which should ask the user rather than guess.

Omitted means 0. Negative values rank below the default, positive values above it. Any signed 32-bit
integer (-2147483648 to 2147483647) is allowed.`,
    },
    source: {
      type: 'object',
      description: `source says where the catalog content is read from. The content must be a file-based catalog
(FBC, https://olm.operatorframework.io/docs/reference/file-based-catalogs/): it lists the packages,
channels and bundles that can be installed on the cluster, and tools such as consoles and installers
read it. Example:

  source:
    type: Image
    image:
      ref: registry.example.com/catalogs/community:v4.18`,
      required: ['type'],
      'x-kubernetes-validations': [imageUnionRule],
      properties: {
        image: {
          type: 'object',
          description: 'image reads the catalog from an OCI image. It must be set when type is Image and left out otherwise.',
          required: ['ref'],
          'x-kubernetes-validations': [noPollingOfDigestsRule],
          properties: {
            pollIntervalMinutes: {
              type: 'integer',
              minimum: 1,
              description: `pollIntervalMinutes is how often, in minutes, the image reference is checked for new content.
It is not allowed with a digest reference, which can never change. Left out, the image is not
checked again after the first pull.`,
            },
            ref: {
              type: 'string',
              maxLength: 1000,
              description: imageRefDescription,
              'x-kubernetes-validations': imageRefRules,
            },
          },
        },
        type: {
          type: 'string',
          enum: ['Image'],
          description: `type selects the kind of source. Only "Image" exists: the content is read from an OCI image
named in the image field, which must then be the only source field set.`,
        },
      },
    },
  },
};

const status: JSONSchemaProps = {
  type: 'object',
  description: `status reports what the controller has done with this catalog: whether its content is served,
whether it is moving towards a new state, and exactly which source content was used.`,
  properties: {
    conditions: conditionsProperty(`conditions describe the catalog's state. Two types are used.

Serving: is the content available from the catalog content server?
  - True, reason Available: yes.
  - False, reason Unavailable: no, the content has not been made available (yet).
  - False, reason UserSpecifiedUnavailable: no, because spec.availabilityMode is Unavailable.

Progressing: is the catalog moving towards, or ready to move towards, a new state?
  - True, reason Succeeded: the last change was made; further changes will be picked up.
  - True, reason Retrying: an error occurred that a later attempt may get past.
  - False, reason Blocked: an error occurred that a person has to fix.

Both can hold at once: when polling finds new content that cannot be unpacked yet, the previous
content stays served (Serving True, Available) while Progressing is True with reason Retrying.`),
    lastUnpacked: {
      type: 'string',
      format: 'date-time',
      description: `lastUnpacked is when the content now served was extracted from its source, for an image: when
its layers were pulled and written to the controller's local cache.`,
    },
    resolvedSource: {
      type: 'object',
      description: 'resolvedSource pins down the exact source content that was used, per source type.',
      required: ['image', 'type'],
      'x-kubernetes-validations': [imageUnionRule],
      properties: {
        image: {
          type: 'object',
          description: 'image is set for image sources (type Image) and only for them.',
          required: ['ref'],
          properties: {
            ref: {
              type: 'string',
              maxLength: 1000,
              description: `ref is the digest reference of the image that was unpacked, so other tools can fetch the very
same OCI manifests.`,
              'x-kubernetes-validations': digestRefRules,
            },
          },
        },
        type: {
          type: 'string',
          enum: ['Image'],
          description: 'type is the kind of source that was resolved; only "Image" exists, with the details in image.',
        },
      },
    },
    urls: {
      type: 'object',
      description: 'urls tells clients where to read the catalog content.',
      required: ['base'],
      properties: {
        base: {
          type: 'string',
          maxLength: 525,
          description: `base is the in-cluster http or https URL of this catalog on the catalog content server. Clients
append the path of an endpoint to it. The v1 API lives below /api/v1; its endpoint /all returns the
whole catalog as FBC. More endpoints may be added later.`,
          'x-kubernetes-validations': [
            { rule: 'isURL(self)', message: 'must be a valid URL' },
            {
              rule: 'isURL(self) ? (url(self).getScheme() == "http" || url(self).getScheme() == "https") : true',
              message: 'scheme must be either http or https',
            },
          ],
        },
      },
    },
  },
};

export const clusterCatalogCRD: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: ClusterCatalogCRDName,
    annotations: { 'olm.operatorframework.io/generator': 'standard' },
  },
  spec: {
    group: GroupName,
    names: {
      kind: ClusterCatalogKind,
      listKind: ClusterCatalogListKind,
      plural: ClusterCatalogResource,
      singular: ClusterCatalogSingular,
    },
    scope: 'Cluster',
    versions: [
      {
        name: Version,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'LastUnpacked', type: 'date', jsonPath: '.status.lastUnpacked' },
          { name: 'Serving', type: 'string', jsonPath: '.status.conditions[?(@.type=="Serving")].status' },
          ageColumn,
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description: `A ClusterCatalog makes the content of a file-based catalog (FBC) available on the cluster: the
controller fetches it and serves it over HTTP, where ClusterExtensions and other clients look up
packages to install. About FBC: https://olm.operatorframework.io/docs/reference/file-based-catalogs/

Each ClusterCatalog carries the label olm.operatorframework.io/metadata.name with its own name, set by
the API server, so a ClusterExtension can select one catalog by name.`,
            required: ['metadata', 'spec'],
            properties: {
              apiVersion: apiVersionProperty,
              kind: kindProperty,
              metadata: metadataProperty,
              spec,
              status,
            },
          },
        },
      },
    ],
  },
};

/** The experimental feature set's ClusterCatalog CRD: the standard one, marked experimental. */
export const clusterCatalogExperimentalCRD: CustomResourceDefinition = (() => {
  const crd = structuredClone(clusterCatalogCRD);
  crd.metadata.annotations = { ...crd.metadata.annotations, 'olm.operatorframework.io/generator': 'experimental' };
  return crd;
})();
