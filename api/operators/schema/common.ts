// Schema pieces every classic CRD shares: the type metadata at the root of each object.
import type { CustomResourceDefinition, JSONSchemaProps, PrinterColumn } from '../../v1/schema/types.ts';

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

/** One served version of a classic CRD (every one has the status subresource). */
export interface ClassicVersion {
  readonly name: string;
  readonly storage: boolean;
  readonly schema: JSONSchemaProps;
  readonly printerColumns?: PrinterColumn[];
}

/** The CRD around classic schemas: group operators.coreos.com, category `olm`, names derived from the kind. */
export function classicCRD(o: {
  readonly kind: string;
  readonly plural: string;
  readonly shortNames?: string[];
  readonly scope: 'Namespaced' | 'Cluster';
  readonly versions: readonly ClassicVersion[];
}): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${o.plural}.operators.coreos.com` },
    spec: {
      group: 'operators.coreos.com',
      names: {
        categories: ['olm'],
        kind: o.kind,
        listKind: `${o.kind}List`,
        plural: o.plural,
        ...(o.shortNames && { shortNames: o.shortNames }),
        singular: o.kind.toLowerCase(),
      },
      scope: o.scope,
      versions: o.versions.map((v) => ({
        name: v.name,
        served: true,
        storage: v.storage,
        ...(v.printerColumns && { additionalPrinterColumns: v.printerColumns }),
        schema: { openAPIV3Schema: v.schema },
        subresources: { status: {} },
      })),
    },
  };
}

/** message, reason, status and type of a classic status condition (the fields every kind's conditions share). */
export const conditionTextFields: Record<string, JSONSchemaProps> = {
  message: {
    description: 'message explains the condition in words meant for people.',
    type: 'string',
  },
  reason: {
    description: 'reason is a short CamelCase word for the last change.',
    type: 'string',
  },
  status: {
    description: 'status is True, False or Unknown.',
    type: 'string',
  },
  type: {
    description: 'type of the condition.',
    type: 'string',
  },
};
