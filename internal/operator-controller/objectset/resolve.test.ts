import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { ClusterObjectSet } from '../../../api/v1/index.ts';
import { effectiveCollisionProtection, mutableSecretsProblem, observedPhasesProblem, phaseDigest, resolvePhases, resolveRef } from './resolve.ts';

const secret = (data: Record<string, Buffer | string>, immutable = true): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 's' },
  ...(immutable && { immutable: true }),
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
});
const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'n' }, data: { a: 'b' } };

describe('resolving phases', () => {
  it('takes the last collision protection set, Prevent when none is', () => {
    expect(effectiveCollisionProtection()).toBe('Prevent');
    expect(effectiveCollisionProtection('None', undefined, undefined)).toBe('None');
    expect(effectiveCollisionProtection('None', 'IfNoController', undefined)).toBe('IfNoController');
    expect(effectiveCollisionProtection('None', 'IfNoController', 'Prevent')).toBe('Prevent');
  });

  it('digests a phase as Go encodes it, independent of key order', () => {
    const a = phaseDigest('p', [{ ...cm }]);
    const b = phaseDigest('p', [{ data: { a: 'b' }, metadata: { namespace: 'n', name: 'c' }, kind: 'ConfigMap', apiVersion: 'v1' }]);
    expect(a).toBe(b);
    expect(a).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(phaseDigest('q', [cm])).not.toBe(a);
  });

  it('reads refs, plain or gzip’d, with upstream’s errors', async () => {
    const read = async (_ns: string, name: string): Promise<KubeObject | undefined> =>
      name === 's' ? secret({ plain: JSON.stringify(cm), zipped: gzipSync(JSON.stringify(cm)), bad: 'not json', list: '[1]' }) : undefined;
    expect(await resolveRef({ name: 's', namespace: 'n', key: 'plain' }, 'sys', read)).toEqual(cm);
    expect(await resolveRef({ name: 's', namespace: 'n', key: 'zipped' }, 'sys', read)).toEqual(cm);
    await expect(resolveRef({ name: 'gone', namespace: 'n', key: 'k' }, 'sys', read)).rejects.toThrow('getting Secret n/gone: secrets "gone" not found');
    await expect(resolveRef({ name: 's', key: 'nope' }, 'sys', read)).rejects.toThrow('key "nope" not found in Secret sys/s');
    await expect(resolveRef({ name: 's', namespace: 'n', key: 'bad' }, 'sys', read)).rejects.toThrow(/^unmarshaling object from key "bad" in Secret n\/s: /);
    await expect(resolveRef({ name: 's', namespace: 'n', key: 'list' }, 'sys', read)).rejects.toThrow('unmarshaling object from key "list" in Secret n/s: not a JSON object');
  });

  it('resolves every phase, naming the phase of an object that cannot be read', async () => {
    const cos: ClusterObjectSet = {
      metadata: { name: 'x' },
      spec: {
        lifecycleState: 'Active',
        revision: 1,
        collisionProtection: 'IfNoController',
        phases: [{ name: 'one', objects: [{ object: cm }, { ref: { name: 's', namespace: 'n', key: 'plain' }, collisionProtection: 'None' }] }],
      },
    };
    const read = async (): Promise<KubeObject> => secret({ plain: JSON.stringify(cm) });
    const { phases, observed } = await resolvePhases(cos, 'sys', read);
    expect(phases[0]!.objects.map((o) => o.collisionProtection)).toEqual(['IfNoController', 'None']);
    expect(observed).toEqual([{ name: 'one', digest: phaseDigest('one', [cm, cm]) }]);
    await expect(resolvePhases(cos, 'sys', async () => undefined)).rejects.toThrow('resolving ref in phase "one": getting Secret n/s: secrets "s" not found');
  });

  it('words changed digests and mutable Secrets as upstream', async () => {
    expect(observedPhasesProblem([{ name: 'a', digest: 'sha256:1' }], [{ name: 'a', digest: 'sha256:1' }])).toBeUndefined();
    expect(observedPhasesProblem([{ name: 'a', digest: 'sha256:1' }], [{ name: 'a', digest: 'sha256:2' }])).toBe(
      'resolved content of 1 phase(s) has changed: phase "a" (expected digest sha256:1, got sha256:2); a referenced object source may have been deleted and recreated with different content',
    );
    expect(observedPhasesProblem([{ name: 'a', digest: 'sha256:1' }], [])).toBe('number of phases has changed (expected 1 phases, got 0)');
    const cos: ClusterObjectSet = {
      metadata: { name: 'x' },
      spec: {
        lifecycleState: 'Active',
        revision: 1,
        collisionProtection: 'Prevent',
        phases: [{ name: 'p', objects: [{ ref: { name: 'm1', namespace: 'n', key: 'k' } }, { ref: { name: 'i', namespace: 'n', key: 'k' } }, { ref: { name: 'm2', key: 'k' } }, { ref: { name: 'gone', namespace: 'n', key: 'k' } }] }],
      },
    };
    const read = async (_ns: string, name: string): Promise<KubeObject | undefined> => (name === 'gone' ? undefined : secret({ k: '{}' }, name === 'i'));
    expect(await mutableSecretsProblem(cos, 'sys', read)).toBe('the following secrets are not immutable (referenced secrets must have immutable set to true): n/m1, sys/m2');
  });
});
