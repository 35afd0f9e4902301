import { describe, expect, it } from 'vitest';
import type { ClusterExtension } from '../../../api/v1/index.ts';
import { ApiError, type KubeClient } from '../../shared/kube/index.ts';
import { extension, quietLogger } from './testing.ts';
import { ClusterExtensionReconciler } from './reconciler.ts';
import type { ExtensionStep } from './steps.ts';

/** An API server holding one extension: status PUTs bump its resourceVersion; a stale one gets 409. */
function server(stored: ClusterExtension): { client: KubeClient; stored: () => ClusterExtension; bump: () => void } {
  let obj = structuredClone(stored);
  const client = {
    get: async () => structuredClone(obj),
    updateStatus: async (o: ClusterExtension) => {
      if (o.metadata.resourceVersion !== obj.metadata.resourceVersion) throw new ApiError(409, { kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409, message: 'conflict' }, { method: 'PUT', path: '/status' });
      obj = { ...obj, status: structuredClone(o.status ?? {}), metadata: { ...obj.metadata, resourceVersion: String(Number(obj.metadata.resourceVersion) + 1) } };
      return structuredClone(obj);
    },
  } as unknown as KubeClient;
  return {
    client,
    stored: () => obj,
    bump: () => void (obj = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(Number(obj.metadata.resourceVersion) + 1) } }),
  };
}

const setsMessage = (message: string): ExtensionStep => ({
  name: 'set',
  run: async ({ ext }) => {
    ext.status = { conditions: [{ type: 'Progressing', status: 'True', reason: 'Succeeded', message, lastTransitionTime: '2026-11-27T00:00:00Z', observedGeneration: 3 }] };
    return undefined;
  },
});

describe('ClusterExtensionReconciler', () => {
  it('knows the resourceVersions of its own status writes, and not those of objects it only read', async () => {
    const ext = { ...extension(), metadata: { ...extension().metadata, resourceVersion: '10' } } as ClusterExtension;
    const api = server(ext);
    let cached = api.stored();
    let message = 'one';
    const r = new ClusterExtensionReconciler({ client: api.client, get: () => cached, steps: [{ name: 'set', run: (s, sig) => setsMessage(message).run(s, sig) }], logger: quietLogger() });

    await r.reconcile('demo', new AbortController().signal);
    expect(api.stored().metadata.resourceVersion).toBe('11');
    expect(r.ownWrite('demo', '11')).toBe(true);
    expect(r.ownWrite('demo', '10')).toBe(false);

    // Someone else wrote meanwhile (rv 12): the write conflicts and overwrites nothing; the pass runs again from fresh
    // state, and only its answer is ours.
    api.bump();
    message = 'two';
    expect(await r.reconcile('demo', new AbortController().signal)).toEqual({ requeue: true });
    expect(api.stored().metadata.resourceVersion).toBe('12');
    expect(api.stored().status?.conditions?.[0]?.message).toBe('one');
    cached = api.stored();
    await r.reconcile('demo', new AbortController().signal);
    expect(api.stored().metadata.resourceVersion).toBe('13');
    expect(r.ownWrite('demo', '12')).toBe(false);
    expect(r.ownWrite('demo', '13')).toBe(true);

    // A conflict writes nothing and claims nothing.
    cached = { ...api.stored(), status: {} };
    api.bump();
    expect(await r.reconcile('demo', new AbortController().signal)).toEqual({ requeue: true });
    expect(api.stored().metadata.resourceVersion).toBe('14');
    expect(r.ownWrite('demo', '14')).toBe(false);
  });
});
