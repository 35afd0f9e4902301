// Informers under trouble, on a control plane of this file's own: a kube-apiserver restart, a
// forced 410 Gone (etcd compaction + restart while the informer is cut off), a watch that goes
// silent, and an API server that is down when the informer starts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { Informer, isGone, KubeClient, stripManagedFields, type NetworkError } from '../../../internal/shared/kube/index.ts';
import { ControlPlane } from '../../support/control-plane.ts';
import { freePort } from '../../support/net.ts';
import { configMap, kubeconfigFile, memoryLogger, namespace, record, until, type Recorded } from './helpers.ts';
import { TcpProxy } from './tcp-proxy.ts';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const cp = new ControlPlane();
let admin: KubeClient;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  await cp.start();
  admin = await KubeClient.fromConfig({ kubeconfig: cp.details.kubeconfigPath });
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await admin?.close();
  await cp.stop();
});

/** An informer on one namespace's ConfigMaps through `server`, stopped after the file. */
async function informer(
  ns: string,
  opts: { server?: string; watchdogMs?: number; backoffMaxMs?: number } = {},
): Promise<{ inf: Informer<KubeObject>; events: Recorded[]; log: ReturnType<typeof memoryLogger> }> {
  const log = memoryLogger();
  const client = await KubeClient.fromConfig({ kubeconfig: await kubeconfigFile(cp.details, cp.details.adminToken, opts.server), logger: log });
  const inf = new Informer<KubeObject>({
    client,
    ...CM,
    namespace: ns,
    // The controller-manager publishes kube-root-ca.crt into every namespace; the tests count their own.
    fieldSelector: 'metadata.name!=kube-root-ca.crt',
    logger: log,
    transform: stripManagedFields,
    ...(opts.watchdogMs !== undefined && { watchdogMs: opts.watchdogMs }),
    ...(opts.backoffMaxMs !== undefined && { backoff: { maxMs: opts.backoffMaxMs } }),
  });
  const events = record(inf);
  cleanups.push(async () => {
    await inf.stop();
    await client.close();
  });
  inf.start();
  return { inf, events, log };
}

const dataOf = (inf: Informer<KubeObject>, ns: string, name: string): unknown => inf.get(`${ns}/${name}`)?.['data'];

/** etcd's current revision, then a physical compaction up to it (etcd v3 JSON gateway). */
async function compactEtcd(): Promise<number> {
  const url = cp.details.etcdClientUrl;
  const range = await fetch(`${url}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: Buffer.from('/').toString('base64'), limit: 1 }) });
  const revision = ((await range.json()) as { header: { revision: string } }).header.revision;
  const compaction = await fetch(`${url}/v3/kv/compaction`, { method: 'POST', body: JSON.stringify({ revision, physical: true }) });
  expect(compaction.status).toBe(200);
  await compaction.body?.cancel();
  return Number(revision);
}

describe('informer resilience', () => {
  it('survives a kube-apiserver restart and sees changes made after it', async () => {
    const ns = await namespace(admin, 'restart');
    await admin.create(configMap(ns, 'a', { v: '1' }));
    await admin.create(configMap(ns, 'b', { v: '1' }));
    const { inf, events } = await informer(ns);
    await inf.waitForSync();
    expect(inf.keys().sort()).toEqual([`${ns}/a`, `${ns}/b`]);

    await cp.restart();
    await admin.create(configMap(ns, 'c', { v: '1' }));
    await admin.patch({ ...CM, namespace: ns, name: 'a' }, 'merge', { data: { v: '2' } });
    await admin.delete({ ...CM, namespace: ns, name: 'b' });

    await until('informer to see the changes made after the restart', () => inf.keys().length === 2 && !!inf.get(`${ns}/c`) && (dataOf(inf, ns, 'a') as { v: string }).v === '2');
    expect(inf.keys().sort()).toEqual([`${ns}/a`, `${ns}/c`]);
    // In watch order, or in relist order if the restarted server answered 410: the same set.
    expect(events.slice(2).map((e) => `${e.type} ${e.name}`).sort()).toEqual(['add c', 'delete b', 'update a']);
    expect(inf.stats.watches).toBeGreaterThanOrEqual(2); // it reconnected
  });

  it('relists after 410 Gone and reports the final state of everything changed while it was cut off', async () => {
    const ns = await namespace(admin, 'gone');
    const proxy = await TcpProxy.start(await freePort(), Number(new URL(cp.details.server).port));
    cleanups.push(() => proxy.close());
    for (const name of ['keep', 'change', 'remove']) await admin.create(configMap(ns, name, { v: '1' }));
    const { inf, events, log } = await informer(ns, { server: `https://127.0.0.1:${proxy.port}`, backoffMaxMs: 3_000 });
    await inf.waitForSync();
    const seenBefore = events.length;
    const rvBefore = inf.resourceVersion!;

    await proxy.down();
    await until('informer to notice the outage', () => inf.stats.failures >= 1);
    await admin.patch({ ...CM, namespace: ns, name: 'change' }, 'merge', { data: { v: '2' } });
    await admin.patch({ ...CM, namespace: ns, name: 'change' }, 'merge', { data: { v: '3' } });
    await admin.delete({ ...CM, namespace: ns, name: 'remove' });
    await admin.create(configMap(ns, 'added', { v: '1' }));
    await admin.create(configMap(ns, 'transient', { v: '1' }));
    await admin.delete({ ...CM, namespace: ns, name: 'transient' });
    expect(await compactEtcd()).toBeGreaterThan(Number(rvBefore));
    await cp.restart(); // a fresh watch cache: the informer's resourceVersion is now too old everywhere
    const tooOld = await admin.list({ ...CM, namespace: ns }, { resourceVersion: rvBefore, resourceVersionMatch: 'Exact' }).catch((e: unknown) => e);
    expect(isGone(tooOld)).toBe(true);

    await proxy.up();
    await until('informer to relist', () => inf.stats.relists >= 1 && inf.keys().length === 3 && (dataOf(inf, ns, 'change') as { v: string }).v === '3');
    expect(inf.keys().sort()).toEqual([`${ns}/added`, `${ns}/change`, `${ns}/keep`]);
    expect(dataOf(inf, ns, 'keep')).toEqual({ v: '1' });
    const missed = events.slice(seenBefore).map((e) => `${e.type} ${e.name} ${e.data?.['v']}`);
    expect(missed.sort()).toEqual(['add added 1', 'delete remove 1', 'update change 3']); // the transient one never existed for it
    const relist = log.lines.find((l) => l.msg === 'resourceVersion too old, relisting');
    expect(relist?.fields['reason']).toMatch(new RegExp(`^too old resource version: ${rvBefore} \\(\\d+\\)$`));
    expect(inf.stats.relists).toBe(1);
    expect(inf.stats.lists).toBe(2);
  });

  it('drops a watch that went silent and reconnects, where one without a watchdog stays stuck', async () => {
    const ns = await namespace(admin, 'silent');
    const proxy = await TcpProxy.start(await freePort(), Number(new URL(cp.details.server).port));
    cleanups.push(() => proxy.close());
    const server = `https://127.0.0.1:${proxy.port}`;
    const guarded = await informer(ns, { server, watchdogMs: 2_000 });
    const unguarded = await informer(ns, { server }); // default watchdog: the watch timeout + 30 s
    await Promise.all([guarded.inf.waitForSync(), unguarded.inf.waitForSync()]);
    // Both watches are open once an object made after the sync reaches both informers (only a watch can bring it).
    await admin.create(configMap(ns, 'before-freeze', { v: '1' }));
    await until('both watches to deliver an event', () => !!guarded.inf.get(`${ns}/before-freeze`) && !!unguarded.inf.get(`${ns}/before-freeze`));
    expect(proxy.freeze()).toBeGreaterThanOrEqual(2);

    await admin.create(configMap(ns, 'after-freeze', { v: '1' }));
    await until('the guarded informer to see the new object', () => !!guarded.inf.get(`${ns}/after-freeze`), 30_000);
    expect(guarded.inf.stats.watchdogResets).toBeGreaterThanOrEqual(1);
    expect(unguarded.inf.get(`${ns}/after-freeze`)).toBeUndefined();
    expect(unguarded.inf.stats.watchdogResets).toBe(0);
  });

  it('retries with backoff while the API server is down at start, then syncs once it is up', async () => {
    const ns = await namespace(admin, 'down');
    await admin.create(configMap(ns, 'waiting', { v: '1' }));
    await cp.kill();
    const { inf, log } = await informer(ns);
    await until('three failed attempts', () => inf.stats.failures >= 3, 30_000);
    expect(inf.hasSynced()).toBe(false);
    const retries = log.lines.filter((l) => l.msg === 'list failed; retrying after backoff');
    expect((retries[0]?.fields['err'] as NetworkError).code).toBe('ECONNREFUSED');
    expect((retries[0]?.fields['err'] as NetworkError).retryable).toBe(true);
    const delays = retries.map((l) => l.fields['retryInMs'] as number);
    expect(delays[0]).toBeGreaterThanOrEqual(720);
    expect(delays[0]).toBeLessThanOrEqual(880);
    expect(delays[1]! / delays[0]!).toBeGreaterThan(1.5); // doubling (±10 % jitter)
    expect(delays[2]! / delays[1]!).toBeGreaterThan(1.5);

    await cp.resume();
    await inf.waitForSync(AbortSignal.timeout(60_000));
    expect(inf.keys()).toEqual([`${ns}/waiting`]);
    expect(log.lines.filter((l) => l.level === 'error')).toEqual([]);
  });
});
