import type { Logger } from '../../shared/observability/index.ts';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Condition } from '../../../api/meta/v1.ts';
import type { ClusterCatalog } from '../../../api/v1/index.ts';
import { poll } from '../../../test/support/net.ts';
import type { CatalogContentCache } from '../index.ts';
import { watchCaPool } from '../../shared/image/index.ts';
import { noopLogger } from '../../shared/toolkit/index.ts';
import { DEFAULT_TIMEOUT_MS, HttpContentClient, allEndpoint, validateCatalog } from './client.ts';

/** The whole message, exactly. */
const exactly = (s: string): RegExp => new RegExp(`^${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

const jsonl = (...blobs: unknown[]): string => blobs.map((b) => `${JSON.stringify(b)}\n`).join('');
const catalogBody = (pkg: string, version: string): string =>
  jsonl(
    { schema: 'olm.package', name: pkg, defaultChannel: 'stable' },
    { schema: 'olm.channel', package: pkg, name: 'stable', entries: [{ name: `${pkg}.v${version}` }] },
    { schema: 'olm.bundle', package: pkg, name: `${pkg}.v${version}`, image: `img/${pkg}:${version}`, properties: [{ type: 'olm.package', value: { packageName: pkg, version } }] },
  );

const served: Condition[] = [{ type: 'Serving', status: 'True', reason: 'Available', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }];

function catalog(name: string, ref: string | undefined, base: string | undefined, conditions = served): ClusterCatalog {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name },
    spec: { source: { type: 'Image', image: { ref: 'registry/catalog:latest' } } },
    status: {
      conditions,
      ...(ref !== undefined && { resolvedSource: { type: 'Image' as const, image: { ref } } }),
      ...(base !== undefined && { urls: { base } }),
    },
  };
}

/** A catalogd-like server: `routes[path]` answers; requests are counted per path. */
interface FakeCatalogd {
  readonly base: (name: string) => string;
  readonly hits: Map<string, number>;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  close(): Promise<void>;
  readonly port: number;
}

async function startServer(server: Server = createHttpServer(), scheme = 'http'): Promise<FakeCatalogd> {
  const fake: FakeCatalogd = {
    base: (name) => `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}/catalogs/${name}`,
    hits: new Map(),
    handler: (_req, res) => res.writeHead(404).end('404 Not Found'),
    close: () => new Promise((r) => server.close(() => r())),
    get port() {
      return (server.address() as AddressInfo).port;
    },
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    fake.hits.set(req.url ?? '', (fake.hits.get(req.url ?? '') ?? 0) + 1);
    fake.handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return fake;
}

const serve = (bodies: Record<string, string>) => (req: IncomingMessage, res: ServerResponse) => {
  const body = bodies[req.url ?? ''];
  if (body === undefined) res.writeHead(404).end('404 Not Found');
  else res.writeHead(200, { 'content-type': 'application/jsonl' }).end(body);
};

const clients: HttpContentClient[] = [];
const newClient = (opts: ConstructorParameters<typeof HttpContentClient>[0] = {}): HttpContentClient => {
  const c = new HttpContentClient(opts);
  clients.push(c);
  return c;
};
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

let server: FakeCatalogd;
/** Until the server has received `name`'s first request for its content (the fetch is under way). */
const asked = (name: string): Promise<boolean> => poll(() => (server.hits.get(`/catalogs/${name}/api/v1/all`) ?? 0) > 0, { timeoutMs: 5000, intervalMs: 5 });
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});

describe('upstream messages', () => {
  it.each([
    ['no conditions', catalog('c1', 'r@sha256:1', 'http://x', []), 'catalog "c1" is not being served'],
    [
      'Serving False',
      catalog('c1', 'r@sha256:1', 'http://x', [{ ...served[0]!, status: 'False', reason: 'Unavailable' }]),
      'catalog "c1" is not being served',
    ],
    ['nil resolvedSource', catalog('c1', undefined, 'http://x'), 'error: catalog "c1" has a nil status.resolvedSource value'],
    [
      'nil resolvedSource.image',
      { ...catalog('c1', undefined, 'http://x'), status: { conditions: served, resolvedSource: { type: 'Image' } } } as unknown as ClusterCatalog,
      'error: catalog "c1" has a nil status.resolvedSource.image value',
    ],
  ])('%s', async (_name, cat, want) => {
    expect(() => validateCatalog(cat)).toThrow(want);
    const client = newClient();
    await expect(client.getPackage(cat, 'p')).rejects.toThrow(exactly(want));
    await expect(client.populateCache(cat)).rejects.toThrow(exactly(want));
    expect(client.cached('c1')).toBeUndefined(); // validation failures are not cached
    expect(client.fetches).toBe(0);
  });

  it('caches a nil status.urls as the populate error (upstream checks it in doRequest)', async () => {
    const client = newClient({ populateOnDemand: false });
    const cat = catalog('c1', 'r@sha256:1', undefined);
    await expect(client.populateCache(cat)).rejects.toThrow(exactly('error: catalog "c1" has a nil status.urls value'));
    await expect(client.getPackage(cat, 'p')).rejects.toThrow(
      exactly('error retrieving cache for catalog "c1": error: catalog "c1" has a nil status.urls value'),
    );
  });

  it('says the cache is not found when nothing is cached and populating on demand is off (upstream)', async () => {
    const client = newClient({ populateOnDemand: false });
    await expect(client.getPackage(catalog('c1', 'r@sha256:1', server.base('c1')), 'p')).rejects.toThrow(
      exactly('cache for catalog "c1" not found'),
    );
    expect(client.fetches).toBe(0);
  });

  it('forms the endpoint like url.JoinPath, and reports a base that is not a URL', () => {
    expect(allEndpoint('https://catalogd.svc/catalogs/c1')).toBe('https://catalogd.svc/catalogs/c1/api/v1/all');
    expect(allEndpoint('https://catalogd.svc/catalogs/c1/')).toBe('https://catalogd.svc/catalogs/c1/api/v1/all');
    expect(() => allEndpoint('::')).toThrow(/^error forming catalogd API endpoint: /);
  });
});

describe('populate and read', () => {
  it('fetches /api/v1/all under status.urls.base and serves packages', async () => {
    server.handler = serve({ '/catalogs/c1/api/v1/all': catalogBody('foo', '1.0.0') });
    const client = newClient();
    const cat = catalog('c1', 'r@sha256:1', server.base('c1'));
    const index = await client.populateCache(cat);
    expect(index.packageNames()).toEqual(['foo']);
    const foo = await client.getPackage(cat, 'foo');
    expect(foo.bundles.map((b) => b.image)).toEqual(['img/foo:1.0.0']);
    expect(await client.getPackage(cat, 'absent')).toEqual({ packages: [], channels: [], bundles: [], deprecations: [] });
    expect(client.fetches).toBe(1);
  });

  it('with a cache directory (--cache-path): the lines go to a file there, unlinked at once; the directory is emptied first; a body that fails leaves nothing', async () => {
    const root = await mkdtemp(join(tmpdir(), 'content-cache-'));
    try {
      const dir = join(root, 'catalogs');
      await mkdir(dir);
      await writeFile(join(dir, 'left-by-a-killed-process.jsonl'), 'x');
      server.handler = serve({ '/catalogs/c1/api/v1/all': catalogBody('foo', '1.0.0'), '/catalogs/bad/api/v1/all': `${catalogBody('bar', '1.0.0')}{"schema":1}\n` });
      const client = newClient({ cacheDir: dir });
      const cat = catalog('c1', 'r@sha256:1', server.base('c1'));
      const index = await client.populateCache(cat);
      expect(index.retainedBytes).toBe(0);
      expect((await client.getPackage(cat, 'foo')).bundles.map((b) => b.image)).toEqual(['img/foo:1.0.0']);
      expect(await readdir(dir)).toEqual([]);
      await expect(client.populateCache(catalog('bad', 'r@sha256:2', server.base('bad')))).rejects.toThrow(/^error parsing catalog contents: /);
      expect(await readdir(dir)).toEqual([]);

      const blocked = join(root, 'not-a-dir');
      await writeFile(blocked, 'x');
      const other = newClient({ cacheDir: join(blocked, 'catalogs') });
      await expect(other.populateCache(cat)).rejects.toThrow(/^error creating temporary directory to unpack catalog metadata: .*ENOTDIR/);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('populates on demand once, then reads from the cache', async () => {
    server.handler = serve({ '/catalogs/c2/api/v1/all': catalogBody('foo', '1.0.0') });
    server.hits.clear();
    const client = newClient();
    const cat = catalog('c2', 'r@sha256:1', server.base('c2'));
    for (let i = 0; i < 3; i++) expect((await client.getPackage(cat, 'foo')).packages).toEqual([{ name: 'foo', defaultChannel: 'stable' }]);
    expect(server.hits.get('/catalogs/c2/api/v1/all')).toBe(1);
  });

  it('keeps one version per catalog: a new ref replaces, the old ref is then not found', async () => {
    const bodies: Record<string, string> = { '/catalogs/c3/api/v1/all': catalogBody('foo', '1.0.0') };
    server.handler = serve(bodies);
    const client = newClient({ populateOnDemand: false });
    const v1 = catalog('c3', 'r@sha256:1', server.base('c3'));
    const v2 = catalog('c3', 'r@sha256:2', server.base('c3'));
    await client.populateCache(v1);
    bodies['/catalogs/c3/api/v1/all'] = catalogBody('foo', '2.0.0');
    await expect(client.getPackage(v2, 'foo')).rejects.toThrow(exactly('cache for catalog "c3" not found'));
    await client.populateCache(v2);
    expect((await client.getPackage(v2, 'foo')).bundles[0]?.image).toBe('img/foo:2.0.0');
    await expect(client.getPackage(v1, 'foo')).rejects.toThrow(exactly('cache for catalog "c3" not found'));
    expect(client.cached('c3')?.ref).toBe('r@sha256:2');
  });

  it('streams the body: lines cut across many small writes arrive whole', async () => {
    const body = Buffer.from(jsonl(...Array.from({ length: 200 }, (_, i) => ({ schema: 'olm.package', name: `p${i}`, description: 'x'.repeat(i * 7) }))));
    server.handler = (_req, res) => {
      res.writeHead(200);
      let at = 0;
      const step = (): void => {
        if (at >= body.length) return void res.end();
        res.write(body.subarray(at, (at += 997)), () => setImmediate(step));
      };
      step();
    };
    const client = newClient();
    const cat = catalog('c4', 'r@sha256:1', server.base('c4'));
    const index = await client.populateCache(cat);
    expect(index.packageNames()).toHaveLength(200);
    expect(index.jsonlBytes).toBe(body.length);
    expect((await client.getPackage(cat, 'p199')).packages).toEqual([{ name: 'p199', defaultChannel: '' }]);
  });

  it('shares one fetch among concurrent populates and reads of the same ref', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    server.hits.clear();
    server.handler = (_req, res) => void gate.then(() => res.writeHead(200).end(catalogBody('foo', '1.0.0')));
    const client = newClient();
    const cat = catalog('c5', 'r@sha256:1', server.base('c5'));
    const all = Promise.all([
      client.populateCache(cat),
      client.populateCache(cat),
      client.getPackage(cat, 'foo'),
      client.getPackage(cat, 'foo'),
      client.syncCatalog('c5', cat),
    ]);
    await asked('c5');
    release();
    const [a, b, p1, p2] = await all;
    expect(a).toBe(b);
    expect(p1).toBe(p2);
    expect(server.hits.get('/catalogs/c5/api/v1/all')).toBe(1);
    expect(client.fetches).toBe(1);
  });

  it('a caller that stops waiting does not stop the shared fetch', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    server.handler = (_req, res) => void gate.then(() => res.writeHead(200).end(catalogBody('foo', '1.0.0')));
    const client = newClient();
    const cat = catalog('c6', 'r@sha256:1', server.base('c6'));
    const ac = new AbortController();
    const impatient = client.getPackage(cat, 'foo', ac.signal);
    const patient = client.getPackage(cat, 'foo');
    ac.abort(new Error('gave up'));
    await expect(impatient).rejects.toThrow('gave up');
    release();
    expect((await patient).packages).toHaveLength(1);
    expect(client.fetches).toBe(1);
  });

  it('a fetch for an old ref that ends after a newer one does not overwrite it', async () => {
    let releaseOld!: () => void;
    const gate = new Promise<void>((r) => (releaseOld = r));
    let n = 0;
    server.handler = (_req, res) => {
      n++;
      if (n === 1) void gate.then(() => res.writeHead(200).end(catalogBody('foo', '1.0.0')));
      else res.writeHead(200).end(catalogBody('foo', '2.0.0'));
    };
    const client = newClient({ populateOnDemand: false });
    const old = client.populateCache(catalog('c7', 'r@sha256:1', server.base('c7')));
    await asked('c7');
    await client.populateCache(catalog('c7', 'r@sha256:2', server.base('c7')));
    releaseOld();
    await old;
    expect(client.cached('c7')?.ref).toBe('r@sha256:2');
  });
});

describe('error caching', () => {
  it('caches a transport error for the catalog + ref and returns it on later reads', async () => {
    const dead = await startServer();
    const port = dead.port;
    const base = dead.base('c1');
    await dead.close();
    const client = newClient();
    const cat = catalog('c1', 'r@sha256:1', base);
    const want = `error performing request: Get "http://127.0.0.1:${port}/catalogs/c1/api/v1/all": dial tcp 127.0.0.1:${port}: connect: connection refused`;
    await expect(client.populateCache(cat)).rejects.toThrow(exactly(want));
    expect(client.cached('c1')?.error?.message).toBe(want);
    // Later reads return the cached error without fetching again.
    await expect(client.getPackage(cat, 'foo')).rejects.toThrow(exactly(`error retrieving cache for catalog "c1": ${want}`));
    await expect(client.getPackage(cat, 'foo')).rejects.toThrow(exactly(`error retrieving cache for catalog "c1": ${want}`));
    expect(client.fetches).toBe(1);
    // Another ref is another cache key: fetched again.
    await expect(client.getPackage(catalog('c1', 'r@sha256:2', base), 'foo')).rejects.toThrow(/^error retrieving cache for catalog "c1": error performing request/);
    expect(client.fetches).toBe(2);
  });

  it('does not cache a non-200 answer', async () => {
    let status = 404;
    server.handler = (_req, res) => (status === 200 ? res.writeHead(200).end(catalogBody('foo', '1.0.0')) : res.writeHead(status).end('404 Not Found'));
    const client = newClient({ populateOnDemand: false });
    const cat = catalog('c2', 'r@sha256:1', server.base('c2'));
    await expect(client.populateCache(cat)).rejects.toThrow(exactly('error: received unexpected response status code 404'));
    expect(client.cached('c2')).toBeUndefined();
    await expect(client.getPackage(cat, 'foo')).rejects.toThrow(exactly('cache for catalog "c2" not found'));
    status = 500;
    await expect(client.syncCatalog('c2', cat)).rejects.toThrow(
      exactly('error populating cache for catalog "c2": error: received unexpected response status code 500'),
    );
    status = 200;
    await client.syncCatalog('c2', cat);
    expect((await client.getPackage(cat, 'foo')).packages).toHaveLength(1);
  });

  it('on demand, a non-200 leaves nothing cached and the next read fetches again', async () => {
    let status = 503;
    server.handler = (_req, res) => (status === 200 ? res.writeHead(200).end(catalogBody('foo', '1.0.0')) : res.writeHead(status).end());
    const client = newClient();
    const cat = catalog('c3', 'r@sha256:1', server.base('c3'));
    await expect(client.getPackage(cat, 'foo')).rejects.toThrow(exactly('cache for catalog "c3" not found'));
    status = 200;
    expect((await client.getPackage(cat, 'foo')).packages).toHaveLength(1);
    expect(client.fetches).toBe(2);
  });

  it('a non-200 keeps what was cached before', async () => {
    let status = 200;
    server.handler = (_req, res) => (status === 200 ? res.writeHead(200).end(catalogBody('foo', '1.0.0')) : res.writeHead(status).end());
    const client = newClient();
    const cat = catalog('c4', 'r@sha256:1', server.base('c4'));
    await client.populateCache(cat);
    status = 404;
    await expect(client.populateCache(cat)).rejects.toThrow('status code 404');
    expect((await client.getPackage(cat, 'foo')).packages).toHaveLength(1);
  });

  it('caches a body that does not parse', async () => {
    server.handler = (_req, res) => res.writeHead(200).end('{"schema":"olm.package","name":"ok"}\n{"schema":"olm.package","name":12345}\n');
    const client = newClient();
    const cat = catalog('c5', 'r@sha256:1', server.base('c5'));
    const want = 'error parsing catalog contents: json: cannot unmarshal number into Go struct field Meta.name of type string';
    await expect(client.populateCache(cat)).rejects.toThrow(exactly(want));
    await expect(client.getPackage(cat, 'ok')).rejects.toThrow(exactly(`error retrieving cache for catalog "c5": ${want}`));
    expect(client.fetches).toBe(1);
  });

  it('times out the whole request (upstream: 5 minutes) and caches that', async () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(5 * 60 * 1000); // upstream's http.Client timeout since 0227f92a (was 10 s)
    server.handler = () => {}; // never answers
    const client = newClient({ timeoutMs: 150 });
    const cat = catalog('c6', 'r@sha256:1', server.base('c6'));
    await expect(client.populateCache(cat)).rejects.toThrow(
      exactly(
        `error performing request: Get "${server.base('c6')}/api/v1/all": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
      ),
    );
    expect(client.cached('c6')?.error?.message).toBe(
      `error performing request: Get "${server.base('c6')}/api/v1/all": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
    );
    expect(client.cached('c6')?.index).toBeUndefined();
  });
});

describe('ClusterCatalog events (upstream clustercatalog_controller)', () => {
  it('populates a new ref, skips a cached one, repopulates a cached error, removes on delete', async () => {
    let up = false;
    server.hits.clear();
    server.handler = (_req, res) => (up ? res.writeHead(200).end(catalogBody('foo', '1.0.0')) : res.destroy());
    const client = newClient();
    const cat = catalog('ev', 'r@sha256:1', server.base('ev'));
    await client.syncCatalog('ev', catalog('ev', undefined, server.base('ev'))); // no ref yet: nothing
    expect(client.fetches).toBe(0);
    await expect(client.syncCatalog('ev', cat)).rejects.toThrow(/^error populating cache for catalog "ev": error performing request: /);
    expect(client.cached('ev')?.error?.message).toMatch(/^error performing request: /);
    up = true;
    await client.syncCatalog('ev', cat); // cached error: populated again
    expect(client.cached('ev')?.error).toBeUndefined();
    expect(client.cached('ev')?.index?.packageNames()).toEqual(['foo']);
    await client.syncCatalog('ev', cat); // cached content: nothing to do
    expect(client.fetches).toBe(2);
    await client.syncCatalog('ev', undefined);
    expect(client.cached('ev')).toBeUndefined();
  });

  it('catalogChanged retries a failed populate with backoff until it succeeds; catalogDeleted forgets', async () => {
    let failures = 4;
    server.handler = (_req, res) => (failures-- > 0 ? res.writeHead(404).end() : res.writeHead(200).end(catalogBody('foo', '1.0.0')));
    const levels: string[] = [];
    const at = (level: string) => (msg: string) => void (msg === 'catalog content not cached' && levels.push(level));
    const logger: Logger = { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), child: () => logger };
    const client: CatalogContentCache & HttpContentClient = newClient({ retryBaseMs: 10, logger });
    const cat = catalog('bg', 'r@sha256:1', server.base('bg'));
    client.catalogChanged(cat);
    await poll(() => client.cached('bg')?.index !== undefined, { timeoutMs: 3000, intervalMs: 10 });
    expect(client.cached('bg')?.index?.packageNames()).toEqual(['foo']);
    expect(client.fetches).toBe(5);
    // the first failures in a row are routine (info); a run of them is an error
    expect(levels).toEqual(['info', 'info', 'info', 'error']);
    client.catalogDeleted('bg');
    expect(client.cached('bg')).toBeUndefined();
  });

  it('a catalog removed while its fetch runs is not cached when the fetch ends', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    server.handler = (_req, res) => void gate.then(() => res.writeHead(200).end(catalogBody('foo', '1.0.0')));
    const client = newClient();
    const fetch = client.populateCache(catalog('gone', 'r@sha256:1', server.base('gone')));
    await asked('gone');
    client.remove('gone');
    release();
    await fetch;
    expect(client.cached('gone')).toBeUndefined();
  });
});

describe('https with CA certificates (--catalogd-cas-dir)', () => {
  let dir: string;
  let tlsServer: FakeCatalogd;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'contentclient-ca-'));
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=catalogd', '-addext', 'subjectAltName=IP:127.0.0.1',
        '-keyout', join(dir, 'tls.key'), '-out', join(dir, 'tls.crt')],
      { stdio: 'ignore' },
    );
    tlsServer = await startServer(createHttpsServer({ key: await readFile(join(dir, 'tls.key')), cert: await readFile(join(dir, 'tls.crt')) }), 'https');
    tlsServer.handler = serve({ '/catalogs/tls/api/v1/all': catalogBody('foo', '1.0.0') });
  });
  afterAll(async () => {
    await tlsServer.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('trusts the given CA', async () => {
    const client = newClient({ caCerts: [await readFile(join(dir, 'tls.crt'))] });
    const cat = catalog('tls', 'r@sha256:1', tlsServer.base('tls'));
    expect((await client.getPackage(cat, 'foo')).packages).toHaveLength(1);
  });

  it('a watched CA directory (upstream catalogd-ca-pool): a reloaded pool is trusted by the next fetch', async () => {
    const casDir = await mkdtemp(join(tmpdir(), 'contentclient-cas-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=other', '-keyout', join(casDir, '.other.key'), '-out', join(casDir, 'other.crt')], {
      stdio: 'ignore',
    });
    await rm(join(casDir, '.other.key'));
    let reloaded!: () => void;
    const reload = new Promise<void>((r) => (reloaded = r));
    const pool = await watchCaPool({ dir: casDir, env: {}, logger: noopLogger, exit: () => expect.fail('no exit expected'), onReload: () => reloaded() });
    try {
      const client = newClient({ caCerts: pool });
      const cat = catalog('tls', 'r@sha256:1', tlsServer.base('tls'));
      await expect(client.populateCache(cat)).rejects.toThrow('certificate signed by unknown authority');
      await writeFile(join(casDir, 'ca.crt'), await readFile(join(dir, 'tls.crt')));
      await reload;
      expect(pool.generation).toBe(2);
      expect((await client.populateCache(catalog('tls', 'r@sha256:2', tlsServer.base('tls')))).packageNames()).toContain('foo');
    } finally {
      pool.stop();
      await rm(casDir, { recursive: true, force: true });
    }
  });

  it('holds to upstream’s default TLS profile: a catalogd offering only CBC suites (not in intermediate) is refused', async () => {
    const key = await readFile(join(dir, 'tls.key'));
    const cert = await readFile(join(dir, 'tls.crt'));
    const cbcOnly = await startServer(createHttpsServer({ key, cert, maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-SHA:ECDHE-RSA-AES256-SHA' }), 'https');
    const aead = await startServer(createHttpsServer({ key, cert, maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' }), 'https');
    try {
      cbcOnly.handler = aead.handler = serve({ '/catalogs/tls/api/v1/all': catalogBody('foo', '1.0.0') });
      const client = newClient({ caCerts: [cert] });
      await expect(client.populateCache(catalog('tls', 'r@sha256:1', cbcOnly.base('tls')))).rejects.toThrow(exactly(`error performing request: Get "${cbcOnly.base('tls')}/api/v1/all": remote error: tls: handshake failure`));
      expect((await client.getPackage(catalog('tls2', 'r@sha256:1', aead.base('tls')), 'foo')).packages).toHaveLength(1);
    } finally {
      await cbcOnly.close();
      await aead.close();
    }
  });

  it('without it, fails like Go with an unknown authority (and caches that)', async () => {
    const client = newClient();
    const cat = catalog('tls', 'r@sha256:1', tlsServer.base('tls'));
    await expect(client.populateCache(cat)).rejects.toThrow(
      exactly(`error performing request: Get "${tlsServer.base('tls')}/api/v1/all": tls: failed to verify certificate: x509: certificate signed by unknown authority`),
    );
  });
});

describe('proxy from the environment (Go ProxyFromEnvironment)', () => {
  it('tunnels through HTTP_PROXY, but never for loopback hosts', async () => {
    const proxy = createHttpServer();
    const tunnels: string[] = [];
    proxy.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      tunnels.push(req.url ?? '');
      const upstream = netConnect(server.port, '127.0.0.1', () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    vi.stubEnv('HTTP_PROXY', `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
    vi.stubEnv('NO_PROXY', '');
    try {
      server.handler = (_req, res) => res.writeHead(200).end(catalogBody('foo', '1.0.0'));
      const client = newClient();
      const remote = catalog('px', 'r@sha256:1', `http://catalogd.example.test:${server.port}/catalogs/px`);
      expect((await client.getPackage(remote, 'foo')).packages).toHaveLength(1);
      expect(tunnels).toEqual([`catalogd.example.test:${server.port}`]);
      const local = catalog('lo', 'r@sha256:1', server.base('lo'));
      expect((await client.getPackage(local, 'foo')).packages).toHaveLength(1);
      expect(tunnels).toHaveLength(1);
    } finally {
      vi.unstubAllEnvs();
      proxy.closeAllConnections();
      await new Promise((r) => proxy.close(r));
    }
  });

  it("words a proxy's failures as Go does: proxyconnect when the proxy refuses, its status text when it refuses the tunnel", async () => {
    const closed = createHttpServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const refusing = createHttpServer();
    refusing.on('connect', (_req: IncomingMessage, socket: Socket) => void socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', () => r()));
    vi.stubEnv('NO_PROXY', '');
    try {
      const url = `http://catalogd.example.test:${server.port}/catalogs/px`;
      vi.stubEnv('HTTP_PROXY', `http://127.0.0.1:${deadPort}`);
      await expect(newClient().populateCache(catalog('px', 'r@sha256:1', url))).rejects.toThrow(
        exactly(`error performing request: Get "${url}/api/v1/all": proxyconnect tcp: dial tcp 127.0.0.1:${deadPort}: connect: connection refused`),
      );
      vi.stubEnv('HTTP_PROXY', `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`);
      await expect(newClient().populateCache(catalog('px', 'r@sha256:2', url))).rejects.toThrow(exactly(`error performing request: Get "${url}/api/v1/all": Bad Gateway`));
    } finally {
      vi.unstubAllEnvs();
      refusing.closeAllConnections();
      await new Promise((r) => refusing.close(r));
    }
  });
});
