import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { ClusterExtension, ClusterObjectSet } from '../../../api/v1/index.ts';
import { adoptableMigratedRevision, DEFAULT_PROGRESSION_PROBES, MAX_SECRET_DATA_BYTES, desiredRevision, packIntoSecrets, revisionStates } from './extension.ts';

const ext: ClusterExtension = {
  metadata: { name: 'ext', uid: 'ext-uid' },
  spec: { namespace: 'ns', source: { sourceType: 'Catalog', catalog: { packageName: 'pkg' } }, progressDeadlineMinutes: 15 },
};
const bundle = { package: 'pkg', name: 'pkg.v1.0.0', version: '1.0.0', image: 'reg/pkg@sha256:ab', properties: '[{"type":"olm.test-property","value":"some-value"}]' };
const objects: KubeObject[] = [
  { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'ns', uid: 'x', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', a: 'b' } }, spec: {}, status: {} },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' }, data: { k: 'v' } },
];

describe('the desired revision of a bundle', () => {
  it('is shaped as upstream generates it', () => {
    const cos = desiredRevision(ext, bundle, objects);
    expect(cos.metadata).toEqual({
      labels: { 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'ext' },
      annotations: {
        'olm.operatorframework.io/package-name': 'pkg',
        'olm.operatorframework.io/bundle-name': 'pkg.v1.0.0',
        'olm.operatorframework.io/bundle-version': '1.0.0',
        'olm.operatorframework.io/bundle-reference': 'reg/pkg@sha256:ab',
        'olm.properties': '[{"type":"olm.test-property","value":"some-value"}]',
      },
      ownerReferences: [{ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', name: 'ext', uid: 'ext-uid', blockOwnerDeletion: true, controller: true }],
    });
    expect(cos.spec?.collisionProtection).toBe('Prevent');
    expect(cos.spec?.progressDeadlineMinutes).toBe(15);
    expect(cos.spec?.progressionProbes).toEqual(DEFAULT_PROGRESSION_PROBES);
    expect(cos.spec?.phases?.map((p) => p.name)).toEqual(['configuration', 'deploy']);
    const dep = cos.spec!.phases![1]!.objects[0]!.object!;
    expect(dep.metadata).toEqual({
      name: 'd',
      namespace: 'ns',
      labels: { 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'ext' },
      annotations: { a: 'b', 'olm.operatorframework.io/bundle-version': '1.0.0', 'olm.operatorframework.io/package-name': 'pkg' },
    });
    expect(dep['status']).toBeUndefined();
  });
});

describe('packing objects into Secrets', () => {
  it('is deterministic, content-addressed and deduplicated', () => {
    const phases = desiredRevision(ext, bundle, objects).spec!.phases!;
    const a = packIntoSecrets(phases, 'ext-1', 'ext', 'sys');
    const b = packIntoSecrets(structuredClone(phases), 'ext-1', 'ext', 'sys');
    expect(a).toEqual(b);
    expect(a.secrets).toHaveLength(1);
    const s = a.secrets[0]!;
    expect(s.metadata.name).toMatch(/^ext-1-[0-9a-f]{16}$/);
    expect(s).toMatchObject({ immutable: true, type: 'olm.operatorframework.io/object-data', metadata: { namespace: 'sys', labels: { 'olm.operatorframework.io/revision-name': 'ext-1', 'olm.operatorframework.io/owner-name': 'ext' } } });
    const refs = a.phases.flatMap((p) => p.objects);
    expect(refs.every((o) => o.object === undefined && o.ref?.name === s.metadata.name && /^[A-Za-z0-9_-]{43}$/.test(o.ref?.key ?? ''))).toBe(true);
    const stored = JSON.parse(Buffer.from(s.data![refs[0]!.ref!.key]!, 'base64').toString());
    expect(stored).toEqual(phases[0]!.objects[0]!.object);
    // the same object twice is stored once
    const twice = packIntoSecrets([{ name: 'p', objects: [{ object: objects[1]! }, { object: objects[1]! }] }], 'ext-1', 'ext', 'sys');
    expect(Object.keys(twice.secrets[0]!.data!)).toHaveLength(1);
  });

  it('gzips large objects, starts a new Secret when one is full, and refuses what cannot fit', () => {
    const big = (name: string, bytes: number): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { pad: 'x'.repeat(bytes) } });
    const packed = packIntoSecrets([{ name: 'p', objects: [{ object: big('a', 500 * 1024) }, { object: big('b', 500 * 1024) }, { object: big('c', 1000 * 1024) }] }], 'r', 'o', 'sys');
    expect(packed.secrets).toHaveLength(2);
    const c = packed.phases[0]!.objects[2]!.ref!;
    const raw = Buffer.from(packed.secrets.find((s) => s.metadata.name === c.name)!.data![c.key]!, 'base64');
    expect(raw[0]).toBe(0x1f);
    expect(JSON.parse(gunzipSync(raw).toString()).metadata.name).toBe('c');
    const random = randomBytes(Math.ceil(MAX_SECRET_DATA_BYTES * 1.4)).toString('base64');
    expect(() => packIntoSecrets([{ name: 'p', objects: [{ object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'r' }, data: { random } } }] }], 'r', 'o', 'sys')).toThrow(
      /^object in phase 0 index 0 exceeds maximum Secret data size \(\d+ bytes > 921600 bytes\) even after compression$/,
    );
  });
});

describe('revision states', () => {
  const rev = (n: number, state: 'Active' | 'Archived', succeeded: boolean): ClusterObjectSet => ({
    metadata: { name: `ext-${n}`, annotations: { 'olm.operatorframework.io/bundle-name': `pkg.v${n}`, 'olm.operatorframework.io/bundle-version': `${n}.0.0` } },
    spec: { lifecycleState: state, revision: n, collisionProtection: 'Prevent' },
    status: succeeded ? { conditions: [{ type: 'Succeeded', status: 'True', reason: 'Succeeded', message: '', lastTransitionTime: '' }] } : {},
  });
  it('installed is the newest active revision that succeeded; the others roll out, oldest first', () => {
    const s = revisionStates([rev(3, 'Active', false), rev(1, 'Archived', true), rev(2, 'Active', true), rev(4, 'Active', false)]);
    expect(s.installed?.name).toBe('ext-2');
    expect(s.installed?.bundle).toMatchObject({ name: 'pkg.v2', version: '2.0.0' });
    expect(s.rollingOut.map((r) => r.name)).toEqual(['ext-3', 'ext-4']);
    expect(revisionStates([])).toEqual({ rollingOut: [] });
  });
});

describe('a revision 1 migrated from a Subscription (upstream #2936)', () => {
  const migrated = (over: { annotations?: Record<string, string>; revision?: number; succeeded?: boolean; owner?: string } = {}): ClusterObjectSet => ({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterObjectSet',
    metadata: {
      name: 'ext-1',
      labels: { 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'ext' },
      annotations: {
        'olm.operatorframework.io/migrated-from-subscription': 'true',
        'olm.operatorframework.io/package-name': 'pkg',
        'olm.operatorframework.io/bundle-name': 'pkg.v1.0.0',
        'olm.operatorframework.io/bundle-version': '1.0.0',
        'olm.operatorframework.io/bundle-reference': 'reg/pkg@sha256:ab',
        ...over.annotations,
      },
      ...(over.owner !== undefined && { ownerReferences: [{ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', name: 'ext', uid: over.owner, controller: true }] }),
    },
    spec: { lifecycleState: 'Active', revision: over.revision ?? 1, collisionProtection: 'None', phases: [] },
    status: { conditions: [{ type: 'Succeeded', status: over.succeeded === false ? 'False' : 'True', reason: 'Succeeded', message: '', lastTransitionTime: '' }] },
  });

  it('is adopted when it records the bundle the extension resolved to, owned by nothing or by the extension', () => {
    expect(adoptableMigratedRevision(ext, [migrated()], bundle)?.metadata.name).toBe('ext-1');
    expect(adoptableMigratedRevision(ext, [migrated({ owner: 'ext-uid' })], bundle)?.metadata.name).toBe('ext-1');
    expect(adoptableMigratedRevision(ext, [migrated({ annotations: { 'olm.operatorframework.io/bundle-release': '2' } })], { ...bundle, release: '2' })).toBeDefined();
  });

  it('is not adopted when package, bundle, version, reference or release differ, or it is not a succeeded, unowned, annotated revision 1 alone', () => {
    for (const [key, value] of [
      ['olm.operatorframework.io/package-name', 'other'],
      ['olm.operatorframework.io/bundle-name', 'pkg.v0.9.0'],
      ['olm.operatorframework.io/bundle-version', '0.9.0'],
      ['olm.operatorframework.io/bundle-reference', 'reg/pkg@sha256:cd'],
      ['olm.operatorframework.io/bundle-release', '1'],
    ] as const) {
      expect(adoptableMigratedRevision(ext, [migrated({ annotations: { [key]: value } })], bundle), key).toBeUndefined();
    }
    const plain = migrated();
    delete plain.metadata.annotations!['olm.operatorframework.io/migrated-from-subscription'];
    expect(adoptableMigratedRevision(ext, [plain], bundle)).toBeUndefined();
    expect(adoptableMigratedRevision(ext, [migrated({ succeeded: false })], bundle)).toBeUndefined();
    expect(adoptableMigratedRevision(ext, [migrated({ revision: 2 })], bundle)).toBeUndefined();
    expect(adoptableMigratedRevision(ext, [migrated({ owner: 'someone-else' })], bundle)).toBeUndefined();
    expect(adoptableMigratedRevision(ext, [migrated(), { ...migrated({ revision: 2 }), metadata: { name: 'ext-2' } }], bundle)).toBeUndefined();
  });
});
