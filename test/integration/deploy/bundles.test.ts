// The controllers as the image runs them: cmd/bundle.ts's esbuild bundles (what the Dockerfile builds) started
// through cmd/entrypoint.sh with its node flags, against the shared cluster and registry. The other integration
// tests run the TypeScript sources; this file catches what only the bundles can get wrong — a module left out or
// loaded lazily from the wrong place, an asset not copied beside its chunk, a stubbed built-in that is needed —
// by running each controller's real work: catalogd pulls and serves a catalog, operator-controller installs an
// extension from it, olm-classic dials a CatalogSource's gRPC address (the lazily loaded gRPC client and its
// registry.proto).
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import { bundleControllers } from '../../../cmd/bundle.ts';
import { catalogFiles, pushTestBundle } from '../../support/bundles.ts';
import { installClassicCRDs } from '../../support/crds.ts';
import { adminKube, controlPlane, registry } from '../../support/env.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { TestKube } from '../../support/kube.ts';
import { metricsReaderToken, scrapeMetrics, selfSignedPair } from '../../support/metrics.ts';
import { freePort, waitFor } from '../../support/net.ts';
import { startBundled, stopProcess, type Managed } from '../../support/process.ts';
import { createCatalog, deleteCatalogs, serving, uniqueName, waitForCatalog } from '../catalogd/catalogs.ts';
import { applyExtension, deleteExtension, installedBundle, waitForExtension, waitGone } from '../operator-controller/harness.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// Under the checkout, as /app/dist is beside /app/node_modules in the image: what the bundles load from
// node_modules at run time (logic-solver, @grpc/*) is found the same way.
const DIST = join(ROOT, '.cache', 'test-bundles', `dist-${process.pid}`);

let work = '';
const running: Managed[] = [];

interface Started {
  readonly proc: Managed;
  readonly metricsUrl: string;
}

/**
 * A controller bundle through the entrypoint, once its /readyz answers 200. catalogd and operator-controller serve
 * metrics only over HTTPS with a certificate, as upstream's (test/support/metrics.ts scrapes them).
 */
async function start(name: string, args: readonly string[]): Promise<Started> {
  const health = await freePort();
  const metrics = await freePort();
  const secure = name !== 'olm-classic';
  if (secure && !args.some((a) => a.startsWith('--tls-cert='))) {
    const pair = selfSignedPair(work, `${name}-metrics`);
    args = [...args, `--tls-cert=${pair.certFile}`, `--tls-key=${pair.keyFile}`];
  }
  const proc = startBundled(
    DIST,
    name,
    [`--kubeconfig=${controlPlane().kubeconfigPath}`, `--health-probe-bind-address=127.0.0.1:${health}`, `--metrics-bind-address=127.0.0.1:${metrics}`, ...args],
    join(work, `${name}.log`),
  );
  running.push(proc);
  await waitFor(
    `${name} (bundle) ready; log: ${proc.logFile}`,
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`${name} exited with ${proc.child.exitCode}; see ${proc.logFile}`);
      const res = await fetch(`http://127.0.0.1:${health}/readyz`).catch(() => undefined);
      return res?.status === 200;
    },
    { timeoutMs: 60_000, intervalMs: 50 },
  );
  return { proc, metricsUrl: `${secure ? 'https' : 'http'}://127.0.0.1:${metrics}/metrics` };
}

const text = async (url: string): Promise<string> => (await fetch(url)).text();
let reader = '';
/** The metrics of catalogd or operator-controller, as a ServiceAccount allowed GET /metrics reads them. */
async function metricsText(url: string): Promise<string> {
  reader ||= await metricsReaderToken(adminKube(), await adminKube().namespace('bundles-metrics'), 'metrics-reader');
  const got = await scrapeMetrics(url, reader);
  expect(got.status).toBe(200);
  return got.body;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'bundles-it-'));
  await bundleControllers(DIST);
}, 180_000);

afterAll(async () => {
  await Promise.all(running.splice(0).map((p) => stopProcess(p)));
  await rm(DIST, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

describe('the controller bundles, as the image runs them', () => {
  it("catalogd's start loads neither the layer pipeline nor the FBC library nor a YAML parser (they load on first use), nor prom-client's Summary", async () => {
    const startup = JSON.parse(await readFile(join(DIST, 'bin', 'catalogd', 'startup.json'), 'utf8')) as Record<string, number>;
    expect(startup['internal/catalogd']).toBeGreaterThan(0);
    expect(startup['internal/shared/image']).toBeGreaterThan(0); // the registry client, built at start
    expect(startup['internal/shared/warmup']).toBeGreaterThan(0); // the entry, which imports the binary dynamically
    for (const lazy of ['internal/shared/fbc', 'fzstd', 'js-yaml', 'undici', '@kubernetes/client-node', 'graphql', 'tdigest']) expect(startup[lazy], lazy).toBeUndefined();
    const chunks = await readdir(join(DIST, 'bin', 'catalogd', 'chunks'));
    expect(chunks.some((f) => /^layers-\w+\.mjs$/.test(f))).toBe(true);
    expect(chunks.some((f) => /^fbc-\w+\.mjs$/.test(f))).toBe(true);
  });

  it("olm-classic's start does not load the CEL library (the resolver loads it when a catalog holds an olm.constraint)", async () => {
    const startup = JSON.parse(await readFile(join(DIST, 'bin', 'olm-classic', 'startup.json'), 'utf8')) as Record<string, number>;
    expect(startup['internal/classic']).toBeGreaterThan(0);
    for (const lazy of ['@marcbachmann/cel-js', '@kubernetes/client-node', 'graphql']) expect(startup[lazy], lazy).toBeUndefined();
  });

  it('catalogd serves a pulled catalog and operator-controller installs an extension from it', async () => {
    const kube = adminKube();
    const ns = await kube.namespace('bundles');
    const pkg = uniqueName('bundled');
    const b = await pushTestBundle(registry(), { packageName: pkg, version: '1.0.0' });
    const image = await pushCatalogImage(registry(), `bundles/${pkg}-catalog:v1`, { files: catalogFiles(pkg, [{ bundle: b }]) });

    const port = await freePort();
    // catalogd's certificate (the catalog server's and the metrics server's), its own CA, trusted by operator-controller.
    const cas = join(work, 'catalogd-ca');
    await mkdir(cas);
    const servingPair = selfSignedPair(cas, 'catalogd');
    const catalogd = await start('catalogd', [
      `--tls-cert=${servingPair.certFile}`,
      `--tls-key=${servingPair.keyFile}`,
      `--catalogs-server-addr=127.0.0.1:${port}`,
      `--external-address=127.0.0.1:${port}`,
      `--cache-dir=${join(work, 'catalogd')}`,
      `--insecure-registries=${registry().host}`,
    ]);
    const catalog = uniqueName('bundled');
    await createCatalog(catalog, { ref: image.ref });
    const served = await waitForCatalog(catalog, 'Serving', serving, 60_000);
    const all = await scrapeMetrics(`${served.status?.urls?.base ?? ''}/api/v1/all`);
    expect(all.status).toBe(200);
    expect(all.body).toContain(`"package":"${pkg}"`);
    const metrics = await metricsText(catalogd.metricsUrl);
    expect(metrics).toContain('catalogd_http_request_duration_seconds_bucket{');
    // prom-client's process metrics work with the bundles' stand-in for @opentelemetry/api (cmd/bundle.ts).
    expect(Number(/^process_cpu_seconds_total (\S+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
    // The young generation stays capped at ~2 MiB per semi-space after a catalog was pulled, parsed and served
    // (internal/shared/observability/memory.ts; no node flags in the entrypoint).
    expect(Number(/^nodejs_heap_space_size_total_bytes\{space="new"\} (\S+)$/m.exec(metrics)?.[1])).toBeLessThanOrEqual(8 * 1024 * 1024);

    const system = uniqueName('bundles-system');
    await kube.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: system } });
    const oc = await start('operator-controller', [`--catalogd-cas-dir=${cas}`, `--cache-path=${join(work, 'operator-controller')}`, `--system-namespace=${system}`, `--insecure-registries=${registry().host}`]);
    const ext = uniqueName('bundled');
    await applyExtension(ext, { namespace: ns, packageName: pkg, catalogName: catalog });
    await waitForExtension(ext, `installed ${b.name}`, installedBundle(b.name), 90_000);
    expect(await metricsText(oc.metricsUrl)).toMatch(/controller_runtime_reconcile_total\{controller="clusterextension",result="success"\} [1-9]/);

    await deleteExtension(ext);
    await waitGone(ext);
    await deleteCatalogs([catalog]);
  }, 240_000);

  it("olm-classic dials a CatalogSource's gRPC address with the lazily loaded client and reports the connection", async () => {
    const kube = adminKube();
    await installClassicCRDs(kube);
    const global = await kube.namespace('bundles-olm');
    const classic = await start('olm-classic', [`--cache-dir=${join(work, 'olm-classic')}`, `--namespace=${global}`]);
    // The resolver's Summary (the one prom-client class only olm-classic's bundle keeps; cmd/bundle.ts PROM_CLASSES_PURE).
    expect(await text(classic.metricsUrl)).toContain('# TYPE olm_resolution_duration_seconds summary');
    const name = 'unreachable';
    const dead = await freePort(); // nothing listens there
    await kube.must(
      kube.request('POST', TestKube.path(ops.V1alpha1, ops.CatalogSourceResource, undefined, global), {
        apiVersion: ops.V1alpha1,
        kind: 'CatalogSource',
        metadata: { name, namespace: global },
        spec: { sourceType: 'grpc', address: `127.0.0.1:${dead}` },
      }),
    );
    let state = '';
    await waitFor(
      `CatalogSource ${global}/${name} reports its connection`,
      async () => {
        const r = await kube.request<ops.CatalogSource>('GET', TestKube.path(ops.V1alpha1, ops.CatalogSourceResource, name, global));
        state = r.body.status?.connectionState?.lastObservedState ?? '';
        return state === 'TRANSIENT_FAILURE' || state === 'CONNECTING';
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(['TRANSIENT_FAILURE', 'CONNECTING']).toContain(state);
  }, 120_000);
});
