// The ClusterObjectSet CRD (experimental feature set only): the single source the experimental manifest is
// generated from. Structure, limits and CEL rules are upstream's (operator-controller
// api/v1/clusterobjectset_types.go, v1.11); descriptions are our own words.
import {
  ClusterObjectSetCRDName,
  ClusterObjectSetKind,
  ClusterObjectSetListKind,
  ClusterObjectSetResource,
  ClusterObjectSetSingular,
  GroupName,
  Version,
} from '../groupversion.ts';
import { ageColumn, apiVersionProperty, conditionsProperty, immutableRule, kindProperty, labelSelectorProperty, metadataProperty } from './common.ts';
import type { CustomResourceDefinition, JSONSchemaProps, ValidationRule } from './types.ts';

const collisionEnum = ['Prevent', 'IfNoController', 'None'];

const dns1123LabelRule: ValidationRule = {
  rule: '!format.dns1123Label().validate(self).hasValue()',
  message: 'the value must consist of only lowercase alphanumeric characters and hyphens, and must start and end with an alphanumeric character.',
};

const fieldPathRule: ValidationRule = {
  rule: String.raw`self.matches('^[a-zA-Z0-9]+(?:\\.[a-zA-Z0-9]+)*$')`,
  message: 'must contain a valid field path. valid fields contain upper or lower-case alphanumeric characters separated by the "." character.',
};

const fieldPath = (description: string): JSONSchemaProps => ({
  type: 'string',
  minLength: 1,
  maxLength: 200,
  description,
  'x-kubernetes-validations': [fieldPathRule],
});

/** `self.type == '<T>' ?has(self.<f>) : !has(self.<f>)`: the union member named by the discriminator, and no other. */
const unionRule = (type: string, field: string): ValidationRule => ({
  rule: `self.type == '${type}' ?has(self.${field}) : !has(self.${field})`,
  message: `${field} is required when type is ${type}, and forbidden otherwise`,
});

const object: JSONSchemaProps = {
  type: 'object',
  description: `One object of a phase: given inline (object) or stored in a Secret (ref), never both, and how it may
treat an object of the same name that is already on the cluster.`,
  'x-kubernetes-validations': [
    { rule: '[has(self.object),has(self.ref)].filter(x,x==true).size() == 1', message: 'exactly one of the fields in [object ref] must be set' },
  ],
  properties: {
    collisionProtection: {
      type: 'string',
      enum: collisionEnum,
      description: `collisionProtection decides what happens when the object already exists and this revision did not
create it:
  - Prevent: leave it alone and report a collision; only objects made by this extension's revisions are
    managed.
  - IfNoController: take it over unless some other controller owns it (handy for adopting objects
    created by hand).
  - None: take it over whoever owns it. Two controllers may then keep overwriting each other, so use
    this only when you know nothing else manages the object.
Left out, the phase's setting applies, then spec.collisionProtection.`,
    },
    object: {
      type: 'object',
      'x-kubernetes-embedded-resource': true,
      'x-kubernetes-preserve-unknown-fields': true,
      description: `object is the Kubernetes object itself (apiVersion, kind and metadata required). Set this or ref.`,
    },
    ref: {
      type: 'object',
      description: `ref points at a Secret key that holds the object serialized as JSON. Set this or object. The Secret must
be immutable, and its content may not change once the revision has resolved it.`,
      required: ['key', 'name'],
      properties: {
        key: {
          type: 'string',
          minLength: 1,
          maxLength: 253,
          description: 'key names the entry of the Secret\'s data holding the object as JSON (optionally gzip-compressed).',
        },
        name: { type: 'string', minLength: 1, maxLength: 253, description: 'name of the Secret.' },
        namespace: {
          type: 'string',
          maxLength: 63,
          description: 'namespace of the Secret; left out, the namespace the controller runs in (the OLM system namespace).',
        },
      },
    },
  },
};

const phase: JSONSchemaProps = {
  type: 'object',
  description: `A named group of objects applied together. Its objects must all pass their probes before the next phase is
applied.`,
  required: ['name', 'objects'],
  properties: {
    collisionProtection: {
      type: 'string',
      enum: collisionEnum,
      description: `collisionProtection is the default for this phase's objects that set none themselves. Left out,
spec.collisionProtection applies.`,
    },
    name: {
      type: 'string',
      minLength: 1,
      maxLength: 63,
      description: `name identifies the phase within the revision: an RFC 1123 label (lowercase letters, digits and "-",
starting and ending with a letter or digit, at most 63 characters), e.g. crds or deploy.`,
      'x-kubernetes-validations': [dns1123LabelRule],
    },
    objects: {
      type: 'array',
      maxItems: 50,
      description: 'objects of the phase (at most 50), applied together in no set order.',
      items: object,
    },
  },
};

const assertion: JSONSchemaProps = {
  type: 'object',
  description: 'One check made on a selected object; type says which of the other fields describes it.',
  required: ['type'],
  'x-kubernetes-validations': [
    unionRule('ConditionEqual', 'conditionEqual'),
    unionRule('FieldsEqual', 'fieldsEqual'),
    unionRule('FieldValue', 'fieldValue'),
  ],
  properties: {
    conditionEqual: {
      type: 'object',
      description: 'conditionEqual passes when the object has a status condition of the given type and status.',
      required: ['status', 'type'],
      properties: {
        status: { type: 'string', enum: ['True', 'False'], description: 'status the condition must have: "True" or "False".' },
        type: { type: 'string', minLength: 1, maxLength: 200, description: 'type of the condition to look at, e.g. "Ready".' },
      },
    },
    fieldValue: {
      type: 'object',
      description: 'fieldValue passes when the field at fieldPath holds exactly value.',
      required: ['fieldPath', 'value'],
      properties: {
        fieldPath: fieldPath('fieldPath is the dotted path of the field, e.g. "status.phase"; a missing field fails the check.'),
        value: { type: 'string', minLength: 1, maxLength: 200, description: 'value the field must hold, e.g. "Bound".' },
      },
    },
    fieldsEqual: {
      type: 'object',
      description: 'fieldsEqual passes when the fields at fieldA and fieldB hold equal values.',
      required: ['fieldA', 'fieldB'],
      properties: {
        fieldA: fieldPath('fieldA is the dotted path of one field, e.g. "status.updatedReplicas"; a missing field fails the check.'),
        fieldB: fieldPath('fieldB is the dotted path of the other field, e.g. "status.replicas"; a missing field fails the check.'),
      },
    },
    type: {
      type: 'string',
      enum: ['ConditionEqual', 'FieldsEqual', 'FieldValue'],
      description: `type of the check:
  - ConditionEqual: a status condition has a given status (conditionEqual).
  - FieldsEqual: two fields hold the same value (fieldsEqual).
  - FieldValue: one field holds a given value (fieldValue).`,
    },
  },
};

const selectorLabel = labelSelectorProperty(`label selects objects whose labels match; required when type is Label. Give exactly one of
matchLabels and matchExpressions. A label can select objects of several kinds, and one set of checks rarely
fits them all, so keep the selection narrow.`);
selectorLabel['x-kubernetes-validations'] = [
  {
    rule: '(has(self.matchExpressions) && !has(self.matchLabels)) || (!has(self.matchExpressions) && has(self.matchLabels))',
    message: 'exactly one of matchLabels or matchExpressions must be set',
  },
];

const probe: JSONSchemaProps = {
  type: 'object',
  description: 'A probe: which objects it looks at (selector) and what must hold for them (assertions).',
  required: ['assertions', 'selector'],
  properties: {
    assertions: {
      type: 'array',
      minItems: 1,
      maxItems: 20,
      'x-kubernetes-list-type': 'atomic',
      description: `assertions are checked on every selected object (1 to 20). While one fails, the object's phase is not
ready and later phases wait.`,
      items: assertion,
    },
    selector: {
      type: 'object',
      description: `selector picks the objects the assertions apply to. An object it does not pick passes; a phase with
no picked object passes.`,
      required: ['type'],
      'x-kubernetes-validations': [unionRule('GroupKind', 'groupKind'), unionRule('Label', 'label')],
      properties: {
        groupKind: {
          type: 'object',
          description: 'groupKind selects every object of this API group and kind; required when type is GroupKind.',
          required: ['group', 'kind'],
          properties: { group: { type: 'string' }, kind: { type: 'string' } },
        },
        label: selectorLabel,
        type: {
          type: 'string',
          enum: ['GroupKind', 'Label'],
          description: `type of selection: GroupKind (by API group and kind, see groupKind) or Label (by labels, see
label).`,
        },
      },
    },
  },
};

const spec: JSONSchemaProps = {
  type: 'object',
  description: 'spec is the revision: its objects, their phases and how their rollout is judged.',
  required: ['collisionProtection', 'lifecycleState', 'revision'],
  properties: {
    collisionProtection: {
      type: 'string',
      enum: collisionEnum,
      description: `collisionProtection is the revision-wide default for objects and phases that set none (an object's own
setting wins over its phase's, which wins over this one). It cannot change.`,
      'x-kubernetes-validations': [immutableRule('collisionProtection is immutable')],
    },
    lifecycleState: {
      type: 'string',
      enum: ['Active', 'Archived'],
      description: `lifecycleState is Active while the revision is applied and kept healthy, and Archived once it is retired.
Archiving deletes the revision's objects that no later revision has taken over and drops the revision
from the owners of the rest. Archived is final. During an upgrade the old and the new revision are
both Active until the new one has rolled out; then the old one is archived.`,
      'x-kubernetes-validations': [{ rule: "oldSelf == 'Active' || oldSelf == 'Archived' && oldSelf == self", message: 'cannot un-archive' }],
    },
    phases: {
      type: 'array',
      maxItems: 20,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      description: `phases are the revision's objects in groups, rolled out one group after the other: a phase is applied
only when every object of the phases before it passes its probes. The ClusterExtension controller groups
a bundle's objects by kind (namespaces, policies, identity, configuration, storage, crds, roles, bindings,
infrastructure, deploy, scaling, publish, admission). At most 20 phases with distinct names. Once set
(even to an empty list) the phases cannot change.`,
      'x-kubernetes-validations': [{ rule: 'self == oldSelf || oldSelf.size() == 0', message: 'phases is immutable' }],
      items: phase,
    },
    progressDeadlineMinutes: {
      type: 'integer',
      format: 'int32',
      minimum: 10,
      maximum: 720,
      description: `progressDeadlineMinutes, when set (10 to 720), is how long the rollout may take, counted from the
revision's creation: a revision that has not rolled out by then reports Progressing=False with reason
ProgressDeadlineExceeded and needs a person to look at it. Left out, there is no deadline.`,
    },
    progressionProbes: {
      type: 'array',
      minItems: 1,
      maxItems: 20,
      'x-kubernetes-list-type': 'atomic',
      description: `progressionProbes (1 to 20) are readiness checks for the objects of every phase, on top of what
Kubernetes reports itself; they matter most for custom resources, whose readiness only their operator
knows. Each probe applies to the objects its selector picks; other objects pass it.`,
      items: probe,
    },
    revision: {
      type: 'integer',
      format: 'int64',
      minimum: 1,
      description: `revision numbers this revision among its ClusterExtension's: 1 for the first, one more than the previous
for each next. Unique per extension, and it cannot change.`,
      'x-kubernetes-validations': [immutableRule('revision is immutable')],
    },
  },
};

const status: JSONSchemaProps = {
  type: 'object',
  description: 'status is what the controller observed while rolling the revision out.',
  properties: {
    conditions: conditionsProperty(`conditions describe the revision's rollout.

Progressing: is the rollout moving?
  - True, reason RollingOut: objects are being applied or are not ready yet.
  - True, reason Retrying: an error occurred that a later attempt may get past.
  - True, reason Succeeded: every phase is applied and every object passes its probes.
  - False, reason Blocked: something a person must fix stops the rollout (e.g. a Secret a ref points at
    is mutable or changed its content).
  - False, reason ProgressDeadlineExceeded: not rolled out within progressDeadlineMinutes.
  - False, reason Archived: the revision is retired.

Available: do the objects pass their probes?
  - True, reason ProbesSucceeded: all of them do.
  - False, reason ProbeFailure: some object fails; the message names it and why.
  - Unknown, reason Reconciling: an error kept the controller from looking.
  - Unknown, reason Archived: the revision is retired and its objects were removed.
  - Unknown, reason Migrated: made from an earlier installation; probes not looked at yet.

Succeeded: True (reason Succeeded) once the revision has completely rolled out; it stays True even
if objects later become unavailable.`),
    observedPhases: {
      type: 'array',
      maxItems: 20,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      description: `observedPhases keeps, per phase, a digest of the objects as first resolved (whether given inline or through
Secrets), so a Secret deleted and re-created with other content is noticed. Set once.`,
      'x-kubernetes-validations': [{ rule: 'self == oldSelf || oldSelf.size() == 0', message: 'observedPhases is immutable' }],
      items: {
        type: 'object',
        description: 'The digest of one phase.',
        required: ['digest', 'name'],
        properties: {
          digest: {
            type: 'string',
            minLength: 1,
            maxLength: 256,
            description: 'digest of the phase\'s resolved objects when first seen, "<algorithm>:<hex>".',
            'x-kubernetes-validations': [{ rule: "self.matches('^[a-z0-9]+:[a-f0-9]+$')", message: "digest must be in the format '<algorithm>:<hex>'" }],
          },
          name: {
            type: 'string',
            minLength: 1,
            maxLength: 63,
            description: 'name of the phase in spec.phases.',
            'x-kubernetes-validations': [dns1123LabelRule],
          },
        },
      },
    },
  },
};

export const clusterObjectSetCRD: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: ClusterObjectSetCRDName,
    annotations: { 'olm.operatorframework.io/generator': 'experimental' },
  },
  spec: {
    group: GroupName,
    names: {
      kind: ClusterObjectSetKind,
      listKind: ClusterObjectSetListKind,
      plural: ClusterObjectSetResource,
      singular: ClusterObjectSetSingular,
    },
    scope: 'Cluster',
    versions: [
      {
        name: Version,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Available', type: 'string', jsonPath: ".status.conditions[?(@.type=='Available')].status" },
          { name: 'Progressing', type: 'string', jsonPath: ".status.conditions[?(@.type=='Progressing')].status" },
          ageColumn,
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description: `A ClusterObjectSet is one revision of a ClusterExtension: a fixed set of objects, grouped into phases that
roll out in order. An object belongs to one revision at a time and passes from one revision to the next as
the extension is upgraded or reconfigured; once a new revision has rolled out, the ones before it are
archived.`,
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
