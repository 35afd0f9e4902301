// The generated CRDs, installed in a real kube-apiserver, accept what upstream accepts (with the same
// defaults) and refuse what upstream refuses, with upstream's messages. One `it` per case.
import { afterAll, describe, expect, it } from 'vitest';
import {
  ClusterCatalogKind,
  ClusterCatalogResource,
  ClusterExtensionKind,
  ClusterExtensionResource,
  GroupVersion,
} from '../../../api/v1/index.ts';
import type { ClusterCatalog, ClusterExtension } from '../../../api/v1/index.ts';
import type { Status } from '../../../api/meta/v1.ts';
import { adminKube } from '../../support/env.ts';
import { TestKube } from '../../support/kube.ts';

type Resource = typeof ClusterCatalogResource | typeof ClusterExtensionResource;
type Json = Record<string, unknown>;

const kindOf = { [ClusterCatalogResource]: ClusterCatalogKind, [ClusterExtensionResource]: ClusterExtensionKind };
const path = (resource: Resource, name?: string): string => TestKube.path(GroupVersion, resource, name);

const created: { resource: Resource; name: string }[] = [];
let seq = 0;
const uniqueName = (prefix: string): string =>
  `${prefix}-${(seq++).toString(36)}-${Math.random().toString(36).slice(2, 7)}`;

/** POSTs an object of `resource` with a fresh name; the body is `{spec, ...rest}` without metadata. */
async function create(resource: Resource, body: Json): Promise<{ name: string; status: number; body: Json }> {
  const name = uniqueName(resource === ClusterCatalogResource ? 'adm-cc' : 'adm-ce');
  const obj = { apiVersion: GroupVersion, kind: kindOf[resource], metadata: { name }, ...body };
  const r = await adminKube().request<Json>('POST', path(resource), obj);
  if (r.status === 201) created.push({ resource, name });
  return { name, status: r.status, body: r.body };
}

async function mergePatch(resource: Resource, name: string, patch: Json, subresource = ''): Promise<{ status: number; body: Json }> {
  const sub = subresource ? `/${subresource}` : '';
  return adminKube().request<Json>('PATCH', path(resource, name) + sub, patch, 'application/merge-patch+json');
}

afterAll(async () => {
  const kube = adminKube();
  await Promise.all(created.map(({ resource, name }) => kube.request('DELETE', path(resource, name))));
});

// ---- Values -----------------------------------------------------------------------------------

const hex64 = 'a'.repeat(32) + '0123456789ABCDEFabcdef0123456789';
const digestRef = `quay.io/operatorhubio/catalog@sha256:${hex64}`;
const tagRef = 'quay.io/operatorhubio/catalog:latest';

const catalogSpec = (image: Json = { ref: tagRef }, extra: Json = {}): Json => ({
  source: { type: 'Image', image },
  ...extra,
});
const catalogFilter = (extra: Json = {}): Json => ({ packageName: 'argocd-operator', ...extra });
const extensionSpec = (catalog: Json = catalogFilter(), extra: Json = {}): Json => ({
  namespace: 'argocd',
  source: { sourceType: 'Catalog', catalog },
  ...extra,
});

const condition = (extra: Json = {}): Json => ({
  type: 'Serving',
  status: 'True',
  reason: 'Available',
  message: 'served',
  lastTransitionTime: '2026-01-01T00:00:00Z',
  ...extra,
});

const dnsSubdomainTail =
  'must be a valid DNS1123 subdomain. It must contain only lowercase alphanumeric characters, hyphens (-) or periods (.), ' +
  'start and end with an alphanumeric character, and be no longer than 253 characters';

// ---- Accepted ---------------------------------------------------------------------------------

describe('accepted objects', () => {
  it('ClusterCatalog with a tag reference gets priority 0 and availabilityMode Available', async () => {
    const r = await create(ClusterCatalogResource, { spec: catalogSpec() });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const cc = r.body as unknown as ClusterCatalog;
    expect(cc.spec).toEqual({ source: { type: 'Image', image: { ref: tagRef } }, priority: 0, availabilityMode: 'Available' });
  });

  it.each([
    ['a digest reference', { ref: digestRef }],
    ['a tag reference polled every minute', { ref: tagRef, pollIntervalMinutes: 1 }],
    ['a registry with a port', { ref: 'my-registry.io:8080/team/catalog.v2:v4.18' }],
    ['a single-label host and nested repository', { ref: 'localhost/a/b__c/d-e:1.0_rc-1' }],
    ['an uppercase host', { ref: 'Registry.Example.COM/catalog:latest' }],
    ['a 127-character tag', { ref: `quay.io/catalog:${'t'.repeat(127)}` }],
    ['a digest with a compound algorithm', { ref: `quay.io/catalog@sha256+b64u:${hex64}` }],
  ])('ClusterCatalog with %s', async (_t, image) => {
    const r = await create(ClusterCatalogResource, { spec: catalogSpec(image) });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  });

  it('ClusterCatalog with explicit priority bounds and Unavailable mode keeps them', async () => {
    for (const priority of [-2147483648, 2147483647]) {
      const r = await create(ClusterCatalogResource, { spec: catalogSpec(undefined, { priority, availabilityMode: 'Unavailable' }) });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect((r.body as unknown as ClusterCatalog).spec).toMatchObject({ priority, availabilityMode: 'Unavailable' });
    }
  });

  it('ClusterCatalog status with http(s) URLs, a digest source and conditions', async () => {
    const r = await create(ClusterCatalogResource, { spec: catalogSpec() });
    expect(r.status).toBe(201);
    const status = {
      conditions: [condition(), condition({ type: 'Progressing', reason: 'Succeeded', observedGeneration: 1 })],
      resolvedSource: { type: 'Image', image: { ref: digestRef } },
      urls: { base: 'https://catalogd-service.olmv1-system.svc/catalogs/operatorhubio' },
      lastUnpacked: '2026-01-01T00:00:00Z',
    };
    const p = await mergePatch(ClusterCatalogResource, r.name, { status }, 'status');
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    expect((p.body as unknown as ClusterCatalog).status).toEqual(status);
    const http = await mergePatch(ClusterCatalogResource, r.name, { status: { urls: { base: 'http://10.0.0.1:8080/x' } } }, 'status');
    expect(http.status, JSON.stringify(http.body)).toBe(200);
  });

  it('ClusterExtension gets upgradeConstraintPolicy CatalogProvided', async () => {
    const r = await create(ClusterExtensionResource, { spec: extensionSpec() });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const ce = r.body as unknown as ClusterExtension;
    expect(ce.spec?.source.catalog).toEqual({ packageName: 'argocd-operator', upgradeConstraintPolicy: 'CatalogProvided' });
    expect(ce.spec?.install).toBeUndefined();
  });

  it('ClusterExtension with every field set', async () => {
    const spec = extensionSpec(
      catalogFilter({
        packageName: 'argocd-operator.community',
        version: '>=0.6.0, <1.0.0',
        channels: ['stable', 'candidate-v1.1', '1.1.x'],
        selector: {
          matchLabels: { 'olm.operatorframework.io/metadata.name': 'operatorhubio' },
          matchExpressions: [{ key: 'tier', operator: 'In', values: ['prod'] }],
        },
        upgradeConstraintPolicy: 'SelfCertified',
      }),
      { serviceAccount: { name: 'installer.sa' }, install: { preflight: { crdUpgradeSafety: { enforcement: 'None' } } } },
    );
    const r = await create(ClusterExtensionResource, { spec });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect((r.body as unknown as ClusterExtension).spec).toEqual(spec);
  });

  it('ClusterExtension with 256 channels', async () => {
    const channels = Array.from({ length: 256 }, (_, i) => `ch-${i}`);
    const r = await create(ClusterExtensionResource, { spec: extensionSpec(catalogFilter({ channels })) });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  });

  it.each([
    '1.0.0',
    'v1.2.3',
    '>=1.0.0, <2.0.0',
    '>=1.0.0 <2.0.0',
    '1.2.x',
    '>= 1.2.X',
    '<= 2.*',
    '*',
    '~1.2.3',
    '~> 1',
    '^0.2.3',
    '^0 || ^3 || ^5',
    '>=1.2.3, <2.0.0 || >3.0.0',
    '!=1.5.0',
    '=< 1.0.0-rc.1+build.5',
  ])('ClusterExtension with version %j', async (version) => {
    const r = await create(ClusterExtensionResource, { spec: extensionSpec(catalogFilter({ version })) });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  });

  it('ClusterExtension serviceAccount may be cleared once set', async () => {
    const r = await create(ClusterExtensionResource, { spec: extensionSpec(undefined, { serviceAccount: { name: 'sa' } }) });
    expect(r.status).toBe(201);
    const p = await mergePatch(ClusterExtensionResource, r.name, { spec: { serviceAccount: null } });
    expect(p.status, JSON.stringify(p.body)).toBe(200);
  });

  it('ClusterExtension status with an installed bundle', async () => {
    const r = await create(ClusterExtensionResource, { spec: extensionSpec() });
    expect(r.status).toBe(201);
    const status = {
      conditions: [condition({ type: 'Installed', reason: 'Succeeded' })],
      install: { bundle: { name: 'argocd-operator.v0.6.0', version: '0.6.0-rc.1+g1234' } },
    };
    const p = await mergePatch(ClusterExtensionResource, r.name, { status }, 'status');
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    expect((p.body as unknown as ClusterExtension).status).toEqual(status);
  });
});

// ---- Refused ----------------------------------------------------------------------------------

interface Refusal {
  title: string;
  resource: Resource;
  /** Body of the object to create (spec and maybe status), without metadata. */
  body: Json;
  /** When set, `body` must be accepted and this merge patch (to `subresource` if given) refused. */
  patch?: Json;
  subresource?: 'status';
  /** Substring of the 422 Status message. */
  message: string;
}

const cc = (title: string, spec: Json, message: string): Refusal => ({
  title,
  resource: ClusterCatalogResource,
  body: { spec },
  message,
});
const ce = (title: string, spec: Json, message: string): Refusal => ({
  title,
  resource: ClusterExtensionResource,
  body: { spec },
  message,
});
const ccStatus = (title: string, status: Json, message: string): Refusal => ({
  title,
  resource: ClusterCatalogResource,
  body: { spec: catalogSpec() },
  patch: { status },
  subresource: 'status',
  message,
});
const ceStatus = (title: string, status: Json, message: string): Refusal => ({
  title,
  resource: ClusterExtensionResource,
  body: { spec: extensionSpec() },
  patch: { status },
  subresource: 'status',
  message,
});
const ceUpdate = (title: string, spec: Json, patch: Json, message: string): Refusal => ({
  title,
  resource: ClusterExtensionResource,
  body: { spec },
  patch: { spec: patch },
  message,
});

/**
 * How kube-apiserver (v1.36) words a failed CEL rule: the offending scalar is quoted after
 * "Invalid value:", objects are not shown. The rule's message is upstream's, verbatim.
 */
const ruleFailed = (field: string, value: unknown, message: string): string =>
  typeof value === 'object' ? `${field}: Invalid value: ${message}` : `${field}: Invalid value: ${JSON.stringify(value)}: ${message}`;

/** A ClusterCatalog whose spec.source.image.ref breaks one of upstream's reference rules. */
const badRef = (title: string, ref: string, message: string): Refusal =>
  cc(title, catalogSpec({ ref }), ruleFailed('spec.source.image.ref', ref, message));

// Upstream's rule messages, verbatim.
const msg = {
  domain: 'must start with a valid domain. valid domains must be alphanumeric characters (lowercase and uppercase) separated by the "." character.',
  name: 'a valid name is required. valid names must contain lowercase alphanumeric characters separated only by the ".", "_", "__", "-" characters.',
  digestOrTag: 'must end with a digest or a tag',
  digestOnly: 'must end with a digest',
  tagLength: 'tag is invalid. the tag must not be more than 127 characters',
  tagChars: 'tag is invalid. valid tags must begin with a word character (alphanumeric + "_") followed by word characters or ".", and "-" characters',
  algorithm: 'digest algorithm is not valid. valid algorithms must start with an uppercase or lowercase alpha character followed by alphanumeric characters and may contain the "-", "_", "+", and "." characters.',
  digestLength: 'digest is not valid. the encoded string must be at least 32 characters',
  digestHex: 'digest is not valid. the encoded string must only contain hex characters (A-F, a-f, 0-9)',
  noPolling: 'cannot specify pollIntervalMinutes while using digest-based image',
  imageUnion: 'image is required when source type is Image, and forbidden otherwise',
  url: 'must be a valid URL',
  scheme: 'scheme must be either http or https',
  namespace: 'namespace must be a valid DNS1123 label',
  packageName: `packageName ${dnsSubdomainTail}`,
  saName: `name ${dnsSubdomainTail}`,
  version: 'invalid version expression',
  channel: 'channels entries must be valid DNS1123 subdomains',
  catalogUnion: 'catalog is required when sourceType is Catalog, and forbidden otherwise',
  install: 'at least one of [preflight] are required when install is specified',
  semver: 'version must be well-formed semver',
} as const;

const badVersion = (title: string, version: string): Refusal =>
  ce(title, extensionSpec(catalogFilter({ version })), ruleFailed('spec.source.catalog.version', version, msg.version));

const refusals: Refusal[] = [
  // spec.source.image.ref: every rule
  badRef('ref without a valid domain', '-quay.io/operatorhubio/catalog:latest', msg.domain),
  badRef('ref with an uppercase repository', 'quay.io/Catalog:latest', msg.name),
  badRef('ref without a repository', 'quay.io:latest', msg.name),
  badRef('ref without tag or digest', 'quay.io/operatorhubio/catalog', msg.digestOrTag),
  badRef('ref with a 128-character tag', `quay.io/catalog:${'t'.repeat(128)}`, msg.tagLength),
  badRef('ref with a tag starting with "-"', 'quay.io/operatorhubio/catalog:-latest', msg.tagChars),
  badRef('ref with a registry port but no tag', 'my-registry.io:8080/catalog', msg.tagChars),
  badRef('ref with a digest algorithm starting with a digit', `quay.io/catalog@1sha256:${hex64}`, msg.algorithm),
  badRef('ref with a 31-character digest', `quay.io/catalog@sha256:${hex64.slice(0, 31)}`, msg.digestLength),
  badRef('ref with a non-hex digest', `quay.io/catalog@sha256:${'z'.repeat(64)}`, msg.digestHex),
  cc('ref longer than 1000 characters', catalogSpec({ ref: `quay.io/${'a'.repeat(990)}:latest` }), 'spec.source.image.ref: Too long: may not be more than 1000 bytes'),
  // spec.source.image
  cc('pollIntervalMinutes with a digest reference', catalogSpec({ ref: digestRef, pollIntervalMinutes: 5 }), ruleFailed('spec.source.image', {}, msg.noPolling)),
  cc('pollIntervalMinutes 0', catalogSpec({ ref: tagRef, pollIntervalMinutes: 0 }), 'spec.source.image.pollIntervalMinutes: Invalid value: 0: spec.source.image.pollIntervalMinutes in body should be greater than or equal to 1'),
  cc('image without ref', catalogSpec({ pollIntervalMinutes: 5 }), 'spec.source.image.ref: Required value'),
  // spec.source union, enums, ranges
  cc('source type Image without image', { source: { type: 'Image' } }, ruleFailed('spec.source', {}, msg.imageUnion)),
  cc('source without type', { source: { image: { ref: tagRef } } }, 'spec.source.type: Required value'),
  cc('source type Git', { source: { type: 'Git', image: { ref: tagRef } } }, 'spec.source.type: Unsupported value: "Git": supported values: "Image"'),
  cc('availabilityMode Sometimes', catalogSpec(undefined, { availabilityMode: 'Sometimes' }), 'spec.availabilityMode: Unsupported value: "Sometimes": supported values: "Unavailable", "Available"'),
  cc('priority above int32', catalogSpec(undefined, { priority: 2147483648 }), 'spec.priority: Invalid value: 2147483648: spec.priority in body should be less than or equal to 2147483647'),
  cc('priority below int32', catalogSpec(undefined, { priority: -2147483649 }), 'spec.priority: Invalid value: -2147483649: spec.priority in body should be greater than or equal to -2147483648'),
  cc('spec without source', {}, 'spec.source: Required value'),
  { title: 'missing spec', resource: ClusterCatalogResource, body: {}, message: 'spec: Required value' },
  // ClusterCatalog status, through the status subresource
  ccStatus('urls.base that is not a URL', { urls: { base: 'not a url' } }, ruleFailed('status.urls.base', 'not a url', msg.url)),
  ccStatus('urls.base with scheme ftp', { urls: { base: 'ftp://catalogd.example/catalogs/x' } }, ruleFailed('status.urls.base', 'ftp://catalogd.example/catalogs/x', msg.scheme)),
  ccStatus('urls.base longer than 525 characters', { urls: { base: `https://catalogd.example/${'a'.repeat(501)}` } }, 'status.urls.base: Too long: may not be more than 525 bytes'),
  ccStatus('urls without base', { urls: {} }, 'status.urls.base: Required value'),
  ccStatus('resolvedSource with a tag reference', { resolvedSource: { type: 'Image', image: { ref: tagRef } } }, ruleFailed('status.resolvedSource.image.ref', tagRef, msg.digestOnly)),
  ccStatus('resolvedSource with a short digest', { resolvedSource: { type: 'Image', image: { ref: 'quay.io/catalog@sha256:abc' } } }, ruleFailed('status.resolvedSource.image.ref', 'quay.io/catalog@sha256:abc', msg.digestLength)),
  ccStatus('resolvedSource without image', { resolvedSource: { type: 'Image' } }, 'status.resolvedSource.image: Required value'),
  ccStatus('condition with an unknown status', { conditions: [condition({ status: 'Maybe' })] }, 'status.conditions[0].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"'),
  ccStatus('condition without reason', { conditions: [condition({ reason: undefined })] }, 'status.conditions[0].reason: Required value'),
  // ClusterExtension spec.namespace
  ce('namespace with an underscore', extensionSpec(undefined, { namespace: 'argo_cd' }), ruleFailed('spec.namespace', 'argo_cd', msg.namespace)),
  ce('namespace with a dot', extensionSpec(undefined, { namespace: 'argo.cd' }), ruleFailed('spec.namespace', 'argo.cd', msg.namespace)),
  ce('namespace longer than 63 characters', extensionSpec(undefined, { namespace: 'n'.repeat(64) }), 'spec.namespace: Too long: may not be more than 63 bytes'),
  ce('missing namespace', { source: { sourceType: 'Catalog', catalog: catalogFilter() } }, 'spec.namespace: Required value'),
  // spec.source
  ce('sourceType Bundle', { namespace: 'argocd', source: { sourceType: 'Bundle' } }, 'spec.source.sourceType: Unsupported value: "Bundle": supported values: "Catalog"'),
  ce('sourceType Catalog without catalog', { namespace: 'argocd', source: { sourceType: 'Catalog' } }, ruleFailed('spec.source', {}, msg.catalogUnion)),
  // The union rule is not evaluated here: the apiserver skips CEL once a required field is missing.
  ce('catalog without sourceType', { namespace: 'argocd', source: { catalog: catalogFilter() } }, 'spec.source.sourceType: Required value'),
  ce('missing source', { namespace: 'argocd' }, 'spec.source: Required value'),
  // spec.source.catalog
  ce('packageName starting with "-"', extensionSpec(catalogFilter({ packageName: '-argocd' })), ruleFailed('spec.source.catalog.packageName', '-argocd', msg.packageName)),
  ce('packageName with uppercase letters', extensionSpec(catalogFilter({ packageName: 'ArgoCD' })), ruleFailed('spec.source.catalog.packageName', 'ArgoCD', msg.packageName)),
  ce('packageName longer than 253 characters', extensionSpec(catalogFilter({ packageName: 'p'.repeat(254) })), 'spec.source.catalog.packageName: Too long: may not be more than 253 bytes'),
  ce('catalog without packageName', extensionSpec({ version: '1.0.0' }), 'spec.source.catalog.packageName: Required value'),
  badVersion('version that is a word', 'latest'),
  badVersion('version with a hyphen range', '1.0.0 - 2.0.0'),
  badVersion('version with a leading zero', '1.02.3'),
  badVersion('version with a semicolon', '>1.2.3;<2.3.4'),
  badVersion('version with four numbers', '1.2.3.4'),
  badVersion('version with a doubled operator', '>>1.0.0'),
  ce('version longer than 64 characters', extensionSpec(catalogFilter({ version: `>=1.0.0, <${'9'.repeat(60)}` })), 'spec.source.catalog.version: Too long: may not be more than 64 bytes'),
  ce('channel with an underscore', extensionSpec(catalogFilter({ channels: ['stable', 'original_40'] })), ruleFailed('spec.source.catalog.channels[1]', 'original_40', msg.channel)),
  ce('channel ending with "-"', extensionSpec(catalogFilter({ channels: ['stable-'] })), ruleFailed('spec.source.catalog.channels[0]', 'stable-', msg.channel)),
  ce('channel longer than 253 characters', extensionSpec(catalogFilter({ channels: ['c'.repeat(254)] })), 'spec.source.catalog.channels[0]: Too long: may not be more than 253 bytes'),
  ce('257 channels', extensionSpec(catalogFilter({ channels: Array.from({ length: 257 }, (_, i) => `ch-${i}`) })), 'spec.source.catalog.channels: Too many: 257: must have at most 256 items'),
  ce('upgradeConstraintPolicy Always', extensionSpec(catalogFilter({ upgradeConstraintPolicy: 'Always' })), 'spec.source.catalog.upgradeConstraintPolicy: Unsupported value: "Always": supported values: "CatalogProvided", "SelfCertified"'),
  // spec.install
  ce('empty install', extensionSpec(undefined, { install: {} }), ruleFailed('spec.install', {}, msg.install)),
  // The preflight rule ("at least one of [crdUpgradeSafety] ...") can never fire: crdUpgradeSafety is
  // also required, and the apiserver skips CEL once a required field is missing (same upstream).
  ce('empty preflight', extensionSpec(undefined, { install: { preflight: {} } }), 'spec.install.preflight.crdUpgradeSafety: Required value'),
  ce('crdUpgradeSafety without enforcement', extensionSpec(undefined, { install: { preflight: { crdUpgradeSafety: {} } } }), 'spec.install.preflight.crdUpgradeSafety.enforcement: Required value'),
  ce('enforcement Lenient', extensionSpec(undefined, { install: { preflight: { crdUpgradeSafety: { enforcement: 'Lenient' } } } }), 'spec.install.preflight.crdUpgradeSafety.enforcement: Unsupported value: "Lenient": supported values: "None", "Strict"'),
  // spec.serviceAccount (deprecated and ignored, still validated)
  ce('empty serviceAccount', extensionSpec(undefined, { serviceAccount: {} }), 'spec.serviceAccount: Invalid value: 0: spec.serviceAccount in body should have at least 1 properties'),
  ce('serviceAccount name with uppercase letters', extensionSpec(undefined, { serviceAccount: { name: 'Installer' } }), ruleFailed('spec.serviceAccount.name', 'Installer', msg.saName)),
  ce('serviceAccount name ending with "."', extensionSpec(undefined, { serviceAccount: { name: 'installer.' } }), ruleFailed('spec.serviceAccount.name', 'installer.', msg.saName)),
  ce('empty serviceAccount name', extensionSpec(undefined, { serviceAccount: { name: '' } }), 'spec.serviceAccount.name: Invalid value: "": spec.serviceAccount.name in body should be at least 1 chars long'),
  ce('serviceAccount name longer than 253 characters', extensionSpec(undefined, { serviceAccount: { name: 's'.repeat(254) } }), 'spec.serviceAccount.name: Too long: may not be more than 253 bytes'),
  // immutable fields (updates)
  ceUpdate('changing packageName', extensionSpec(), { source: { catalog: { packageName: 'other-operator' } } }, ruleFailed('spec.source.catalog.packageName', 'other-operator', 'packageName is immutable')),
  ceUpdate('changing namespace', extensionSpec(), { namespace: 'elsewhere' }, ruleFailed('spec.namespace', 'elsewhere', 'namespace is immutable')),
  ceUpdate('changing serviceAccount name', extensionSpec(undefined, { serviceAccount: { name: 'sa-one' } }), { serviceAccount: { name: 'sa-two' } }, ruleFailed('spec.serviceAccount.name', 'sa-two', 'name is immutable once set but may be cleared')),
  // ClusterExtension status, through the status subresource
  ceStatus('bundle name with uppercase letters', { install: { bundle: { name: 'Argocd.v1', version: '1.0.0' } } }, ruleFailed('status.install.bundle.name', 'Argocd.v1', msg.packageName)),
  ceStatus('bundle version with a "v" prefix', { install: { bundle: { name: 'argocd.v1', version: 'v1.0.0' } } }, ruleFailed('status.install.bundle.version', 'v1.0.0', msg.semver)),
  ceStatus('install without bundle', { install: {} }, 'status.install.bundle: Required value'),
];

describe('refused objects', () => {
  it('has at least 30 cases', () => {
    expect(refusals.length).toBeGreaterThanOrEqual(30);
    expect(new Set(refusals.map((r) => r.title)).size).toBe(refusals.length);
  });

  it.each(refusals.map((r) => [`${kindOf[r.resource]}: ${r.title}`, r] as const))('%s', async (_title, c) => {
    const r = await create(c.resource, c.body);
    let answer: { status: number; body: Json } = r;
    if (c.patch) {
      expect(r.status, `setup object refused: ${JSON.stringify(r.body)}`).toBe(201);
      answer = await mergePatch(c.resource, r.name, c.patch, c.subresource);
    }
    const status = answer.body as Status;
    expect(answer.status, JSON.stringify(status)).toBe(422);
    expect(status.reason).toBe('Invalid');
    expect(status.message).toContain(c.message);
  });
});
