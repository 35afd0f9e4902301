// The package server (internal/classic/packageserver) in process beside the CatalogSource controller, registered with
// the real API server as an aggregated API (an APIService whose Service is ExternalName `localhost`, so the
// aggregator dials this process; no insecureSkipTLSVerify: the package server sets the caBundle of the certificate it
// keeps in a Secret), read through the API server as a user would: list, get, label and field selectors, Table
// output, the global catalog namespace; the server's own front-proxy authentication and SubjectAccessReview
// authorization, asked directly with the API server's front-proxy client certificate; its certificate re-issued when
// the Secret is deleted or about to expire, and served without a restart.
import { spawn } from 'node:child_process';
import { X509Certificate, createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { connect } from 'node:tls';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessPackageServer, type InProcessPackageServer } from '../../support/package-server-in-process.ts';
import * as ops from '../../../api/operators/index.ts';
import { createSignedServingPair, generateCA } from '../../../internal/classic/csv/index.ts';
import { packageServerSetup, type PackageManifest } from '../../../internal/classic/packageserver/index.ts';
import { KubeClient } from '../../../internal/shared/kube/index.ts';
import { createMetrics } from '../../../internal/shared/observability/index.ts';
import { demoWithStableV4, pushCatalogDir } from '../../support/demo.ts';
import { adminKube, controlPlane, registry } from '../../support/env.ts';
import { capturedLogger, inProcessManagerOptions, runParts } from '../../support/in-process.ts';
import { TestKube } from '../../support/kube.ts';
import { waitFor } from '../../support/net.ts';
import { frontProxyAgent, PACKAGES_APISERVICE, PACKAGES_SERVICE, unregisterPackageServer } from '../../support/package-server.ts';
import { binaries } from '../../support/binaries.ts';
import { OpmServe } from '../../support/opm.ts';
import { UPSTREAM_PACKAGEMANIFEST_SOURCES, upstreamPackageManifestCatalog, upstreamPackageManifestsDir } from '../../support/testdata.ts';
import { runCaptured } from '../../../internal/cli/index.ts';

const API = '/apis/packages.operators.coreos.com/v1';
let ns: string;
let global: string;
let port: number;
let server: InProcessPackageServer | undefined;
const kube = (): TestKube => adminKube();
const pmPath = (namespace: string, name = ''): string => `${API}/namespaces/${namespace}/packagemanifests${name ? `/${name}` : ''}`;

const pushDemo = (tag: string, dir?: string): Promise<string> => pushCatalogDir(registry().host, `classic/${tag}`, dir);

async function catalogSource(namespace: string, name: string, spec: ops.CatalogSourceSpec, labels: Record<string, string> = {}): Promise<void> {
  const obj = { apiVersion: ops.V1alpha1, kind: ops.CatalogSourceKind, metadata: { name, namespace, labels }, spec };
  await kube().must(kube().request('POST', TestKube.path(ops.V1alpha1, ops.CatalogSourceResource, undefined, namespace), obj));
  await waitFor(`CatalogSource ${namespace}/${name} READY`, async () => {
    const cs = await kube().must<ops.CatalogSource>(kube().request('GET', TestKube.path(ops.V1alpha1, ops.CatalogSourceResource, name, namespace)));
    return cs.status?.connectionState?.lastObservedState === ops.ConnectionStateReady;
  });
}

beforeAll(async () => {
  server = await startInProcessPackageServer('classic-pkg');
  ns = server.ns;
  global = server.global;
  port = server.port;
  await pushDemo('pkg:v1');
  const image = `${registry().host}/classic/pkg:v1`;
  await catalogSource(ns, 'demo', { sourceType: 'grpc', image, displayName: 'Demo Catalog', publisher: 'OLM demo team' }, { team: 'demo' });
  await catalogSource(global, 'global-demo', { sourceType: 'grpc', image, displayName: 'Global Catalog' });
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

type List = { kind: string; items: PackageManifest[] };

describe('PackageManifests through the API server (aggregated)', () => {
  it('discovery lists packagemanifests (get, list, watch)', async () => {
    const doc = await kube().must<{ resources: { name: string; namespaced: boolean; kind: string; verbs: string[] }[] }>(kube().request('GET', API));
    expect(doc.resources).toEqual([
      { name: 'packagemanifests', singularName: 'packagemanifest', namespaced: true, kind: 'PackageManifest', verbs: ['get', 'list', 'watch'] },
      { name: 'packagemanifests/icon', singularName: '', namespaced: true, kind: 'PackageManifest', verbs: ['get'] },
    ]);
  });

  it('the API server’s aggregated discovery (what kubectl reads) holds the group, fresh', async () => {
    // The aggregator asks for /apis/<group>/<version> as system:kube-aggregator without groups: served only because
    // the package server, as the generic API server, adds system:authenticated (system:discovery's binding).
    type Discovery = { items: { metadata: { name: string }; versions: { version: string; freshness?: string; resources: { resource: string }[] }[] }[] };
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
    let group: Discovery['items'][number] | undefined;
    const dispatcher = new Agent({ connect: { ca: controlPlane().caPem } });
    try {
      await waitFor('packages.operators.coreos.com/v1 Current in aggregated discovery', async () => {
        const res = await request(`${controlPlane().server}/apis`, { dispatcher, headers: { authorization: `Bearer ${controlPlane().adminToken}`, accept } });
        group = ((await res.body.json()) as Discovery).items.find((g) => g.metadata.name === 'packages.operators.coreos.com');
        return group?.versions[0]?.freshness === 'Current';
      });
    } finally {
      await dispatcher.close();
    }
    expect(group?.versions[0]?.resources.map((r) => r.resource)).toEqual(['packagemanifests']);
  });

  it('list: the namespace’s packages, then the global catalog namespace’s, each computed as upstream', async () => {
    const list = await kube().must<List>(kube().request('GET', pmPath(ns)));
    expect(list.kind).toBe('PackageManifestList');
    expect(list.items.map((p) => [p.metadata.name, p.metadata.namespace, p.status.catalogSource, p.status.catalogSourceNamespace])).toEqual([
      ['demo-operator', ns, 'demo', ns],
      ['demo-operator', ns, 'global-demo', global],
    ]);
    const pm = list.items[0]!;
    expect(pm.metadata.labels).toEqual({
      team: 'demo',
      catalog: 'demo',
      'catalog-namespace': ns,
      provider: 'OLM demo',
      'provider-url': '',
      'operatorframework.io/os.linux': 'supported',
      'operatorframework.io/arch.amd64': 'supported',
    });
    expect(pm.metadata.creationTimestamp).toMatch(/^\d{4}-/);
    expect(pm.status).toMatchObject({
      catalogSource: 'demo',
      catalogSourceDisplayName: 'Demo Catalog',
      catalogSourcePublisher: 'OLM demo team',
      catalogSourceNamespace: ns,
      provider: { name: 'OLM demo' },
      packageName: 'demo-operator',
      defaultChannel: 'stable',
    });
    expect(pm.status.channels.map((c) => [c.name, c.currentCSV])).toEqual([
      ['candidate', 'demo-operator.v0.4.0'],
      ['stable', 'demo-operator.v0.3.0'],
    ]);
    const stable = pm.status.channels[1]!;
    expect(stable.entries).toEqual([
      { name: 'demo-operator.v0.3.0', version: '0.3.0' },
      { name: 'demo-operator.v0.2.0', version: '0.2.0', deprecation: { message: expect.stringMatching(/^demo-operator.v0.2.0 is deprecated/) } },
      { name: 'demo-operator.v0.1.0', version: '0.1.0' },
    ]);
    expect(stable.currentCSVDesc).toMatchObject({
      displayName: 'Demo Operator',
      version: '0.3.0',
      provider: { name: 'OLM demo' },
      installModes: expect.arrayContaining([{ type: 'AllNamespaces', supported: true }]),
      customresourcedefinitions: { owned: [expect.objectContaining({ name: 'greetings.demo.olm.dev', kind: 'Greeting' })] },
      apiservicedefinitions: {},
      maturity: 'stable',
      minKubeVersion: '1.28.0',
    });
    expect(stable.currentCSVDesc.relatedImages).toEqual(expect.arrayContaining(['registry.example.com/olm-demo/demo-operator:v0.3.0']));
    expect(stable.currentCSVDesc.annotations?.capabilities).toBe('Basic Install');
    expect(stable.currentCSVDesc).not.toHaveProperty('icon');
  });

  it('list in the global catalog namespace: only its own; across namespaces: each in its CatalogSource’s namespace', async () => {
    const inGlobal = await kube().must<List>(kube().request('GET', pmPath(global)));
    expect(inGlobal.items.map((p) => [p.metadata.namespace, p.status.catalogSource])).toEqual([[global, 'global-demo']]);
    const all = await kube().must<List>(kube().request('GET', `${API}/packagemanifests?labelSelector=${encodeURIComponent('catalog in (demo,global-demo)')}`));
    expect(all.items.map((p) => [p.metadata.namespace, p.status.catalogSource]).sort()).toEqual([
      [global, 'global-demo'],
      [ns, 'demo'],
    ].sort());
  });

  it('get by name; a missing one is NotFound as the API server words it', async () => {
    const pm = await kube().must<PackageManifest>(kube().request('GET', pmPath(ns, 'demo-operator')));
    expect(pm).toMatchObject({ apiVersion: 'packages.operators.coreos.com/v1', kind: 'PackageManifest', metadata: { name: 'demo-operator', namespace: ns } });
    expect(pm.status.catalogSource).toBe('demo');
    const missing = await kube().request<{ reason: string; message: string; code: number }>('GET', pmPath(ns, 'absent'));
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ reason: 'NotFound', code: 404, message: 'packagemanifests.packages.operators.coreos.com "absent" not found' });
  });

  it('the icon subresource: the demo package has none, so upstream’s default SVG; a missing package is a 404', async () => {
    const icon = await kube().request<string>('GET', `${pmPath(ns, 'demo-operator')}/icon`);
    expect(icon.status).toBe(200);
    expect(icon.body).toMatch(/^\n<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect((await kube().request('GET', `${pmPath(ns, 'absent')}/icon`)).status).toBe(404);
  });

  it('label selectors catalog, catalog-namespace, provider; field selector metadata.name', async () => {
    const names = async (query: string): Promise<string[]> =>
      (await kube().must<List>(kube().request('GET', `${pmPath(ns)}?${query}`))).items.map((p) => `${p.status.catalogSourceNamespace}/${p.status.catalogSource}`);
    expect(await names('labelSelector=catalog%3Ddemo')).toEqual([`${ns}/demo`]);
    expect(await names(`labelSelector=catalog-namespace%3D${global}`)).toEqual([`${global}/global-demo`]);
    expect(await names('labelSelector=catalog%3Dnone')).toEqual([]);
    expect(await names(`labelSelector=${encodeURIComponent('operatorframework.io/arch.amd64=supported,team=demo')}`)).toEqual([`${ns}/demo`]);
    expect(await names('fieldSelector=metadata.name%3Ddemo-operator')).toEqual([`${ns}/demo`, `${global}/global-demo`]);
    expect(await names('fieldSelector=metadata.name%3Dother')).toEqual([]);
  });

  it('Table output: upstream’s Name, Catalog, Age columns', async () => {
    const t = await kube().table<{ columnDefinitions: { name: string }[]; rows: { cells: string[]; object: { kind: string; metadata: { name: string } } }[] }>(pmPath(ns));
    expect(t.status).toBe(200);
    expect(t.body.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Catalog', 'Age']);
    expect(t.body.rows.map((r) => r.cells.slice(0, 2))).toEqual([
      ['demo-operator', 'Demo Catalog'],
      ['demo-operator', 'Global Catalog'],
    ]);
    expect(t.body.rows[0]!.cells[2]).toMatch(/^\d+[smhd]/);
    expect(t.body.rows[0]!.object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'demo-operator' } });
  });

  it('a user without RBAC is refused (403); with a Role to list them, served', async () => {
    const nobody = kube().as({ impersonate: 'pkg-nobody' });
    const denied = await nobody.request<{ reason: string; message: string }>('GET', pmPath(ns));
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe(
      `packagemanifests.packages.operators.coreos.com is forbidden: User "pkg-nobody" cannot list resource "packagemanifests" in API group "packages.operators.coreos.com" in the namespace "${ns}"`,
    );
    await kube().must(
      kube().request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
        metadata: { name: 'packages-reader' },
        rules: [{ apiGroups: ['packages.operators.coreos.com'], resources: ['packagemanifests'], verbs: ['get', 'list'] }],
      }),
    );
    await kube().must(
      kube().request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
        metadata: { name: 'packages-reader' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'packages-reader' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'pkg-reader' }],
      }),
    );
    const reader = kube().as({ impersonate: 'pkg-reader' });
    let got: { status: number; body: List } = { status: 0, body: { kind: '', items: [] } };
    await waitFor('the Role in force', async () => {
      got = await reader.request<List>('GET', pmPath(ns, ''));
      return got.status === 200;
    });
    expect(got.body.items).toHaveLength(2);
  });
});

describe('equal field for field to upstream’s package server for the same catalogs (testdata, hack/upstream-packagemanifests.ts)', () => {
  // Upstream's data was served for CatalogSources in the global catalog namespace `olm`; ours are in a namespace of
  // this test, so the namespace is normalised (with creationTimestamp and the order, as the data is), and our
  // metadata.resourceVersion (ours, for watch: upstream's PackageManifests have none — README) is left out.
  type Item = Omit<PackageManifest, 'apiVersion' | 'kind'>;
  let up: string;
  const servers: OpmServe[] = [];
  const expected = (name: string): Item[] => JSON.parse(readFileSync(join(upstreamPackageManifestsDir(), `${name}.json`), 'utf8')) as Item[];
  const normalised = (items: Item[], namespace: string): Item[] =>
    items
      .map(({ metadata: { resourceVersion: _rv, ...metadata }, ...i }) => ({
        ...i,
        metadata: {
          ...metadata,
          namespace: metadata.namespace === namespace ? 'olm' : metadata.namespace,
          creationTimestamp: null,
          labels: { ...metadata.labels, ...(metadata.labels['catalog-namespace'] === namespace && { 'catalog-namespace': 'olm' }) },
        },
        status: { ...i.status, catalogSourceNamespace: i.status.catalogSourceNamespace === namespace ? 'olm' : i.status.catalogSourceNamespace },
      }))
      .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));

  beforeAll(async () => {
    up = await kube().namespace('classic-pkg-upstream');
    for (const s of UPSTREAM_PACKAGEMANIFEST_SOURCES) {
      const opm = new OpmServe(upstreamPackageManifestCatalog(s.metadata.name));
      servers.push(opm);
      const { address } = await opm.start();
      await catalogSource(up, s.metadata.name, { ...s.spec, address }, { ...s.metadata.labels });
    }
  }, 180_000);

  afterAll(async () => {
    if (up) await kube().request('DELETE', `/api/v1/namespaces/${up}`);
    for (const opm of servers) await opm.stop();
  });

  it('spec.address at opm serve of each catalog, as upstream’s were: the list through the API server equals upstream’s', async () => {
    let items: Item[] = [];
    const own = async (): Promise<Item[]> => (await kube().must<{ items: Item[] }>(kube().request('GET', pmPath(up)))).items.filter((i) => i.status.catalogSourceNamespace === up);
    const total = UPSTREAM_PACKAGEMANIFEST_SOURCES.reduce((n, s) => n + expected(s.metadata.name).length, 0);
    await waitFor(`${total} PackageManifests of the address CatalogSources`, async () => {
      items = await own();
      return items.length === total;
    });
    // upstream's list items carry no apiVersion or kind
    expect(items.filter((i) => 'kind' in i || 'apiVersion' in i)).toEqual([]);
    for (const s of UPSTREAM_PACKAGEMANIFEST_SOURCES) {
      expect(normalised(items.filter((i) => i.status.catalogSource === s.metadata.name), up)).toEqual(expected(s.metadata.name));
    }
  });

  it('the icon subresource of every package: the same Content-Type, Etag and bytes as upstream’s', async () => {
    type Icon = { status: number; contentType: string; etag: string; length: number; sha256: string };
    const want = JSON.parse(readFileSync(join(upstreamPackageManifestsDir(), 'icons.json'), 'utf8')) as Record<string, Icon>;
    const dispatcher = new Agent({ connect: { ca: controlPlane().caPem } });
    const got: Record<string, Icon> = {};
    try {
      for (const name of Object.keys(want)) {
        const res = await request(`${controlPlane().server}${pmPath(up, name)}/icon`, { dispatcher, headers: { authorization: `Bearer ${controlPlane().adminToken}` } });
        const body = Buffer.from(await res.body.arrayBuffer());
        const header = (h: string): string => String(res.headers[h] ?? '');
        got[name] = { status: res.statusCode, contentType: header('content-type'), etag: header('etag'), length: body.length, sha256: createHash('sha256').update(body).digest('hex') };
      }
    } finally {
      await dispatcher.close();
    }
    expect(got).toEqual(want);
  });

  it('spec.image of the demo catalog (upstream serves an image with opm serve): equal to upstream’s demo', async () => {
    const list = await kube().must<{ items: Item[] }>(kube().request('GET', `${pmPath(ns)}?labelSelector=catalog%3Ddemo`));
    expect(normalised(list.items, ns)).toEqual(expected('demo'));
  });
});

describe('the package server’s own authentication and authorization (asked directly)', () => {
  const direct = async (path: string, headers: Record<string, string>, withCert: boolean): Promise<{ status: number; body: { reason?: string; message?: string } }> => {
    const dispatcher = await frontProxyAgent(controlPlane(), { clientCert: withCert });
    try {
      const res = await request(`https://127.0.0.1:${port}${path}`, { dispatcher, headers });
      return { status: res.statusCode, body: (await res.body.json()) as { reason?: string; message?: string } };
    } finally {
      await dispatcher.close();
    }
  };

  it('no front-proxy certificate: 401 Unauthorized', async () => {
    const res = await direct(pmPath(ns), { 'x-remote-user': 'admin', 'x-remote-group': 'system:masters' }, false);
    expect(res).toMatchObject({ status: 401, body: { reason: 'Unauthorized', message: 'Unauthorized' } });
  });

  it('the front proxy asking for a user RBAC does not allow: 403 from the SubjectAccessReview', async () => {
    const res = await direct(pmPath(ns, 'demo-operator'), { 'x-remote-user': 'pkg-stranger', 'x-remote-group': 'system:authenticated' }, true);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(
      `packagemanifests.packages.operators.coreos.com "demo-operator" is forbidden: User "pkg-stranger" cannot get resource "packagemanifests" in API group "packages.operators.coreos.com" in the namespace "${ns}"`,
    );
  });

  it('the front proxy asking for system:masters: served', async () => {
    const res = await direct(pmPath(ns, 'demo-operator'), { 'x-remote-user': 'someone', 'x-remote-group': 'system:masters' }, true);
    expect(res.status).toBe(200);
  });
});

type WatchEvent = { type: string; object: PackageManifest & { code?: number } };

/** A watch through the API server: its events as they come (JSON lines), and stop(). */
function openWatch(path: string): { events: WatchEvent[]; next(what: string, pred: (e: WatchEvent) => boolean): Promise<WatchEvent>; stop(): Promise<void> } {
  const events: WatchEvent[] = [];
  const waiters = new Set<() => void>();
  const dispatcher = new Agent({ connect: { ca: controlPlane().caPem } });
  const ac = new AbortController();
  const done = (async () => {
    const res = await request(`${controlPlane().server}${path}`, { dispatcher, signal: ac.signal, headers: { authorization: `Bearer ${controlPlane().adminToken}` } });
    expect(res.statusCode).toBe(200);
    let buf = '';
    for await (const chunk of res.body) {
      buf += (chunk as Buffer).toString('utf8');
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        events.push(JSON.parse(buf.slice(0, nl)) as WatchEvent);
        buf = buf.slice(nl + 1);
      }
      for (const w of [...waiters]) w();
    }
  })().catch((err: unknown) => {
    if (!ac.signal.aborted) throw err;
  });
  let seen = 0;
  return {
    events,
    next: (what, pred) =>
      new Promise<WatchEvent>((resolve, reject) => {
        const check = (): void => {
          while (seen < events.length) {
            const e = events[seen++]!;
            if (pred(e)) {
              waiters.delete(check);
              clearTimeout(timer);
              return resolve(e);
            }
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no watch event: ${what}; got ${JSON.stringify(events.map((e) => [e.type, e.object.metadata?.name, e.object.status?.catalogSource]))}`));
        }, 120_000);
        waiters.add(check);
        check();
      }),
    stop: async () => {
      ac.abort();
      await done;
      await dispatcher.close();
    },
  };
}

describe('watch (ours: upstream’s package server has none) through the API server', () => {
  const csPath = (name: string): string => TestKube.path(ops.V1alpha1, ops.CatalogSourceResource, name, ns);
  const stableHead = (pm: PackageManifest): string | undefined => pm.status.channels.find((c) => c.name === 'stable')?.currentCSV;

  it('from a list’s resourceVersion: ADDED when a CatalogSource serves, MODIFIED when its image has a new version, DELETED when it goes', async () => {
    const list = await kube().must<List & { metadata: { resourceVersion?: string } }>(kube().request('GET', pmPath(ns)));
    expect(list.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(list.items.every((p) => /^\d+$/.test((p.metadata as { resourceVersion?: string }).resourceVersion ?? ''))).toBe(true);
    const w = openWatch(`${pmPath(ns)}?watch=true&resourceVersion=${list.metadata.resourceVersion}&labelSelector=catalog%3Dwatched`);
    try {
      await catalogSource(ns, 'watched', { sourceType: 'grpc', image: `${registry().host}/classic/pkg:v1`, displayName: 'Watched' });
      const added = await w.next('ADDED watched', (e) => e.type === 'ADDED');
      expect(added.object.metadata).toMatchObject({ name: 'demo-operator', namespace: ns });
      expect(stableHead(added.object)).toBe('demo-operator.v0.3.0');
      await pushDemo('pkg:v2', await demoWithStableV4());
      await kube().must(kube().request('PATCH', csPath('watched'), { spec: { image: `${registry().host}/classic/pkg:v2` } }, 'application/merge-patch+json'));
      const modified = await w.next('MODIFIED with stable at v0.4.0', (e) => e.type === 'MODIFIED' && stableHead(e.object) === 'demo-operator.v0.4.0');
      expect(Number(modified.object.metadata.resourceVersion)).toBeGreaterThan(Number(added.object.metadata.resourceVersion));
      await kube().must(kube().request('DELETE', csPath('watched')));
      const deleted = await w.next('DELETED', (e) => e.type === 'DELETED');
      expect(deleted.object.metadata.name).toBe('demo-operator');
      expect(deleted.object.status.catalogSource).toBe('watched');
      // only the selected CatalogSource's events, none from the others
      expect(w.events.every((e) => e.object.status.catalogSource === 'watched')).toBe(true);
    } finally {
      await w.stop();
    }
  });

  it('without a resourceVersion: ADDED for what there is (the namespace’s, then the global catalog namespace’s)', async () => {
    const w = openWatch(`${pmPath(ns)}?watch=true&fieldSelector=metadata.name%3Ddemo-operator`);
    try {
      await w.next('the global one', (e) => e.object.status.catalogSource === 'global-demo');
      expect(w.events.map((e) => [e.type, e.object.status.catalogSource])).toEqual([
        ['ADDED', 'demo'],
        ['ADDED', 'global-demo'],
      ]);
    } finally {
      await w.stop();
    }
  });

  it('kubectl get packagemanifests --watch shows a CatalogSource’s image update', async () => {
    const { apiserver } = await binaries();
    await catalogSource(ns, 'kubectl-watched', { sourceType: 'grpc', image: `${registry().host}/classic/pkg:v1`, displayName: 'Kubectl Watched' });
    const child = spawn(apiserver, ['kubectl', `--kubeconfig=${controlPlane().kubeconfigPath}`, '-n', ns, 'get', 'packagemanifests', '-l', 'catalog=kubectl-watched', '--watch', '--output-watch-events']);
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const lines = (pred: (text: string) => boolean, what: string): Promise<void> =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`kubectl: no ${what}; stdout ${JSON.stringify(out)}; stderr ${JSON.stringify(err)}`)), 120_000);
        const check = (): void => {
          if (!pred(out)) return;
          clearTimeout(timer);
          child.stdout.off('data', onData);
          resolve();
        };
        const onData = (d: Buffer): void => {
          out += d.toString();
          check();
        };
        child.stdout.on('data', onData);
        check();
      });
    try {
      await lines((t) => /ADDED\s+demo-operator\s+Kubectl Watched/.test(t), 'initial row');
      await kube().must(kube().request('PATCH', csPath('kubectl-watched'), { spec: { image: `${registry().host}/classic/pkg:v2` } }, 'application/merge-patch+json'));
      await lines((t) => /MODIFIED\s+demo-operator\s+Kubectl Watched/.test(t), 'MODIFIED row');
      expect(out.split('\n')[0]).toMatch(/^EVENT\s+NAME\s+CATALOG\s+AGE/);
    } finally {
      child.kill();
      await kube().request('DELETE', csPath('kubectl-watched'));
    }
  });
});

describe('the serving certificate: the Secret the package server keeps, the APIService’s caBundle', () => {
  type Secret = { metadata: { resourceVersion: string; annotations?: Record<string, string>; labels?: Record<string, string> }; type: string; data: Record<string, string> };
  type APIService = { spec: { caBundle?: string; insecureSkipTLSVerify?: boolean }; status?: { conditions?: { type: string; status: string; message?: string }[] } };
  const secretPath = (): string => `/api/v1/namespaces/${ns}/secrets/${PACKAGES_SERVICE}-cert`;
  const apiServicePath = `/apis/apiregistration.k8s.io/v1/apiservices/${PACKAGES_APISERVICE}`;
  const pem = (b64: string | undefined): string => Buffer.from(b64 ?? '', 'base64').toString('utf8');
  /** The certificate the package server presents (PEM), asked directly. */
  const presented = async (): Promise<string> => {
    const socket = connect({ host: '127.0.0.1', port, servername: `${PACKAGES_SERVICE}.${ns}.svc`, rejectUnauthorized: false });
    try {
      await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
      return new X509Certificate(socket.getPeerCertificate().raw).toString();
    } finally {
      socket.destroy();
    }
  };
  const certOf = (secret: Secret): string => new X509Certificate(pem(secret.data['tls.crt'])).toString();
  /** The Secret's CA is the APIService's caBundle, its certificate is served, the APIService is Available and lists. */
  const trusted = async (what: string, secret: () => Promise<Secret>): Promise<Secret> => {
    let last: Secret | undefined;
    await waitFor(what, async () => {
      const s = await secret();
      last = s;
      const api = await kube().must<APIService>(kube().request('GET', apiServicePath));
      if (api.spec.caBundle !== s.data['olmCAKey']) throw new Error('the caBundle is not the Secret’s CA');
      if ((await presented()) !== certOf(s)) throw new Error('the package server does not serve the Secret’s certificate');
      const available = api.status?.conditions?.find((c) => c.type === 'Available');
      if (available?.status !== 'True') throw new Error(`Available=${available?.status}: ${available?.message ?? ''}`);
      return (await kube().request('GET', pmPath(ns))).status === 200;
    });
    return last!;
  };
  const getSecret = (): Promise<Secret> => kube().must<Secret>(kube().request('GET', secretPath()));

  it('the APIService is Available with the caBundle of the Secret’s CA (no insecureSkipTLSVerify); kubectl get packagemanifests', async () => {
    const secret = await trusted('the APIService trusts the package server', getSecret);
    expect(secret.type).toBe('kubernetes.io/tls');
    expect(secret.metadata.labels).toEqual({ 'olm.managed': 'true' });
    expect(Object.keys(secret.data).sort()).toEqual(['olmCAKey', 'tls.crt', 'tls.key']);
    const cert = new X509Certificate(pem(secret.data['tls.crt']));
    expect(cert.subjectAltName).toBe(`DNS:${PACKAGES_SERVICE}.${ns}, DNS:${PACKAGES_SERVICE}.${ns}.svc, DNS:${PACKAGES_SERVICE}.${ns}.svc.cluster.local`);
    expect(Date.parse(cert.validTo) - Date.now()).toBeGreaterThan(729 * 24 * 3600_000);
    const api = await kube().must<APIService>(kube().request('GET', apiServicePath));
    expect(api.spec.insecureSkipTLSVerify).toBeFalsy();
    const { apiserver } = await binaries();
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(apiserver, ['kubectl', `--kubeconfig=${controlPlane().kubeconfigPath}`, '-n', ns, 'get', 'packagemanifests']);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`kubectl get packagemanifests: exit ${code}: ${stderr}`))));
    });
    expect(out).toMatch(/^NAME\s+CATALOG\s+AGE\n/);
    expect(out).toMatch(/demo-operator\s+Demo Catalog/);
  });

  it('an APIService as the component was before (insecureSkipTLSVerify, no caBundle) is given the caBundle, and verified', async () => {
    await kube().must(kube().request('PATCH', apiServicePath, { spec: { caBundle: null, insecureSkipTLSVerify: true } }, 'application/merge-patch+json'));
    await trusted('the caBundle set again', getSecret);
    expect((await kube().must<APIService>(kube().request('GET', apiServicePath))).spec.insecureSkipTLSVerify).toBeFalsy();
  });

  it('a deleted Secret is issued again (a new CA), the caBundle follows and the new certificate is served', async () => {
    const before = await getSecret();
    await kube().must(kube().request('DELETE', secretPath()));
    const after = await trusted('a new Secret trusted and served', async () => {
      const s = await getSecret();
      if (s.data['olmCAKey'] === before.data['olmCAKey']) throw new Error('the Secret has the old CA');
      return s;
    });
    expect(after.metadata.annotations?.['olmcahash']).not.toBe(before.metadata.annotations?.['olmcahash']);
  });

  it('a certificate within a day of expiry is issued again', async () => {
    const before = await getSecret();
    // What a Secret looks like a day before its certificate expires: a pair valid for an hour more.
    const notAfter = new Date(Date.now() + 3600_000);
    const ca = generateCA(notAfter);
    const pair = createSignedServingPair(notAfter, ca, [`${PACKAGES_SERVICE}.${ns}`, `${PACKAGES_SERVICE}.${ns}.svc`, `${PACKAGES_SERVICE}.${ns}.svc.cluster.local`]);
    const b64 = (s: string): string => Buffer.from(s).toString('base64');
    await kube().must(
      kube().request('PATCH', secretPath(), { data: { 'tls.crt': b64(pair.certPEM), 'tls.key': b64(pair.keyPEM), olmCAKey: b64(ca.certPEM) } }, 'application/merge-patch+json'),
    );
    const after = await trusted('the expiring certificate replaced, trusted and served', async () => {
      const s = await getSecret();
      if ([before.data['olmCAKey'], b64(ca.certPEM)].includes(s.data['olmCAKey'])) throw new Error('the Secret has an old CA');
      return s;
    });
    expect(Date.parse(new X509Certificate(pem(after.data['tls.crt'])).validTo) - Date.now()).toBeGreaterThan(729 * 24 * 3600_000);
  });
});

describe('--package-server-cert-dir: a certificate given as files (cert-manager’s), taken again when they change', () => {
  it('serves the files’ pair, then the renewed one without a restart; keeps no Secret of its own', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'olm-classic-pkg-certs-'));
    const hosts = [`${PACKAGES_SERVICE}.${ns}.svc`];
    const issue = async (): Promise<string> => {
      const notAfter = new Date(Date.now() + 24 * 3600_000);
      const pair = createSignedServingPair(notAfter, generateCA(notAfter), hosts);
      // The key first, as a Secret volume's swap may show it: the watcher keeps the previous pair until both load.
      await writeFile(join(dir, 'tls.key'), pair.keyPEM);
      await writeFile(join(dir, 'tls.crt'), pair.certPEM);
      return new X509Certificate(pair.certPEM).toString();
    };
    const first = await issue();
    const { logger } = capturedLogger('olm-classic-certdir', 'CLASSIC_TEST_LOG');
    const client = await KubeClient.fromConfig({ kubeconfig: controlPlane().kubeconfigPath });
    const ctx = { options: inProcessManagerOptions('olm-classic-pkg-certdir'), client, logger, metrics: createMetrics({ defaultMetrics: false }) };
    const parts = await packageServerSetup({
      host: '127.0.0.1',
      port: 0,
      globalCatalogNamespace: global,
      catalogSources: { list: () => [] },
      contents: { get: () => undefined },
      certDir: dir,
      service: { namespace: ns, name: 'certdir-service' },
    })(ctx);
    const running = await runParts(parts, { client, sandbox: dir });
    try {
      expect(parts.informers).toEqual([]);
      expect(parts.controllers).toEqual([]);
      const presented = async (): Promise<string> => {
        const socket = connect({ host: '127.0.0.1', port: parts.port, servername: hosts[0], rejectUnauthorized: false });
        try {
          await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
          return new X509Certificate(socket.getPeerCertificate().raw).toString();
        } finally {
          socket.destroy();
        }
      };
      expect(await presented()).toBe(first);
      const renewed = await issue();
      await waitFor('the renewed certificate served', async () => (await presented()) === renewed);
      expect((await kube().request('GET', `/api/v1/namespaces/${ns}/secrets/certdir-service-cert`)).status).toBe(404);
    } finally {
      await running.stop();
    }
  });
});

// Last: it removes the APIService.
describe('kubectl olm search --classic / list-available --classic', () => {
  const cli = (argv: string[], env: Record<string, string> = {}): ReturnType<typeof runCaptured> =>
    runCaptured(argv, { env: { KUBECONFIG: controlPlane().kubeconfigPath, ...env } });
  const rows = (text: string): string[][] => text.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));

  it('read from the PackageManifests the package server serves (no image is pulled: no insecure registry needed)', async () => {
    const search = await cli(['search', '--classic', 'demo', '-n', ns]);
    expect(search.stderr).toBe('');
    expect(search.code).toBe(0);
    expect(rows(search.stdout)).toEqual([
      ['PACKAGE', 'CATALOG', 'PROVIDER', 'CHANNELS', 'LATEST'],
      ['demo-operator', 'demo', 'OLM demo', 'stable (default), candidate', '0.4.0'],
      ['demo-operator', `${global}/global-demo`, 'OLM demo', 'stable (default), candidate', '0.4.0'],
    ]);
    const avail = await cli(['list-available', '--classic', 'demo-operator', '-n', ns, '--catalog', 'demo']);
    expect(avail.code).toBe(0);
    expect(rows(avail.stdout).slice(0, 4)).toEqual([
      ['CATALOG', 'CHANNEL', 'VERSION', 'CSV', 'NOTES'],
      ['demo', 'stable (default)', '0.3.0', 'demo-operator.v0.3.0', 'head'],
      ['demo', 'stable (default)', '0.2.0', 'demo-operator.v0.2.0', 'deprecated'],
      ['demo', 'stable (default)', '0.1.0', 'demo-operator.v0.1.0'],
    ]);
    expect(avail.stdout).toMatch(/\nDeprecations:\n {2}bundle demo-operator\.v0\.2\.0 \(catalog demo\): /);
    const json = await cli(['list-available', '--classic', 'demo-operator', '-n', ns, '-o', 'json']);
    const parsed = JSON.parse(json.stdout) as { packages: { catalog: string; catalogNamespace: string; channels: { name: string; head: string }[] }[] };
    expect(parsed.packages.map((p) => [p.catalogNamespace, p.catalog, p.channels[0]?.head])).toEqual([
      [ns, 'demo', 'demo-operator.v0.3.0'],
      [global, 'global-demo', 'demo-operator.v0.3.0'],
    ]);
    const missing = await cli(['list-available', '--classic', 'absent', '-n', ns]);
    expect(missing).toMatchObject({ code: 1, stderr: `package "absent" was not found in the CatalogSources of namespace "${ns}"\n` });
  });

  it('without the API served: the same, computed from the CatalogSources’ images', async () => {
    const first = await cli(['search', '--classic', '-n', ns, '-o', 'json']);
    await unregisterPackageServer(kube());
    await waitFor('packages.operators.coreos.com gone from discovery', async () => (await kube().request('GET', API)).status === 404);
    const without = await cli(['search', '--classic', '-n', ns, '--global-namespace', global, '-o', 'json'], { OLM_INSECURE_REGISTRIES: registry().host });
    expect(without.stderr).toBe('');
    expect(without.code).toBe(0);
    expect(JSON.parse(without.stdout)).toEqual(JSON.parse(first.stdout));
  });
});
