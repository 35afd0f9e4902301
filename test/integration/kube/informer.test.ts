// Informer basics on the shared control plane: events, the indexed cache, selectors, handler
// failures, late subscribers, bookmarks and stopping.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { Informer, NAMESPACE_INDEX, stripManagedFields, type KubeClient } from '../../../internal/shared/kube/index.ts';
import { controlPlane } from '../../support/env.ts';
import { adminClient, configMap, memoryLogger, namespace, record, until } from './helpers.ts';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
let kube: KubeClient;
const informers: Informer<KubeObject>[] = [];

beforeAll(async () => {
  kube = await adminClient(controlPlane());
});
afterAll(async () => {
  await Promise.all(informers.map((i) => i.stop()));
  await kube?.close();
});

/** The controller-manager publishes kube-root-ca.crt into every namespace; the tests watch their own ConfigMaps. */
const NOT_ROOT_CA = 'metadata.name!=kube-root-ca.crt';

function informer(opts: Partial<ConstructorParameters<typeof Informer<KubeObject>>[0]> = {}): Informer<KubeObject> {
  const inf = new Informer<KubeObject>({ client: kube, ...CM, fieldSelector: NOT_ROOT_CA, ...opts });
  informers.push(inf);
  return inf;
}

describe('informer', () => {
  it('caches, indexes and reports adds, updates and deletes with the old object', async () => {
    const ns = await namespace(kube, 'inf');
    await kube.create(configMap(ns, 'one', { owner: 'x' }, { owner: 'x' }));
    const inf = informer({ namespace: ns, transform: stripManagedFields, pageSize: 1 });
    inf.addIndex('owner', (o) => (o.metadata.labels?.['owner'] ? [o.metadata.labels['owner']] : []));
    const seen: string[] = [];
    inf.onEvent((type, obj, old) => seen.push(`${type} ${obj.metadata.name} ${(obj['data'] as Record<string, string>)['owner']}${old ? ` was ${(old['data'] as Record<string, string>)['owner']}` : ''}`));
    inf.start();
    await inf.waitForSync();
    expect(inf.hasSynced()).toBe(true);
    expect(inf.get(`${ns}/one`)?.metadata.managedFields).toBeUndefined(); // transformed before caching

    await kube.create(configMap(ns, 'two', { owner: 'y' }, { owner: 'y' }));
    await kube.patch({ ...CM, namespace: ns, name: 'one' }, 'merge', { metadata: { labels: { owner: 'y' } }, data: { owner: 'y' } });
    await kube.delete({ ...CM, namespace: ns, name: 'two' });
    await until('the delete', () => seen.length === 4);
    expect(seen).toEqual(['add one x', 'add two y', 'update one y was x', 'delete two y was y']);
    expect(inf.byIndex('owner', 'y').map((o) => o.metadata.name)).toEqual(['one']);
    expect(inf.byIndex('owner', 'x')).toEqual([]);
    expect(inf.byIndex(NAMESPACE_INDEX, ns).map((o) => o.metadata.name)).toEqual(['one']);
    expect(inf.list().map((o) => o.metadata.name)).toEqual(['one']);
    expect(inf.resourceVersion).toBeTruthy();
  });

  it('watches across namespaces with label and field selectors', async () => {
    const [a, b] = [await namespace(kube, 'sel'), await namespace(kube, 'sel')];
    const byLabel = informer({ labelSelector: { matchLabels: { pick: 'me' } } });
    const byField = informer({ fieldSelector: { 'metadata.name': 'named' } });
    byLabel.start();
    byField.start();
    await Promise.all([byLabel.waitForSync(), byField.waitForSync()]);
    await kube.create(configMap(a, 'x', {}, { pick: 'me' }));
    await kube.create(configMap(b, 'y', {}, { pick: 'me' }));
    await kube.create(configMap(b, 'z', {}, { pick: 'not-me' }));
    await kube.create(configMap(a, 'named', {}));
    await until('selected objects', () => byLabel.keys().length === 2 && byField.keys().length === 1);
    expect(byLabel.keys().sort()).toEqual([`${a}/x`, `${b}/y`].sort());
    expect(byField.keys()).toEqual([`${a}/named`]);
  });

  it('logs a throwing handler and keeps delivering to it and to the others', async () => {
    const ns = await namespace(kube, 'throw');
    const log = memoryLogger();
    const inf = informer({ namespace: ns, logger: log });
    let calls = 0;
    inf.onEvent(() => {
      calls++;
      throw new Error('handler bug');
    });
    inf.onEvent(async () => {
      throw new Error('async handler bug');
    });
    const events = record(inf);
    inf.start();
    await inf.waitForSync();
    await kube.create(configMap(ns, 'a', {}));
    await kube.create(configMap(ns, 'b', {}));
    await until('both events', () => events.length === 2 && inf.stats.handlerErrors === 4);
    expect(calls).toBe(2);
    const errors = log.lines.filter((l) => l.level === 'error');
    expect(errors.map((l) => [l.msg, l.fields['key'], (l.fields['err'] as Error).message]).sort()).toEqual([
      ['informer event handler threw', `${ns}/a`, 'async handler bug'],
      ['informer event handler threw', `${ns}/a`, 'handler bug'],
      ['informer event handler threw', `${ns}/b`, 'async handler bug'],
      ['informer event handler threw', `${ns}/b`, 'handler bug'],
    ]);
  });

  it('replays the cache to a late subscriber, and unsubscribes', async () => {
    const ns = await namespace(kube, 'late');
    await kube.create(configMap(ns, 'early', {}));
    const inf = informer({ namespace: ns });
    inf.start();
    await inf.waitForSync();
    const late: string[] = [];
    const off = inf.onEvent((type, obj) => late.push(`${type} ${obj.metadata.name}`));
    expect(late).toEqual(['add early']); // before onEvent returned
    off();
    await kube.create(configMap(ns, 'after', {}));
    await until('the new object', () => !!inf.get(`${ns}/after`));
    expect(late).toEqual(['add early']);
  });

  it('moves its resourceVersion on with bookmarks while nothing it watches changes', async () => {
    const ns = await namespace(kube, 'bookmark');
    // The server sends a bookmark 2 s before a watch's deadline, carrying its watch cache's resourceVersion.
    const inf = informer({ namespace: ns, watchTimeoutSeconds: [4, 4] });
    inf.start();
    await inf.waitForSync();
    const listed = Number(inf.resourceVersion);
    // ConfigMaps written elsewhere move the watch cache on; keep writing them so that a bookmark sent while
    // a loaded server's cache still lags behind the first write is followed by one that does not.
    const elsewhere = await namespace(kube, 'elsewhere');
    let n = 0;
    const noise = setInterval(() => void kube.create(configMap(elsewhere, `noise-${n++}`, {})).catch(() => undefined), 1000);
    try {
      await until('a bookmark', () => Number(inf.resourceVersion) > listed, 60_000);
    } finally {
      clearInterval(noise);
    }
    expect(inf.keys()).toEqual([]);
    // The server ends each watch after timeoutSeconds (4 s here); the informer simply watches again.
    await until('a second watch', () => inf.stats.watches >= 2, 30_000);
    expect(inf.stats).toMatchObject({ lists: 1, failures: 0, relists: 0 });
  });

  it('rejects waitForSync on abort or stop, and stop ends the loop', async () => {
    const inf = informer({ namespace: 'no-such-namespace-but-fine' });
    const ac = new AbortController();
    ac.abort(new Error('gave up'));
    await expect(inf.waitForSync(ac.signal)).rejects.toThrow('gave up');
    const pending = inf.waitForSync();
    await inf.stop(); // never started
    await expect(pending).rejects.toThrow('stopped before it synced');
    expect(() => inf.start()).toThrow('was stopped');
  });

  it('stops at once when stop() follows waitForSync() before the watch has opened', async () => {
    // waitForSync resolves inside the list; the loop opens its watch a few microtasks later, so a
    // stop() in between must still end that watch (an abort listener added after the abort never fires).
    const ns = await namespace(kube, 'quickstop');
    await kube.create(configMap(ns, 'one', {}));
    const inf = new Informer<KubeObject>({ client: kube, ...CM, namespace: ns, fieldSelector: NOT_ROOT_CA, watchTimeoutSeconds: [300, 300] });
    inf.start();
    await inf.waitForSync();
    const t0 = Date.now();
    await inf.stop();
    expect(Date.now() - t0).toBeLessThan(5_000); // the watch would otherwise run its 300 s timeout
    expect(inf.keys()).toEqual([`${ns}/one`]);
  });
});
