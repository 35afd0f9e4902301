// Regenerates testdata/upstream/operator-lifecycle-manager/packagemanifests.tar.zst (the folder packagemanifests/,
// one `<CatalogSource>.json` each, archived as testdata/SOURCES.md says): the PackageManifests upstream's own
// package server (operator-lifecycle-manager's pkg/package-server, the module version in
// hack/upstream-packageserver/go.mod) serves for two catalogs, the expected data of
// test/integration/classic/packagemanifests-upstream.test.ts. Not run by `make test`. Run alone:
//
//   node --import tsx hack/upstream-packagemanifests.ts
//
// What it does: builds hack/upstream-packageserver (upstream's cmd/package-server with upstream's own
// DisableAuthForTesting switch; see its main.go) into .cache/upstream/; starts a kube-apiserver (test/support's
// ControlPlane, no nodes) with the classic CRDs; serves the demo catalog (demo/catalog), the real catalog
// community-operators-v4.21 (testdata/catalogs) and the demo catalog with its package and a channel deprecated too
// (test/support/testdata.ts, upstreamPackageManifestCatalog) each with `opm serve` (test/envtest/opm); creates one CatalogSource of
// sourceType grpc with spec.address per catalog in the global catalog namespace `olm`, and writes their
// status.registryService as upstream's catalog operator does for an address (upstream's package server ignores a
// CatalogSource without it); starts upstream's package server against that cluster; waits until its list holds as
// many PackageManifests per CatalogSource as two lists 2 s apart agree on; writes each CatalogSource's items.
//
// Normalised, and only this: items sorted by package name (upstream's list is in its cache's map order, random);
// each currentCSVDesc.relatedImages sorted (upstream's GetImages gives a Go map's keys, random order);
// metadata.creationTimestamp replaced by null (the CatalogSource's, a time of this run). Nothing else is touched.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import * as ops from '../api/operators/index.ts';
import { ControlPlane } from '../test/support/control-plane.ts';
import { installCrds, yamlFiles } from '../test/support/crds.ts';
import { TestKube } from '../test/support/kube.ts';
import { freePort, sleep, waitFor } from '../test/support/net.ts';
import { OpmServe } from '../test/support/opm.ts';
import { startProcess, stopProcess, type Managed } from '../test/support/process.ts';
import { UPSTREAM_PACKAGEMANIFESTS_ARCHIVE, UPSTREAM_PACKAGEMANIFEST_SOURCES, upstreamPackageManifestCatalog } from '../test/support/testdata.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const MODULE = join(ROOT, 'hack', 'upstream-packageserver');
const BINARY = join(ROOT, '.cache', 'upstream', 'package-server');
const API = '/apis/packages.operators.coreos.com/v1';
/** The gets recorded in get.json: [namespace, package]. */
const GETS: readonly (readonly [string, string])[] = [
  ['olm', 'cat-facts-operator'],
  ['default', 'cat-facts-operator'],
];

interface Item {
  metadata: { name: string; creationTimestamp?: string | null; labels?: Record<string, string> };
  status: { catalogSource: string; channels?: { currentCSVDesc?: { relatedImages?: string[] } }[] };
}

/** upstream's GetImages returns the CSV's image set in Go's map order (random per run): sorted here. */
function sortRelatedImages(item: Item): Item {
  for (const ch of item.status.channels ?? []) ch.currentCSVDesc?.relatedImages?.sort();
  return item;
}

function build(): void {
  process.stderr.write(`building upstream's package server (${MODULE}) ...\n`);
  execFileSync('go', ['build', '-trimpath', '-o', BINARY, '.'], {
    cwd: MODULE,
    stdio: 'inherit',
    env: { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod', CGO_ENABLED: '0' },
  });
}

async function main(): Promise<void> {
  build();
  const cp = new ControlPlane({ nodes: 0 });
  const servers: OpmServe[] = [];
  let upstream: Managed | undefined;
  const work = await mkdtemp(join(tmpdir(), 'upstream-pkgserver-'));
  try {
    const info = await cp.start();
    const kube = new TestKube(info);
    await installCrds(kube, await yamlFiles(join(ROOT, 'config', 'crd', 'classic')));
    const ns = 'olm';
    await kube.must(kube.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));

    for (const source of UPSTREAM_PACKAGEMANIFEST_SOURCES) {
      const opm = new OpmServe(upstreamPackageManifestCatalog(source.metadata.name));
      servers.push(opm);
      const { address } = await opm.start();
      const path = TestKube.path(ops.V1alpha1, ops.CatalogSourceResource, undefined, ns);
      const created = await kube.must<ops.CatalogSource>(
        kube.request('POST', path, { apiVersion: ops.V1alpha1, kind: ops.CatalogSourceKind, metadata: { ...source.metadata, namespace: ns }, spec: { ...source.spec, address } }),
      );
      // upstream's GrpcAddressRegistryReconciler: an address needs no server of OLM's, the status says grpc
      await kube.must(
        kube.request('PUT', `${TestKube.path(ops.V1alpha1, ops.CatalogSourceResource, source.metadata.name, ns)}/status`, {
          ...created,
          status: { registryService: { protocol: 'grpc', createdAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z') } },
        }),
      );
    }

    const port = await freePort();
    const certDir = join(work, 'certs');
    await mkdir(certDir);
    const log = join(work, 'package-server.log');
    upstream = startProcess(BINARY, ['--kubeconfig', info.kubeconfigPath, '--global-namespace', ns, '--bind-address', '127.0.0.1', '--secure-port', String(port), '--cert-dir', certDir], log);
    const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
    const list = async (): Promise<Item[] | undefined> => {
      try {
        const res = await request(`https://127.0.0.1:${port}${API}/namespaces/${ns}/packagemanifests`, { dispatcher });
        if (res.statusCode !== 200) {
          await res.body.dump();
          return undefined;
        }
        return ((await res.body.json()) as { items: Item[] | null }).items ?? [];
      } catch {
        return undefined;
      }
    };
    // the package server caches each source once connected: wait until two lists 2 s apart agree, each source present
    let items: Item[] = [];
    await waitFor(
      `upstream's package server listing every CatalogSource's packages (log ${log})`,
      async () => {
        const a = await list();
        if (!a || !UPSTREAM_PACKAGEMANIFEST_SOURCES.every((s) => a.some((i) => i.status.catalogSource === s.metadata.name))) return false;
        await sleep(2000);
        const b = await list();
        if (!b || b.length !== a.length) return false;
        items = b;
        return true;
      },
      { timeoutMs: 5 * 60_000 },
    );
    // the icon subresource of every package of the namespace (upstream's LogoStorage): what a client sees of it
    const icons: Record<string, { status: number; contentType: string; etag: string; length: number; sha256: string }> = {};
    for (const name of [...new Set(items.map((i) => i.metadata.name))].sort()) {
      const res = await request(`https://127.0.0.1:${port}${API}/namespaces/${ns}/packagemanifests/${name}/icon`, { dispatcher });
      const body = Buffer.from(await res.body.arrayBuffer());
      const header = (h: string): string => String(res.headers[h] ?? '');
      icons[name] = { status: res.statusCode, contentType: header('content-type'), etag: header('etag'), length: body.length, sha256: createHash('sha256').update(body).digest('hex') };
    }
    // get, in the global catalog namespace and in another one (upstream lists a global catalog's packages in every
    // namespace, in the namespace asked for)
    const gets: unknown[] = [];
    for (const [namespace, name] of GETS) {
      const res = await request(`https://127.0.0.1:${port}${API}/namespaces/${namespace}/packagemanifests/${name}`, { dispatcher });
      const got = (await res.body.json()) as Item;
      gets.push(sortRelatedImages({ ...got, metadata: { ...got.metadata, creationTimestamp: null } }));
    }
    await dispatcher.close();

    const staging = join(work, 'packagemanifests');
    await mkdir(staging);
    await writeFile(join(staging, 'icons.json'), `${JSON.stringify(icons, null, 2)}\n`);
    await writeFile(join(staging, 'get.json'), `${JSON.stringify(gets, null, 2)}\n`);
    for (const source of UPSTREAM_PACKAGEMANIFEST_SOURCES) {
      const mine = items
        .filter((i) => i.status.catalogSource === source.metadata.name)
        .map((i) => ({ ...i, metadata: { ...i.metadata, creationTimestamp: null } }))
        .map(sortRelatedImages)
        .sort((x, y) => (x.metadata.name < y.metadata.name ? -1 : x.metadata.name > y.metadata.name ? 1 : 0));
      const file = join(staging, `${source.metadata.name}.json`);
      await writeFile(file, `${JSON.stringify(mine, null, 2)}\n`);
      process.stderr.write(`${source.metadata.name}.json: ${mine.length} PackageManifests\n`);
    }
    // testdata/SOURCES.md's reproducible archive
    const tar = execFileSync('tar', ['--format=ustar', '--sort=name', '--owner=0', '--group=0', '--numeric-owner', '--mtime=@0', '-C', work, '-cf', '-', 'packagemanifests'], { maxBuffer: 1 << 30 });
    await writeFile(UPSTREAM_PACKAGEMANIFESTS_ARCHIVE, execFileSync('zstd', ['-19', '-q', '-c'], { input: tar, maxBuffer: 1 << 30 }));
    process.stderr.write(`wrote ${UPSTREAM_PACKAGEMANIFESTS_ARCHIVE}\n`);
  } finally {
    if (upstream) await stopProcess(upstream);
    for (const s of servers) await s.stop();
    await cp.stop();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
