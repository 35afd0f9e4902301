// Schema pieces every classic CRD shares: the type metadata at the root of each object.
import type { JSONSchemaProps } from '../../v1/schema/types.ts';

export const apiVersionProperty: JSONSchemaProps = {
  type: 'string',
  description: [
    'apiVersion names the group and version this object is written in, for example',
    'operators.coreos.com/v1alpha1. The API server converts between the versions it serves.',
    'See https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
  ].join('\n'),
};

export const kindProperty: JSONSchemaProps = {
  type: 'string',
  description: [
    'kind names the type of this object in CamelCase; the server can tell it from the request URL.',
    'See https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
  ].join('\n'),
};

/** `metadata` is validated by the API server itself; CRD schemas only say it is an object. */
export const metadataProperty: JSONSchemaProps = { type: 'object' };
