// The dynamic client against the real kube-apiserver: CRUD, errors, lists, patches, the status
// subresource, discovery, deletes and the read-modify-write helpers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import {
  addFinalizer,
  ApiError,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNoKindMatch,
  isNotFound,
  removeFinalizer,
  updateStatus,
  type KubeClient,
} from '../../../internal/shared/kube/index.ts';
import { controlPlane } from '../../support/env.ts';
import { adminClient, configMap, installWidgetCrd, namespace } from './helpers.ts';

const GROUP = 'client-test.kube.olm.test';
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
let kube: KubeClient;
let ns: string;

beforeAll(async () => {
  kube = await adminClient(controlPlane());
  ns = await namespace(kube, 'client');
});
afterAll(async () => {
  await kube?.close();
});

const widget = (name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Widget',
  metadata: { name, namespace: ns },
  spec,
});

describe('dynamic client', () => {
  it('creates, reads, updates and deletes, with the server messages in typed errors', async () => {
    const created = await kube.create(configMap(ns, 'crud', { a: '1' }));
    expect(created.metadata.uid).toBeTruthy();
    const got = await kube.get({ ...CM, namespace: ns, name: 'crud' });
    expect(got['data']).toEqual({ a: '1' });

    const dup = await kube.create(configMap(ns, 'crud', { a: '1' })).catch((e: unknown) => e);
    expect(isAlreadyExists(dup)).toBe(true);
    expect((dup as ApiError).message).toBe('configmaps "crud" already exists');

    const updated = await kube.update({ ...got, data: { a: '2' } });
    const stale = await kube.update({ ...got, data: { a: '3' } }).catch((e: unknown) => e);
    expect(isConflict(stale)).toBe(true);
    expect((stale as ApiError).code).toBe(409);
    expect((stale as ApiError).message).toBe(
      'Operation cannot be fulfilled on configmaps "crud": the object has been modified; please apply your changes to the latest version and try again',
    );

    const mismatched = await kube
      .delete({ ...CM, namespace: ns, name: 'crud' }, { preconditions: { resourceVersion: got.metadata.resourceVersion! } })
      .catch((e: unknown) => e);
    expect(isConflict(mismatched)).toBe(true);
    expect(await kube.delete({ ...CM, namespace: ns, name: 'crud' }, { preconditions: { resourceVersion: updated.metadata.resourceVersion! } })).toBeUndefined();

    const missing = await kube.get({ ...CM, namespace: ns, name: 'crud' }).catch((e: unknown) => e);
    expect(isNotFound(missing)).toBe(true);
    expect(missing).toMatchObject({ code: 404, reason: 'NotFound', message: 'configmaps "crud" not found' });
  });

  it('reports validation failures as Invalid with the field at fault', async () => {
    const err = await kube.create(configMap(ns, 'Not_A_Name', {})).catch((e: unknown) => e);
    expect(isInvalid(err)).toBe(true);
    expect((err as ApiError).code).toBe(422);
    expect((err as ApiError).message).toMatch(/^ConfigMap "Not_A_Name" is invalid: metadata.name: Invalid value: "Not_A_Name": a lowercase RFC 1123 subdomain/);
  });

  it('needs a namespace for namespaced kinds', async () => {
    await expect(kube.get({ ...CM, name: 'x' })).rejects.toThrow('ConfigMap "x" is namespaced: a namespace is required');
  });

  it('lists with label and field selectors, page by page', async () => {
    for (let i = 0; i < 7; i++) await kube.create(configMap(ns, `page-${i}`, { i: String(i) }, { tier: i % 2 ? 'odd' : 'even', paged: 'yes' }));
    const odd = await kube.list({ ...CM, namespace: ns }, { labelSelector: { matchLabels: { paged: 'yes', tier: 'odd' } } });
    expect(odd.items.map((o) => o.metadata.name)).toEqual(['page-1', 'page-3', 'page-5']);
    expect(odd.items[0]).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    const expr = await kube.list({ ...CM, namespace: ns }, { labelSelector: 'paged=yes,tier in (even)' });
    expect(expr.items).toHaveLength(4);
    const byName = await kube.list({ ...CM, namespace: ns }, { fieldSelector: { 'metadata.name': 'page-6' } });
    expect(byName.items.map((o) => o.metadata.name)).toEqual(['page-6']);

    const first = await kube.list({ ...CM, namespace: ns }, { labelSelector: 'paged=yes', limit: 3 });
    expect(first.items).toHaveLength(3);
    expect(first.metadata.continue).toBeTruthy();
    const second = await kube.list({ ...CM, namespace: ns }, { labelSelector: 'paged=yes', limit: 3, continue: first.metadata.continue! });
    expect(second.items.map((o) => o.metadata.name)).toEqual(['page-3', 'page-4', 'page-5']);

    const all = await kube.listAll({ ...CM, namespace: ns }, { labelSelector: 'paged=yes', pageSize: 2 });
    expect(all.items.map((o) => o.metadata.name)).toEqual(['page-0', 'page-1', 'page-2', 'page-3', 'page-4', 'page-5', 'page-6']);
    expect(all.metadata.resourceVersion).toBeTruthy();
  });

  it('patches with merge, JSON and strategic merge patches', async () => {
    const ref = { ...CM, namespace: ns, name: 'patched' };
    await kube.create(configMap(ns, 'patched', { a: '1', b: '2' }));
    const merged = await kube.patch(ref, 'merge', { data: { b: null, c: '3' } });
    expect(merged['data']).toEqual({ a: '1', c: '3' });
    const json = await kube.patch(ref, 'json', [
      { op: 'test', path: '/data/a', value: '1' },
      { op: 'replace', path: '/data/a', value: 'one' },
    ]);
    expect(json['data']).toEqual({ a: 'one', c: '3' });
    const failedTest = await kube.patch(ref, 'json', [{ op: 'test', path: '/data/a', value: 'nope' }]).catch((e: unknown) => e);
    expect(failedTest).toBeInstanceOf(ApiError);
    expect((failedTest as ApiError).code).toBe(422);

    // Strategic merge patches merge lists by key: the container named "b" is added, "a" kept.
    const deploy = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'smp', namespace: ns },
      spec: {
        selector: { matchLabels: { app: 'smp' } },
        template: { metadata: { labels: { app: 'smp' } }, spec: { containers: [{ name: 'a', image: 'busybox' }] } },
      },
    };
    await kube.create(deploy);
    const smp = await kube.patch<typeof deploy>({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'smp' }, 'strategic', {
      spec: { template: { spec: { containers: [{ name: 'b', image: 'busybox' }] } } },
    });
    expect(smp.spec.template.spec.containers.map((c) => c.name)).toEqual(['b', 'a']);
  });

  it('finds a CRD installed after a discovery miss, keeps unknown fields, and writes status only through /status', async () => {
    const miss = await kube.mapping(`${GROUP}/v1`, 'Widget').catch((e: unknown) => e);
    expect(isNoKindMatch(miss)).toBe(true);
    expect((miss as Error).message).toBe(`no matches for kind "Widget" in version "${GROUP}/v1"`);
    await installWidgetCrd(kube, GROUP);
    expect(await kube.mapping(`${GROUP}/v1`, 'Widget')).toMatchObject({ resource: 'widgets', namespaced: true, subresources: ['status'] });

    const w = await kube.create(widget('w1', { size: 1, futureField: { nested: [1, 2] } }));
    expect(w['spec']).toEqual({ size: 1, futureField: { nested: [1, 2] } });

    // Status in a main-resource write is ignored; the status subresource ignores spec changes.
    const ignored = await kube.update({ ...w, status: { phase: 'Ready' } });
    expect(ignored['status']).toBeUndefined();
    const withStatus = await kube.updateStatus({ ...ignored, spec: { size: 99 }, status: { phase: 'Ready' } });
    expect(withStatus['status']).toEqual({ phase: 'Ready' });
    expect(withStatus['spec']).toEqual({ size: 1, futureField: { nested: [1, 2] } });
    const patched = await kube.patchStatus(
      { apiVersion: `${GROUP}/v1`, kind: 'Widget', namespace: ns, name: 'w1' },
      'merge',
      { status: { observedGeneration: 1 } },
    );
    expect(patched['status']).toEqual({ phase: 'Ready', observedGeneration: 1 });
  });

  it('updateStatus returns a conflict and never overwrites the newer object', async () => {
    const ref = { apiVersion: `${GROUP}/v1`, kind: 'Widget', namespace: ns, name: 'w2' };
    const current = await kube.create(widget('w2', { size: 2 }));
    let calls = 0;
    // Someone else writes between our read and our write: the write is refused, nothing of ours is stored.
    await kube.patchStatus(ref, 'merge', { status: { phase: 'TheirsNewer' } });
    const err = await updateStatus<KubeObject>(
      kube,
      ref,
      (obj) => {
        calls++;
        obj['status'] = { conditions: [{ type: 'Ready', status: 'True' }] };
      },
      { current },
    ).catch((e: unknown) => e);
    expect(isConflict(err)).toBe(true);
    expect(calls).toBe(1);
    expect((await kube.get(ref))['status']).toEqual({ phase: 'TheirsNewer' });

    // Reconciled again from fresh state (a fresh read here): written.
    const stored = await updateStatus<KubeObject>(kube, ref, (obj) => {
      calls++;
      obj['status'] = { conditions: [{ type: 'Ready', status: 'True' }] };
    });
    expect(calls).toBe(2);
    expect(stored['status']).toEqual({ conditions: [{ type: 'Ready', status: 'True' }] });

    let writes = 0;
    await updateStatus<KubeObject>(kube, ref, (obj) => {
      writes++;
      obj['status'] = { conditions: [{ type: 'Ready', status: 'True' }] }; // unchanged: no write
    });
    expect(writes).toBe(1);
    expect((await kube.get(ref)).metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
  });

  it('holds deletion with a finalizer until it is removed', async () => {
    const ref = { ...CM, namespace: ns, name: 'finalized' };
    const cm = await kube.create(configMap(ns, 'finalized', {}));
    const stale = await kube.patch(ref, 'merge', { metadata: { labels: { moved: 'on' } } }).then(() => cm); // cm is now stale
    const withFinalizer = await addFinalizer(kube, stale, 'olm.operatorframework.io/cleanup');
    expect(withFinalizer.metadata.finalizers).toEqual(['olm.operatorframework.io/cleanup']);
    expect(await addFinalizer(kube, withFinalizer, 'olm.operatorframework.io/cleanup')).toBe(withFinalizer); // no-op

    const pending = await kube.delete(ref);
    expect(pending?.metadata.deletionTimestamp).toBeTruthy();
    await removeFinalizer(kube, pending!, 'olm.operatorframework.io/cleanup');
    expect(isNotFound(await kube.get(ref).catch((e: unknown) => e))).toBe(true);
    expect(await removeFinalizer(kube, pending!, 'olm.operatorframework.io/cleanup')).toBeUndefined();
  });

  it('applies with dryRun without storing anything', async () => {
    const dry = await kube.create(configMap(ns, 'dry', { a: '1' }), { dryRun: true });
    expect(dry.metadata.name).toBe('dry');
    expect(isNotFound(await kube.get({ ...CM, namespace: ns, name: 'dry' }).catch((e: unknown) => e))).toBe(true);
  });
});
