import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogSource } from '../../../api/operators/index.ts';
import { loadCatalog } from '../../shared/fbc/index.ts';
import { parseSelector } from '../../shared/kube/index.ts';
import { noopLogger } from '../../shared/observability/index.ts';
import { contentFromFbc, type CatalogContent } from '../catalogsource/index.ts';
import { packageProvider } from './provider.ts';
import { handle } from './server.ts';
import { PackageIndex, watchEvent, type Change } from './watch.ts';

const demo = fileURLToPath(new URL('../../../demo/catalog', import.meta.url));
const source = (namespace: string, name: string, labels: Record<string, string> = {}): CatalogSource => ({
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'CatalogSource',
  metadata: { name, namespace, creationTimestamp: '2026-11-01T00:00:00Z', labels, resourceVersion: '1' },
  spec: { sourceType: 'grpc', displayName: name },
});

let base: CatalogContent;
beforeAll(async () => {
  base = contentFromFbc(await loadCatalog(demo), 'example.com/demo@sha256:1', new Date());
});
const candidateDefault = (c: CatalogContent): CatalogContent => ({ ...c, origin: 'example.com/demo@sha256:2', packages: c.packages.map((p) => ({ ...p, defaultChannel: 'candidate' })) });
const empty = (c: CatalogContent): CatalogContent => ({ ...c, origin: 'example.com/demo@sha256:3', packages: [] });

/** A world of CatalogSources and contents the test changes, as the informer and the content registry would. */
function world(): {
  sources: CatalogSource[];
  contents: Map<string, CatalogContent>;
  index: PackageIndex;
  changes: Change[];
} {
  const sources: CatalogSource[] = [];
  const contents = new Map<string, CatalogContent>();
  const index = new PackageIndex({ catalogSources: { list: () => sources }, contents: { get: (ns, n) => contents.get(`${ns}/${n}`) }, startRevision: 100, historySize: 3 });
  const changes: Change[] = [];
  index.subscribe((c) => changes.push(c));
  return { sources, contents, index, changes };
}

describe('the watch index', () => {
  it('ADDED on first content, MODIFIED when a manifest changes, nothing when only the status changes, DELETED when gone', () => {
    const w = world();
    const cs = source('ns', 'demo');
    w.sources.push(cs);
    w.index.refresh('ns', 'demo');
    expect(w.changes).toEqual([]); // no content yet
    w.contents.set('ns/demo', base);
    w.index.refresh('ns', 'demo');
    expect(w.changes.map((c) => [c.type, c.item.m.packageName, c.revision])).toEqual([['ADDED', 'demo-operator', 101]]);
    expect(w.index.revisionOf(cs, 'demo-operator')).toBe(101);
    // the same manifests from a new load (another digest, same packages): no event, same resourceVersion
    w.contents.set('ns/demo', { ...base, origin: 'again' });
    w.index.refresh('ns', 'demo');
    // a status write: a new object, nothing shown changed
    w.sources[0] = { ...cs, status: { message: 'x' } };
    w.index.refresh('ns', 'demo');
    expect(w.changes).toHaveLength(1);
    w.contents.set('ns/demo', candidateDefault(base));
    w.index.refresh('ns', 'demo');
    expect(w.changes.map((c) => [c.type, c.revision])).toEqual([
      ['ADDED', 101],
      ['MODIFIED', 102],
    ]);
    expect(w.changes[1]!.prev?.m.defaultChannel).toBe('stable');
    // a label on the CatalogSource is shown (labels): MODIFIED
    w.sources[0] = source('ns', 'demo', { team: 'a' });
    w.index.refresh('ns', 'demo');
    expect(w.changes.at(-1)).toMatchObject({ type: 'MODIFIED', revision: 103 });
    w.contents.set('ns/demo', empty(base));
    w.index.refresh('ns', 'demo');
    expect(w.changes.at(-1)).toMatchObject({ type: 'DELETED', revision: 104, item: { revision: 104 } });
    w.contents.set('ns/demo', base);
    w.index.refresh('ns', 'demo');
    w.sources.length = 0;
    w.index.refreshAll();
    expect(w.changes.slice(-2).map((c) => [c.type, c.revision])).toEqual([
      ['ADDED', 105],
      ['DELETED', 106],
    ]);
    expect(w.index.revision).toBe(106);
  });

  it('since: the kept changes after a revision; undefined once older ones were dropped', () => {
    const w = world();
    w.sources.push(source('ns', 'demo'));
    for (const c of [base, candidateDefault(base), empty(base), base]) {
      w.contents.set('ns/demo', c);
      w.index.refresh('ns', 'demo');
    }
    expect(w.index.revision).toBe(104);
    expect(w.index.since(104)).toEqual([]);
    expect(w.index.since(102)?.map((c) => c.revision)).toEqual([103, 104]);
    expect(w.index.since(101)?.map((c) => c.revision)).toEqual([102, 103, 104]);
    expect(w.index.since(100)).toBeUndefined(); // 101 was dropped (history of 3)
  });

  it('events as a watch sees them: the namespace, the global catalog namespace, the name, the selector', () => {
    const w = world();
    w.sources.push(source('olm', 'global'));
    w.contents.set('olm/global', base);
    w.index.refresh('olm', 'global');
    const added = w.changes[0]!;
    const scope = { globalCatalogNamespace: 'olm', name: '' };
    expect(watchEvent(added, { ...scope, namespace: 'ns' })?.object.metadata).toMatchObject({ namespace: 'ns', resourceVersion: '101' });
    expect(watchEvent(added, { ...scope, namespace: '' })?.object.metadata.namespace).toBe('olm');
    expect(watchEvent(added, { ...scope, namespace: 'ns', name: 'other' })).toBeUndefined();
    w.sources.push(source('elsewhere', 'local'));
    w.contents.set('elsewhere/local', base);
    w.index.refresh('elsewhere', 'local');
    expect(watchEvent(w.changes[1]!, { ...scope, namespace: 'ns' })).toBeUndefined();
    // a label change entering and leaving a selector: ADDED, then DELETED with the object before
    const selector = parseSelector('team=a');
    w.sources[0] = source('olm', 'global', { team: 'a' });
    w.index.refresh('olm', 'global');
    expect(watchEvent(w.changes.at(-1)!, { ...scope, namespace: 'ns', selector })?.type).toBe('ADDED');
    w.sources[0] = source('olm', 'global', { team: 'b' });
    w.index.refresh('olm', 'global');
    const left = watchEvent(w.changes.at(-1)!, { ...scope, namespace: 'ns', selector });
    expect(left?.type).toBe('DELETED');
    expect(left?.object.metadata.labels.team).toBe('a');
    expect(left?.object.metadata.resourceVersion).toBe(String(w.index.revision));
  });
});

describe('watch over HTTP (the request handler)', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  async function serve(w: ReturnType<typeof world>): Promise<string> {
    const provider = packageProvider({ catalogSources: { list: () => w.sources }, contents: { get: (ns, n) => w.contents.get(`${ns}/${n}`) }, globalCatalogNamespace: 'olm', index: w.index });
    const o = {
      provider,
      requestHeader: () => undefined,
      authorize: async () => ({ allowed: true, reason: '' }),
      certPEM: '',
      keyPEM: '',
      logger: noopLogger,
      watch: { index: w.index, globalCatalogNamespace: 'olm' },
    };
    server = createServer((req, res) => void handle(o, req, res, { name: 'admin', groups: ['system:masters'], extra: {} }));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/apis/packages.operators.coreos.com/v1`;
  }

  /** Reads a watch's JSON lines until `until` says enough (or the stream ends). */
  function watch(url: string, until: (events: { type: string; object: { metadata: { name?: string; resourceVersion?: string } } }[]) => boolean): Promise<{ status: number; events: { type: string; object: { metadata: { name?: string; resourceVersion?: string; namespace?: string }; code?: number; message?: string } }[] }> {
    return new Promise((resolve, reject) => {
      const req = request(url, (res: IncomingMessage) => {
        const events: { type: string; object: { metadata: { name?: string; resourceVersion?: string } } }[] = [];
        let buf = '';
        const finish = (): void => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, events });
        };
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buf += chunk;
          let nl;
          while ((nl = buf.indexOf('\n')) >= 0) {
            events.push(JSON.parse(buf.slice(0, nl)) as (typeof events)[number]);
            buf = buf.slice(nl + 1);
          }
          if (until(events)) finish();
        });
        res.on('end', finish);
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('the list carries a resourceVersion; a watch from it sees only later changes; without one, ADDED first', async () => {
    const w = world();
    w.sources.push(source('ns', 'demo'));
    w.contents.set('ns/demo', base);
    const api = await serve(w);
    const list = (await (await fetch(`${api}/namespaces/ns/packagemanifests`)).json()) as { metadata: { resourceVersion: string }; items: { metadata: { resourceVersion: string } }[] };
    expect(list.metadata.resourceVersion).toBe('101');
    expect(list.items.map((i) => i.metadata.resourceVersion)).toEqual(['101']);
    const later = watch(`${api}/namespaces/ns/packagemanifests?watch=true&resourceVersion=101`, (e) => e.length === 1);
    const initial = await watch(`${api}/namespaces/ns/packagemanifests?watch=1`, (e) => e.length === 1);
    expect(initial.events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion])).toEqual([['ADDED', 'demo-operator', '101']]);
    w.contents.set('ns/demo', candidateDefault(base));
    w.index.refresh('ns', 'demo');
    expect((await later).events.map((e) => [e.type, e.object.metadata.resourceVersion])).toEqual([['MODIFIED', '102']]);
    // from an older resourceVersion: the kept changes replayed
    const replay = await watch(`${api}/namespaces/ns/packagemanifests?watch=true&resourceVersion=100`, (e) => e.length === 2);
    expect(replay.events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED']);
  });

  it('too old: an ERROR event 410 Expired; too new: 504; timeoutSeconds ends the stream; sendInitialEvents ends with a BOOKMARK', async () => {
    const w = world();
    w.sources.push(source('ns', 'demo'));
    const api = await serve(w);
    for (const c of [base, candidateDefault(base), empty(base), base]) {
      w.contents.set('ns/demo', c);
      w.index.refresh('ns', 'demo');
    }
    const old = await watch(`${api}/packagemanifests?watch=true&resourceVersion=100`, () => false);
    expect(old.events).toEqual([
      { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 100 (104)', reason: 'Expired', code: 410 } },
    ]);
    const future = await fetch(`${api}/packagemanifests?watch=true&resourceVersion=200`);
    expect(future.status).toBe(504);
    expect(((await future.json()) as { message: string }).message).toBe('Timeout: Too large resource version: 200, current: 104');
    const timed = await watch(`${api}/packagemanifests?watch=true&timeoutSeconds=1`, () => false);
    expect(timed.events.map((e) => e.type)).toEqual(['ADDED']);
    const initial = await watch(`${api}/packagemanifests?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`, (e) => e.length === 2);
    expect(initial.events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    expect(initial.events[1]!.object.metadata).toEqual({ resourceVersion: '104', annotations: { 'k8s.io/initial-events-end': 'true' } });
  });

  it('Table watch events: upstream’s columns, one row each', async () => {
    const w = world();
    w.sources.push(source('ns', 'demo'));
    w.contents.set('ns/demo', base);
    const api = await serve(w);
    const res = await new Promise<string>((resolve, reject) => {
      const req = request(`${api}/namespaces/ns/packagemanifests?watch=true`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } }, (r) => {
        r.setEncoding('utf8');
        r.once('data', (chunk: string) => {
          req.destroy();
          resolve(chunk);
        });
      });
      req.on('error', reject);
      req.end();
    });
    const ev = JSON.parse(res.trim()) as { type: string; object: { kind: string; metadata: { resourceVersion: string }; rows: { cells: string[] }[] } };
    expect(ev.type).toBe('ADDED');
    expect(ev.object.kind).toBe('Table');
    expect(ev.object.metadata.resourceVersion).toBe('101');
    expect(ev.object.rows.map((r) => r.cells.slice(0, 2))).toEqual([['demo-operator', 'demo']]);
  });
});

describe('a registry that becomes unreachable (upstream provider/registry.go syncSourceState)', () => {
  it('spec.address TRANSIENT_FAILURE or SHUTDOWN: its packages go (DELETED), READY again: back (ADDED); spec.image keeps serving', () => {
    const w = world();
    const provider = packageProvider({ catalogSources: { list: () => w.sources }, contents: { get: (ns, n) => w.contents.get(`${ns}/${n}`) }, globalCatalogNamespace: 'global', index: w.index } as Parameters<typeof packageProvider>[0]);
    const withState = (state: string): CatalogSource => ({ ...source('ns', 'remote'), spec: { sourceType: 'grpc', address: 'registry:50051' }, status: { connectionState: { address: 'registry:50051', lastObservedState: state } } } as CatalogSource);
    w.sources.push(withState('READY'));
    w.contents.set('ns/remote', base);
    w.index.refresh('ns', 'remote');
    expect(provider.list('ns').map((p) => p.metadata.name)).toEqual(['demo-operator']);
    for (const down of ['TRANSIENT_FAILURE', 'SHUTDOWN']) {
      w.sources[0] = withState(down);
      w.index.refresh('ns', 'remote');
      expect(provider.list('ns'), down).toEqual([]);
      expect(provider.get('ns', 'demo-operator'), down).toBeUndefined();
      w.sources[0] = withState('READY');
      w.index.refresh('ns', 'remote');
      expect(provider.list('ns').map((p) => p.metadata.name)).toEqual(['demo-operator']);
    }
    expect(w.changes.map((c) => c.type)).toEqual(['ADDED', 'DELETED', 'ADDED', 'DELETED', 'ADDED']);
    // CONNECTING (e.g. a reconnect attempt) changes nothing, as upstream's inert states
    w.sources[0] = withState('CONNECTING');
    w.index.refresh('ns', 'remote');
    expect(provider.list('ns')).toHaveLength(1);
    // spec.image: the content is held in process (upstream's registry Pod keeps serving its image)
    w.sources[0] = { ...withState('TRANSIENT_FAILURE'), spec: { sourceType: 'grpc', image: 'example.com/demo:1' } } as CatalogSource;
    expect(provider.list('ns')).toHaveLength(1);
  });
});
