// Schema pieces both CRDs share: type metadata, metav1.Condition, metav1.LabelSelector, and the
// CEL rules for names and image references. Rule texts and messages are API (clients and users
// see the messages verbatim), so they must stay byte-for-byte what upstream ships.
import type { JSONSchemaProps, PrinterColumn, ValidationRule } from './types.ts';

export const apiVersionProperty: JSONSchemaProps = {
  type: 'string',
  description: [
    'apiVersion names the group and version of the schema this object is written in, for example',
    'olm.operatorframework.io/v1. The API server converts objects to the versions it serves and may',
    'refuse versions it does not know.',
    'See https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
  ].join('\n'),
};

export const kindProperty: JSONSchemaProps = {
  type: 'string',
  description: [
    'kind names the REST resource type of this object, in CamelCase. The server can work it out from',
    'the URL a request was sent to, and it never changes after creation.',
    'See https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
  ].join('\n'),
};

/** `metadata` is validated by the API server itself; CRD schemas only say it is an object. */
export const metadataProperty: JSONSchemaProps = { type: 'object' };

/** metav1.Condition as an item of a `type`-keyed list map. */
export function conditionsProperty(description: string): JSONSchemaProps {
  return {
    type: 'array',
    description,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['type'],
    items: {
      type: 'object',
      description: 'One observation about the state of this object, identified by its type.',
      required: ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
      properties: {
        lastTransitionTime: {
          type: 'string',
          format: 'date-time',
          description: [
            'lastTransitionTime is when status last changed value. Writers use the time the underlying',
            'state changed, or, when that is not known, the time they changed this field.',
          ].join('\n'),
        },
        message: {
          type: 'string',
          maxLength: 32768,
          description: 'message explains the transition in words meant for people. It may be empty.',
        },
        observedGeneration: {
          type: 'integer',
          format: 'int64',
          minimum: 0,
          description: [
            'observedGeneration is the metadata.generation of the object that this condition was computed',
            'from. When it is lower than the current metadata.generation, the condition describes an older',
            'spec and may be stale.',
          ].join('\n'),
        },
        reason: {
          type: 'string',
          minLength: 1,
          maxLength: 1024,
          pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
          description: [
            'reason is a short CamelCase identifier of why the condition last changed, meant for programs.',
            'Each condition type documents the reasons it uses. It is never empty.',
          ].join('\n'),
        },
        status: {
          type: 'string',
          enum: ['True', 'False', 'Unknown'],
          description: 'status is "True", "False" or "Unknown".',
        },
        type: {
          type: 'string',
          maxLength: 316,
          pattern:
            '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
          description: 'type names what the condition is about, in CamelCase, optionally prefixed by a DNS domain and "/".',
        },
      },
    },
  };
}

/** metav1.LabelSelector (atomic map). */
export function labelSelectorProperty(description: string): JSONSchemaProps {
  return {
    type: 'object',
    description,
    'x-kubernetes-map-type': 'atomic',
    properties: {
      matchExpressions: {
        type: 'array',
        description: 'matchExpressions lists label requirements; an object must meet all of them.',
        'x-kubernetes-list-type': 'atomic',
        items: {
          type: 'object',
          description: 'One requirement: a label key, an operator, and the values the operator compares with.',
          required: ['key', 'operator'],
          properties: {
            key: { type: 'string', description: 'key is the label the requirement looks at.' },
            operator: {
              type: 'string',
              description: 'operator is one of In, NotIn, Exists and DoesNotExist.',
            },
            values: {
              type: 'array',
              description: [
                'values are the label values the operator compares with: at least one for In and NotIn,',
                'none for Exists and DoesNotExist. A strategic merge patch replaces the whole list.',
              ].join('\n'),
              'x-kubernetes-list-type': 'atomic',
              items: { type: 'string' },
            },
          },
        },
      },
      matchLabels: {
        type: 'object',
        description: [
          'matchLabels requires each listed label to have exactly the given value. An entry {key: value}',
          'means the same as a matchExpressions requirement with that key, operator In and the single',
          'value. All entries and all matchExpressions must hold.',
        ].join('\n'),
        additionalProperties: { type: 'string' },
      },
    },
  };
}

/** The age column every CRD prints last. */
export const ageColumn: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

// ---- Names -----------------------------------------------------------------------------------

/** CEL: the value is an RFC 1123 subdomain (length is checked by maxLength). */
export const dns1123SubdomainRule = String.raw`self.matches("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")`;

/** Upstream's message for a field that must be an RFC 1123 subdomain of at most 253 characters. */
export function dns1123SubdomainMessage(field: string): string {
  return (
    `${field} must be a valid DNS1123 subdomain. It must contain only lowercase alphanumeric characters, ` +
    'hyphens (-) or periods (.), start and end with an alphanumeric character, and be no longer than 253 characters'
  );
}

/** CEL: the value never changes once set (transition rule). */
export function immutableRule(message: string): ValidationRule {
  return { rule: 'self == oldSelf', message };
}

// ---- Image references ------------------------------------------------------------------------

const domainRule: ValidationRule = {
  rule: String.raw`self.matches('^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])((\\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))+)?(:[0-9]+)?\\b')`,
  message:
    'must start with a valid domain. valid domains must be alphanumeric characters (lowercase and uppercase) separated by the "." character.',
};

const nameRule: ValidationRule = {
  rule: String.raw`self.find('(\\/[a-z0-9]+((([._]|__|[-]*)[a-z0-9]+)+)?((\\/[a-z0-9]+((([._]|__|[-]*)[a-z0-9]+)+)?)+)?)') != ""`,
  message:
    'a valid name is required. valid names must contain lowercase alphanumeric characters separated only by the ".", "_", "__", "-" characters.',
};

const digestOrTagRule: ValidationRule = {
  rule: `self.find('(@.*:)') != "" || self.find(':.*$') != ""`,
  message: 'must end with a digest or a tag',
};

const digestOnlyRule: ValidationRule = {
  rule: `self.find('(@.*:)') != ""`,
  message: 'must end with a digest',
};

const tagLengthRule: ValidationRule = {
  rule: `self.find('(@.*:)') == "" ? (self.find(':.*$') != "" ? self.find(':.*$').substring(1).size() <= 127 : true) : true`,
  message: 'tag is invalid. the tag must not be more than 127 characters',
};

const tagCharactersRule: ValidationRule = {
  rule: String.raw`self.find('(@.*:)') == "" ? (self.find(':.*$') != "" ? self.find(':.*$').matches(':[\\w][\\w.-]*$') : true) : true`,
  message:
    'tag is invalid. valid tags must begin with a word character (alphanumeric + "_") followed by word characters or ".", and "-" characters',
};

const digestAlgorithmRule: ValidationRule = {
  rule: `self.find('(@.*:)') != "" ? self.find('(@.*:)').matches('(@[A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*[:])') : true`,
  message:
    'digest algorithm is not valid. valid algorithms must start with an uppercase or lowercase alpha character followed by alphanumeric characters and may contain the "-", "_", "+", and "." characters.',
};

const digestLengthRule: ValidationRule = {
  rule: `self.find('(@.*:)') != "" ? self.find(':.*$').substring(1).size() >= 32 : true`,
  message: 'digest is not valid. the encoded string must be at least 32 characters',
};

const digestHexRule: ValidationRule = {
  rule: `self.find('(@.*:)') != "" ? self.find(':.*$').matches(':[0-9A-Fa-f]*$') : true`,
  message: 'digest is not valid. the encoded string must only contain hex characters (A-F, a-f, 0-9)',
};

/** Rules of a reference that may end in a tag or a digest (spec.source.image.ref). */
export const imageRefRules: ValidationRule[] = [
  domainRule,
  nameRule,
  digestOrTagRule,
  tagLengthRule,
  tagCharactersRule,
  digestAlgorithmRule,
  digestLengthRule,
  digestHexRule,
];

/** Rules of a reference that must end in a digest (status.resolvedSource.image.ref). */
export const digestRefRules: ValidationRule[] = [
  domainRule,
  nameRule,
  digestOnlyRule,
  digestAlgorithmRule,
  digestLengthRule,
  digestHexRule,
];

/** CEL on an object with `ref` and `pollIntervalMinutes`: no polling of digest references. */
export const noPollingOfDigestsRule: ValidationRule = {
  rule: `self.ref.find('(@.*:)') != "" ? !has(self.pollIntervalMinutes) : true`,
  message: 'cannot specify pollIntervalMinutes while using digest-based image',
};
