import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { bundleAnnotations, bundleFromAnnotations, buildPhases, buildRecord, decodeRecord, encodeRecord, fingerprint, ownedBy, sanitize } from './record.ts';

const bundle = { package: 'pkg', name: 'pkg.v1.0.0', version: '1.0.0', image: 'registry/pkg@sha256:abc' };

describe('revision records', () => {
  it('sanitises objects as upstream does and adds the owner labels', () => {
    const obj: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'ns', uid: 'u', resourceVersion: '5', labels: { a: 'b' }, annotations: { x: 'y' }, ownerReferences: [] },
      data: { k: 'v' },
      status: { whatever: true },
    };
    expect(sanitize(obj, 'ext')).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'c',
        namespace: 'ns',
        labels: { a: 'b', 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'ext' },
        annotations: { x: 'y' },
      },
      data: { k: 'v' },
    });
    expect(ownedBy(sanitize(obj, 'ext'), 'ext')).toBe(true);
    expect(ownedBy(sanitize(obj, 'ext'), 'other')).toBe(false);
    expect(ownedBy(obj, 'ext')).toBe(false);
  });

  it('has a ClusterObjectSet shape named <extension>-<n>', () => {
    const phases = buildPhases([{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: 'ns' } }], 'ext');
    const r = buildRecord('ext', 3, bundle, phases);
    expect(r.metadata.name).toBe('ext-3');
    expect(r.kind).toBe('ClusterObjectSet');
    expect(r.apiVersion).toBe('olm.operatorframework.io/v1');
    expect(r.spec).toMatchObject({ lifecycleState: 'Active', revision: 3, collisionProtection: 'Prevent' });
    expect(r.spec.phases[0]!.name).toBe('identity');
    expect(r.metadata.annotations).toEqual({
      'olm.operatorframework.io/package-name': 'pkg',
      'olm.operatorframework.io/bundle-name': 'pkg.v1.0.0',
      'olm.operatorframework.io/bundle-version': '1.0.0',
      'olm.operatorframework.io/bundle-reference': 'registry/pkg@sha256:abc',
    });
  });

  it('fingerprints content independent of key order and input order', () => {
    const a: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' }, data: { x: '1', y: '2' } };
    const b: KubeObject = { kind: 'ConfigMap', apiVersion: 'v1', data: { y: '2', x: '1' }, metadata: { namespace: 'ns', name: 'a' } };
    const c: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } };
    expect(fingerprint(bundle, buildPhases([a, c], 'e'))).toBe(fingerprint(bundle, buildPhases([c, b], 'e')));
    expect(fingerprint(bundle, buildPhases([a], 'e'))).not.toBe(fingerprint({ ...bundle, version: '1.0.1' }, buildPhases([a], 'e')));
  });

  it('records the bundle’s properties as upstream’s olm.properties annotation, outside the fingerprint', () => {
    const a: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } };
    const props = '[{"type":"olm.maxOpenShiftVersion","value":"4.22"}]';
    const withProps = { ...bundle, properties: props };
    expect(buildRecord('e', 1, withProps, buildPhases([a], 'e')).metadata.annotations['olm.properties']).toBe(props);
    expect(bundleFromAnnotations(bundleAnnotations(withProps))).toEqual(withProps);
    expect(bundleFromAnnotations(bundleAnnotations(bundle))).toEqual(bundle);
    // A record written before properties were kept still matches the same bundle and objects.
    expect(fingerprint(withProps, buildPhases([a], 'e'))).toBe(fingerprint(bundle, buildPhases([a], 'e')));
  });

  it('round-trips through gzip and chunks, and refuses bytes that do not match the digest', () => {
    // 2 MiB of base64 noise gzips to about 1.5 MiB: two chunks of at most 1 MiB.
    const big: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', namespace: 'ns' }, data: { k: randomBytes(3 << 19).toString('base64') } };
    const record = buildRecord('ext', 1, bundle, buildPhases([big], 'ext'));
    const { chunks, digest } = encodeRecord(record);
    expect(chunks.length).toBe(2);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual((1024 - 8) * 1024);
    expect(decodeRecord(chunks, digest)).toEqual(record);
    expect(() => decodeRecord(chunks.slice(0, -1), digest)).toThrow(/does not match its digest/);
  });
});
