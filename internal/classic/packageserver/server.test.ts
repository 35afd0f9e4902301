import { describe, expect, it } from 'vitest';
import { requestHeaderConfig } from './auth.ts';
import { acceptsAnyOf, DISCOVERY, forbidden, nameFromFieldSelector, routeOf, notFound, requestAttributes, table, unauthorized } from './server.ts';
import type { PackageManifest } from './manifest.ts';

const q = (s = ''): URLSearchParams => new URLSearchParams(s);

describe('request attributes (RequestInfo)', () => {
  it('resource requests: list, watch, get, across namespaces, other verbs', () => {
    expect(requestAttributes('GET', '/apis/packages.operators.coreos.com/v1/namespaces/ns/packagemanifests', q())).toMatchObject({
      resourceRequest: true,
      verb: 'list',
      namespace: 'ns',
      name: '',
      resource: 'packagemanifests',
      group: 'packages.operators.coreos.com',
    });
    expect(requestAttributes('GET', '/apis/packages.operators.coreos.com/v1/namespaces/ns/packagemanifests', q('watch=true')).verb).toBe('watch');
    expect(requestAttributes('GET', '/apis/packages.operators.coreos.com/v1/namespaces/ns/packagemanifests/etcd', q())).toMatchObject({ verb: 'get', name: 'etcd' });
    expect(requestAttributes('GET', '/apis/packages.operators.coreos.com/v1/namespaces/ns/packagemanifests/etcd/icon', q())).toMatchObject({ verb: 'get', subresource: 'icon' });
    expect(requestAttributes('GET', '/apis/packages.operators.coreos.com/v1/packagemanifests', q())).toMatchObject({ verb: 'list', namespace: '' });
    expect(requestAttributes('DELETE', '/apis/packages.operators.coreos.com/v1/namespaces/ns/packagemanifests/etcd', q()).verb).toBe('delete');
    expect(requestAttributes('DELETE', '/apis/packages.operators.coreos.com/v1/namespaces/ns/packagemanifests', q()).verb).toBe('deletecollection');
    expect(requestAttributes('POST', '/apis/packages.operators.coreos.com/v1/namespaces/ns/packagemanifests', q()).verb).toBe('create');
  });

  it('anything else is a non-resource request', () => {
    expect(requestAttributes('GET', '/apis', q())).toEqual({ resourceRequest: false, verb: 'get', path: '/apis' });
    expect(requestAttributes('GET', '/apis/packages.operators.coreos.com/v1', q())).toEqual({ resourceRequest: false, verb: 'get', path: '/apis/packages.operators.coreos.com/v1' });
  });
});

describe('Status errors as the API server words them', () => {
  it('403 for a resource, named or not, and for a path; the authorizer’s reason after a colon', () => {
    const list = requestAttributes('GET', '/apis/packages.operators.coreos.com/v1/namespaces/ns/packagemanifests', q());
    expect(forbidden('bob', list, '')).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'packagemanifests.packages.operators.coreos.com is forbidden: User "bob" cannot list resource "packagemanifests" in API group "packages.operators.coreos.com" in the namespace "ns"',
      reason: 'Forbidden',
      details: { group: 'packages.operators.coreos.com', kind: 'packagemanifests' },
      code: 403,
    });
    const get = requestAttributes('GET', '/apis/packages.operators.coreos.com/v1/packagemanifests/etcd', q());
    expect(forbidden('bob', get, 'no RBAC').message).toBe(
      'packagemanifests.packages.operators.coreos.com "etcd" is forbidden: User "bob" cannot get resource "packagemanifests" in API group "packages.operators.coreos.com" at the cluster scope: no RBAC',
    );
    expect(forbidden('bob', requestAttributes('GET', '/apis', q()), '').message).toBe('forbidden: User "bob" cannot get path "/apis"');
  });

  it('401, 404', () => {
    expect(unauthorized()).toMatchObject({ code: 401, reason: 'Unauthorized', message: 'Unauthorized' });
    expect(notFound('etcd')).toMatchObject({
      code: 404,
      reason: 'NotFound',
      message: 'packagemanifests.packages.operators.coreos.com "etcd" not found',
      details: { name: 'etcd', group: 'packages.operators.coreos.com', kind: 'packagemanifests' },
    });
  });
});

describe('routes (the generic API server’s for a namespaced Getter + Lister and a GET Connecter)', () => {
  const v = '/apis/packages.operators.coreos.com/v1';
  it('list, get and the icon in a namespace, list across namespaces; nothing else', () => {
    expect(routeOf(`${v}/namespaces/ns/packagemanifests`)).toEqual({ kind: 'list' });
    expect(routeOf(`${v}/packagemanifests`)).toEqual({ kind: 'list' });
    expect(routeOf(`${v}/namespaces/ns/packagemanifests/etcd`)).toEqual({ kind: 'get' });
    expect(routeOf(`${v}/namespaces/ns/packagemanifests/etcd/icon`)).toEqual({ kind: 'icon' });
    for (const p of [`${v}/packagemanifests/etcd`, `${v}/packagemanifests/etcd/icon`, `${v}/namespaces/ns/packagemanifests/etcd/status`, `${v}/namespaces/ns/other`, `${v}/namespaces/ns`, `${v}/watch/packagemanifests`]) {
      expect(routeOf(p), p).toBeUndefined();
    }
  });
  it('go-restful’s Accept match: none, the wildcard, or a produced type among the clauses', () => {
    const produces = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
    expect(acceptsAnyOf(undefined, produces)).toBe(true);
    expect(acceptsAnyOf('text/html, */*;q=0.1', produces)).toBe(true);
    expect(acceptsAnyOf('application/json;as=Table;v=v1;g=meta.k8s.io', produces)).toBe(true);
    expect(acceptsAnyOf('text/html', produces)).toBe(false);
    expect(acceptsAnyOf('application/*', produces)).toBe(false);
  });
  it('discovery: the icon subresource lists its connect method GET as the verb get (installer.go toDiscoveryKubeVerb)', () => {
    const list = DISCOVERY['/apis/packages.operators.coreos.com/v1'] as { resources: readonly { name: string; verbs: readonly string[] }[] };
    expect(list.resources.map((r) => [r.name, r.verbs])).toEqual([
      ['packagemanifests', ['get', 'list', 'watch']],
      ['packagemanifests/icon', ['get']],
    ]);
  });
});

describe('selectors and output', () => {
  it('field selector: parsed as fields.ParseSelector, converted as the scheme’s default, then upstream’s nameFor', () => {
    expect(nameFromFieldSelector(null)).toEqual({ name: '' });
    expect(nameFromFieldSelector('metadata.name=etcd')).toEqual({ name: 'etcd' });
    expect(nameFromFieldSelector('metadata.name==etcd')).toEqual({ name: 'etcd' });
    expect(nameFromFieldSelector('metadata.name=a\\,b')).toEqual({ name: 'a,b' });
    // sorted: "metadata.name!=b" before "metadata.name=a"; the exact match is found among them
    expect(nameFromFieldSelector('metadata.name=a,metadata.name!=b')).toEqual({ name: 'a' });
    expect(nameFromFieldSelector(',')).toEqual({ name: '' });
    const bad = (text: string): unknown => ('error' in nameFromFieldSelector(text) ? (nameFromFieldSelector(text) as { error: unknown }).error : undefined);
    // reststorage.go nameFor's fmt.Errorf: no APIStatus, so ErrorToAPIStatus's 500 without a reason
    expect(bad('metadata.namespace=x')).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'field label not supported: metadata.namespace', code: 500 });
    expect(bad('metadata.name!=etcd')).toMatchObject({ code: 500, message: 'field label not supported: metadata.name' });
    expect(bad('spec.x=y')).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: '"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"',
      reason: 'BadRequest',
      code: 400,
    });
    // the first unsupported one in sorted order
    expect(bad('z=1,b=2,metadata.name=x')).toMatchObject({ code: 400, message: '"b" is not a known field selector: only "metadata.name", "metadata.namespace"' });
    expect(bad('=x')).toMatchObject({ code: 400, message: '"" is not a known field selector: only "metadata.name", "metadata.namespace"' });
    expect(bad('foo')).toMatchObject({ code: 400, reason: 'BadRequest', message: "invalid selector: 'foo'; can't understand 'foo'" });
    expect(bad('a=b,c')).toMatchObject({ code: 400, message: "invalid selector: 'a=b,c'; can't understand 'c'" });
    expect(bad('a=b=c')).toMatchObject({ code: 400, message: 'invalid field selector: unescaped character in value: 61' });
    expect(bad('a=b\\x')).toMatchObject({ code: 400, message: 'invalid field selector: invalid escape sequence: \\x' });
    expect(bad('a=b\\')).toMatchObject({ code: 400, message: 'invalid field selector: invalid escape sequence: \\' });
  });

  it('the Table of upstream’s printer', () => {
    const pm = { metadata: { name: 'etcd', namespace: 'ns', labels: {}, creationTimestamp: '2026-11-01T00:00:00Z' }, status: { catalogSourceDisplayName: 'Community' } } as unknown as PackageManifest;
    const t = table([pm], Date.parse('2026-11-03T00:00:00Z'), null) as { columnDefinitions: { name: string }[]; rows: { cells: string[]; object: object }[] };
    expect(t.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Catalog', 'Age']);
    expect(t.rows).toEqual([{ cells: ['etcd', 'Community', '2d'], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: pm.metadata } }]);
    expect((table([pm], 0, 'None') as { rows: object[] }).rows).toEqual([{ cells: ['etcd', 'Community', expect.any(String)] }]);
  });

  it('the requestheader ConfigMap data', () => {
    expect(requestHeaderConfig({ 'client-ca-file': 'x' })).toBeUndefined();
    expect(
      requestHeaderConfig({
        'requestheader-client-ca-file': 'CA',
        'requestheader-allowed-names': '["front-proxy-client"]',
        'requestheader-username-headers': '["X-Remote-User"]',
        'requestheader-group-headers': '["X-Remote-Group"]',
        'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
      }),
    ).toEqual({ clientCA: 'CA', allowedNames: ['front-proxy-client'], usernameHeaders: ['X-Remote-User'], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'] });
  });
});
