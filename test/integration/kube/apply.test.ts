// Server-side apply against the real kube-apiserver: field ownership, conflicts and force.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject, ManagedFieldsEntry } from '../../../api/meta/v1.ts';
import { ApiError, isConflict, type KubeClient } from '../../../internal/shared/kube/index.ts';
import { controlPlane } from '../../support/env.ts';
import { adminClient, configMap, installWidgetCrd, namespace } from './helpers.ts';

const GROUP = 'apply-test.kube.olm.test';
let kube: KubeClient;
let ns: string;

beforeAll(async () => {
  kube = await adminClient(controlPlane());
  ns = await namespace(kube, 'apply');
});
afterAll(async () => {
  await kube?.close();
});

const owners = (obj: KubeObject): Record<string, string[]> =>
  Object.fromEntries(
    (obj.metadata.managedFields ?? []).map((m: ManagedFieldsEntry) => [
      `${m.manager}${m.subresource ? `/${m.subresource}` : ''}`,
      Object.keys(((m.fieldsV1 as Record<string, Record<string, unknown>>)['f:data'] ?? (m.fieldsV1 as Record<string, Record<string, unknown>>)['f:status']) ?? {}).sort(),
    ]),
  );

describe('server-side apply', () => {
  it('refuses to take another manager’s field without force, and takes it with force', async () => {
    const created = await kube.apply(configMap(ns, 'owned', { key: 'a', onlyA: 'x' }), { fieldManager: 'manager-a' });
    expect(created['data']).toEqual({ key: 'a', onlyA: 'x' });

    const refused = await kube.apply(configMap(ns, 'owned', { key: 'b' }), { fieldManager: 'manager-b' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(isConflict(refused)).toBe(true);
    expect((refused as ApiError).code).toBe(409);
    expect((refused as ApiError).message).toBe('Apply failed with 1 conflict: conflict with "manager-a": .data.key');
    expect((refused as ApiError).status.details?.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "manager-a"', field: '.data.key' }]);

    const forced = await kube.apply(configMap(ns, 'owned', { key: 'b' }), { fieldManager: 'manager-b', force: true });
    expect(forced['data']).toEqual({ key: 'b', onlyA: 'x' });
    expect(owners(forced)).toEqual({ 'manager-a': ['f:onlyA'], 'manager-b': ['f:key'] });

    // A field its only owner stops applying is removed.
    const pruned = await kube.apply(configMap(ns, 'owned', {}), { fieldManager: 'manager-a' });
    expect(pruned['data']).toEqual({ key: 'b' });
  });

  it('dry-runs an apply without changing the object', async () => {
    await kube.apply(configMap(ns, 'dry', { v: '1' }), { fieldManager: 'm' });
    const dry = await kube.apply(configMap(ns, 'dry', { v: '2' }), { fieldManager: 'm', dryRun: true });
    expect(dry['data']).toEqual({ v: '2' });
    expect((await kube.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'dry' }))['data']).toEqual({ v: '1' });
  });

  it('applies status through the status subresource with its own field ownership', async () => {
    await installWidgetCrd(kube, GROUP);
    const widget = (status?: Record<string, unknown>): KubeObject => ({
      apiVersion: `${GROUP}/v1`,
      kind: 'Widget',
      metadata: { name: 'w', namespace: ns },
      spec: { size: 1 },
      ...(status && { status }),
    });
    await kube.apply(widget(), { fieldManager: 'spec-owner' });
    const withStatus = await kube.applyStatus(widget({ phase: 'Ready' }), { fieldManager: 'status-owner' });
    expect(withStatus['status']).toEqual({ phase: 'Ready' });
    expect(owners(withStatus)['status-owner/status']).toEqual(['f:phase']);
    const conflict = await kube.applyStatus(widget({ phase: 'Failed' }), { fieldManager: 'intruder' }).catch((e: unknown) => e);
    expect((conflict as ApiError).message).toBe('Apply failed with 1 conflict: conflict with "status-owner" with subresource "status": .status.phase');
  });
});
