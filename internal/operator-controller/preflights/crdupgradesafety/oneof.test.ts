// crdify's oneOf check through the preflight, on upstream's own fixtures (operator-controller
// crdupgradesafety testdata: crd-oneof-safe-addition-*, crd-oneof-removed-*, crd-complex-breaking-changes-*),
// pinning the exact lines.
import { describe, expect, it } from 'vitest';
import type { ClusterExtension } from '../../../../api/v1/index.ts';
import { CrdUpgradeSafetyPreflight, validateUpgrade, type Crd, type Schema } from './index.ts';

const NAME = 'services.networking.example.com';

function crd(version: string, tls: Schema, wrap: (tls: Schema) => Schema = (t) => ({ tls: t })): Crd {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: NAME },
    spec: {
      group: 'networking.example.com',
      scope: 'Namespaced',
      names: { plural: 'services', singular: 'service', kind: 'Service', shortNames: ['svc'] },
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: wrap(tls) } } } },
        },
      ],
    },
  };
}

const tlsProps = { credentialName: { type: 'string' }, httpsRedirect: { type: 'boolean' }, mode: { type: 'string' } };
const oneOf = [{ required: ['mode', 'credentialName'] }, { required: ['httpsRedirect'] }];

/** Go's generated `String()` of a subschema that only has `required`. */
const sub = (required: string): string =>
  '&JSONSchemaProps{ID:,Schema:,Ref:nil,Description:,Type:,Format:,Title:,Default:nil,Maximum:nil,ExclusiveMaximum:false,' +
  'Minimum:nil,ExclusiveMinimum:false,MaxLength:nil,MinLength:nil,Pattern:,MaxItems:nil,MinItems:nil,UniqueItems:false,' +
  `MultipleOf:nil,Enum:[]JSON{},MaxProperties:nil,MinProperties:nil,Required:[${required}],Items:nil,AllOf:[]JSONSchemaProps{},` +
  'OneOf:[]JSONSchemaProps{},AnyOf:[]JSONSchemaProps{},Not:nil,Properties:map[string]JSONSchemaProps{},AdditionalProperties:nil,' +
  'PatternProperties:map[string]JSONSchemaProps{},Dependencies:JSONSchemaDependencies{},AdditionalItems:nil,' +
  'Definitions:JSONSchemaDefinitions{},ExternalDocs:nil,Example:nil,Nullable:false,XPreserveUnknownFields:nil,' +
  'XEmbeddedResource:false,XIntOrString:false,XListMapKeys:[],XListType:nil,XMapType:nil,XValidations:[]ValidationRule{},}';
const bothSubs = `[${sub('httpsRedirect')} ${sub('mode credentialName')}]`;

describe('oneOf', () => {
  it('a oneOf added to an existing property is refused by the oneOf check, not as unhandled (crd-oneof-safe-addition)', () => {
    const lines = validateUpgrade(crd('v1', { type: 'object', properties: tlsProps }), crd('v1', { type: 'object', oneOf, properties: tlsProps }));
    expect(lines).toEqual([`v1: ^.spec.tls: oneOf: oneOf constraint added when there was none previously: ${bothSubs}`]);
  });

  it('removing the allowed subschemas is refused by the oneOf check (crd-oneof-removed)', () => {
    const lines = validateUpgrade(
      crd('v1beta1', { type: 'object', oneOf, properties: tlsProps }),
      crd('v1beta1', { type: 'object', properties: tlsProps }),
    );
    // crdify walks oneOf subschemas as locations of their own, so their paths disappear too.
    expect(lines).toEqual([
      'existingFieldRemoval: removed field : v1beta1.^.spec.tls.oneOf[0]',
      'existingFieldRemoval: removed field : v1beta1.^.spec.tls.oneOf[1]',
      `v1beta1: ^.spec.tls: oneOf: allowed oneOf schemas removed: ${bothSubs}`,
    ]);
  });

  it('one subschema removed, then one added; a description is no change to the set', () => {
    const before = crd('v1', { type: 'object', oneOf, properties: tlsProps });
    const described = [{ ...oneOf[0], description: 'with a certificate' }, oneOf[1]!];
    expect(validateUpgrade(before, crd('v1', { type: 'object', oneOf: described, properties: tlsProps }))).toEqual([]);
    expect(validateUpgrade(before, crd('v1', { type: 'object', oneOf: [oneOf[0]!], properties: tlsProps }))).toEqual([
      'existingFieldRemoval: removed field : v1.^.spec.tls.oneOf[1]',
      `v1: ^.spec.tls: oneOf: allowed oneOf schemas removed: [${sub('httpsRedirect')}]`,
    ]);
    const three = [...oneOf, { required: ['mode'] }];
    expect(validateUpgrade(before, crd('v1', { type: 'object', oneOf: three, properties: tlsProps }))).toEqual([
      `v1: ^.spec.tls: oneOf: allowed oneOf schemas added: [${sub('mode')}]`,
    ]);
  });

  it('subschemas are also compared by index at their own paths, as crdify does: reordering reads as changed requirements', () => {
    const before = crd('v1', { type: 'object', oneOf, properties: tlsProps });
    expect(validateUpgrade(before, crd('v1', { type: 'object', oneOf: [oneOf[1]!, oneOf[0]!], properties: tlsProps }))).toEqual([
      'v1: ^.spec.tls.oneOf[0]: required: new required fields: [httpsRedirect]',
      'v1: ^.spec.tls.oneOf[1]: required: new required fields: [credentialName mode]',
    ]);
  });

  it('several breaking edits at once report every one, oneOf included (crd-complex-breaking-changes)', () => {
    const servers = (tls: Schema): Schema => ({
      ingress: {
        type: 'object',
        properties: {
          gateway: {
            type: 'object',
            properties: {
              servers: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    hosts: { description: 'One or more hosts exposed by this gateway', type: 'array', items: { type: 'string' } },
                    port: {
                      type: 'object',
                      properties: {
                        name: { description: 'Label assigned to the port', type: 'string' },
                        number: { description: 'Port number', type: 'integer' },
                      },
                    },
                    tls,
                  },
                },
              },
            },
          },
        },
      },
    });
    const oldTls = {
      type: 'object',
      nullable: false,
      properties: { credentialName: { description: 'TLS certificate name', type: 'string' }, mode: { description: 'TLS mode', type: 'string' } },
    };
    const newTls = {
      nullable: true,
      oneOf,
      properties: {
        credentialName: { description: 'TLS certificate name', type: 'string' },
        httpsRedirect: { description: 'If set to true, the load balancer will send a 301 redirect to HTTPS', type: 'boolean' },
        mode: { description: 'TLS mode', type: 'string' },
      },
    };
    const path = 'v1beta1: ^.spec.ingress.gateway.servers.items.tls';
    expect(validateUpgrade(crd('v1beta1', oldTls, servers), crd('v1beta1', newTls, servers))).toEqual([
      `${path}: type: type changed : "object" -> ""`,
      `${path}: nullable: nullable added : false -> true`,
      `${path}: oneOf: oneOf constraint added when there was none previously: ${bothSubs}`,
    ]);
  });

  it('additionPolicy Allow lets a new oneOf through only when the old schema is one of its subschemas', () => {
    const config = { validations: [{ name: 'oneOf', enforcement: 'Error' as const, configuration: { additionPolicy: 'Allow' } }] };
    const before = crd('v1', { type: 'string' });
    const keeps = crd('v1', { type: 'string', oneOf: [{ minLength: 3 }, {}] });
    // by the time oneOf runs the type check has cleared `type`, so the old schema reads as `{}`
    expect(validateUpgrade(before, keeps, config)).toEqual([]);
    expect(validateUpgrade(before, crd('v1', { type: 'string', oneOf: [{ minLength: 3 }] }), config)).toEqual([
      'v1: ^.spec.tls: oneOf: oneOf constraint added and pre-existing property schema is not preserved in the new oneOf entries: ' +
        `[${sub('').replace('MinLength:nil', 'MinLength:*3')}]`,
    ]);
  });

  it('the preflight refuses a oneOf addition with upstream\'s wording', async () => {
    const ext = { metadata: { name: 'ext' }, spec: { namespace: 'ns' } } as unknown as ClusterExtension;
    const preflight = new CrdUpgradeSafetyPreflight(async () => crd('v1', { type: 'object', properties: tlsProps }));
    await expect(preflight.check(ext, [crd('v1', { type: 'object', oneOf, properties: tlsProps })], new AbortController().signal)).rejects.toThrow(
      `validating upgrade for CRD "${NAME}": v1: ^.spec.tls: oneOf: oneOf constraint added when there was none previously: ${bothSubs}`,
    );
  });
});
