// catalogd's memory after a catalog of very many tiny files (issue 16): the real catalogd binary
// (cmd/catalogd/main.ts as a child process) against a real kube-apiserver and registry. A catalog
// image whose one layer holds BENCH_CATALOGD_FILES (default 200,000) files of one small blob each
// is created as a ClusterCatalog; catalogd pulls, unpacks, stores and indexes it and serves it.
// Figures: catalogd's RSS (/proc/<pid>/status VmRSS) before — started, serving a small catalog and
// idle for BENCH_CATALOGD_SETTLE_S (default 60) seconds — and after the big one is Serving, its
// /api/v1/all has been downloaded and metas queries answered: 10 s and 30 s later and after the
// same idle time as before; the ratio after/before (target ≤ 1.5×); the peak (VmHWM); the time to
// Serving. V8 gives memory back only once its memory reducer runs (a few GCs some seconds after
// the allocation rate drops), hence the series. catalogd runs with --max-catalog-files above the
// file count (its default, 100,000, refuses such a catalog).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { request } from 'undici';
import { ControlPlane } from '../test/support/control-plane.ts';
import { installCrds, yamlFiles } from '../test/support/crds.ts';
import { CATALOG_LABEL, MEDIA, pushCatalogImage, pushImage, tarHeader } from '../test/support/images.ts';
import { TestKube } from '../test/support/kube.ts';
import { freePort, waitFor } from '../test/support/net.ts';
import { startProcess, stopProcess, type Managed } from '../test/support/process.ts';
import { Registry } from '../test/support/registry.ts';
import type { Figure } from './control-plane.ts';
import { idleRss, procMemory } from './memory.ts';

const FILES = Number(process.env.BENCH_CATALOGD_FILES ?? 200_000);
const SETTLE_S = Math.max(30, Number(process.env.BENCH_CATALOGD_SETTLE_S ?? 60));
const root = fileURLToPath(new URL('..', import.meta.url));
const mib = (n: number): number => Number((n / 1048576).toFixed(1));

/** One gzip'd tar layer: `configs/tiny/f<i>.json`, each `{"schema":"bench.tiny","name":"n<i>"}`. */
export function tinyFilesLayer(n: number): Buffer {
  const parts: Buffer[] = [tarHeader({ path: 'configs/', type: 'dir' }, 0), tarHeader({ path: 'configs/tiny/', type: 'dir' }, 0)];
  for (let i = 0; i < n; i++) {
    const body = Buffer.from(`{"schema":"bench.tiny","name":"n${i}"}\n`);
    parts.push(tarHeader({ path: `configs/tiny/f${String(i).padStart(7, '0')}.json` }, body.length), body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(parts));
}

/**
 * The catalogd of checkout `root` (cmd/catalogd/main.ts under tsx) as a child process against the given cluster and
 * registry, plain HTTP on a free port, resolved once /readyz answers; a catalogd that does not get there is stopped.
 */
/** Waits for /readyz 200 on `health`; stops the process and names its log when it does not come. */
export async function waitForCatalogdReady(proc: Managed, health: number): Promise<void> {
  try {
    await waitFor('catalogd ready', async () => {
      const res = await request(`http://127.0.0.1:${health}/readyz`).catch(() => undefined);
      await res?.body.dump();
      return res?.statusCode === 200;
    }, { timeoutMs: 120_000, intervalMs: 200 });
  } catch (err) {
    await stopProcess(proc);
    throw new Error(`catalogd (log: ${proc.logFile}): ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

export async function startCatalogdFromSource(
  root: string,
  kubeconfig: string,
  registryHost: string,
  dir: string,
  maxFiles?: number,
): Promise<{ proc: ReturnType<typeof startProcess>; pid: ReturnType<typeof startProcess>['pid']; port: number }> {
  const port = await freePort();
  const health = await freePort();
  const proc = startProcess(
    process.execPath,
    [
      '--import',
      'tsx',
      join(root, 'cmd/catalogd/main.ts'),
      `--kubeconfig=${kubeconfig}`,
      `--catalogs-server-addr=127.0.0.1:${port}`,
      `--external-address=127.0.0.1:${port}`,
      `--cache-dir=${join(dir, 'cache')}`,
      `--insecure-registries=${registryHost}`,
      `--health-probe-bind-address=127.0.0.1:${health}`,
      '--log-level=error',
      ...(maxFiles === undefined ? [] : [`--max-catalog-files=${maxFiles}`]),
    ],
    join(dir, 'catalogd.log'),
  );
  await waitForCatalogdReady(proc, health);
  return { proc, pid: proc.pid, port };
}

export async function benchCatalogdFiles(): Promise<Figure[]> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-catalogd-files-'));
  const cp = new ControlPlane();
  const reg = new Registry();
  let catalogd: ReturnType<typeof startProcess> | undefined;
  try {
    const [info, regInfo] = await Promise.all([cp.start(), reg.start()]);
    const kube = new TestKube(info);
    await installCrds(kube, await yamlFiles(fileURLToPath(new URL('../config/crd/bases', import.meta.url))));
    const layer = tinyFilesLayer(FILES);
    const big = await pushImage(regInfo, 'bench/tiny-files:v1', { labels: { [CATALOG_LABEL]: '/configs' }, layers: [{ blob: layer, mediaType: MEDIA.ociLayerGzip }] });
    const small = await pushCatalogImage(regInfo, 'bench/small:v1', {
      files: { 'small/catalog.json': [{ schema: 'olm.package', name: 'small' }, { schema: 'bench.tiny', name: 'one' }].map((b) => JSON.stringify(b)).join('\n') },
    });

    const started = await startCatalogdFromSource(root, info.kubeconfigPath, regInfo.host, dir, Math.max(FILES + 10, 100_000));
    catalogd = started.proc;
    const { pid, port } = started;
    const atStart = (await idleRss(pid, 5)).at(5);

    const serve = async (name: string, ref: string): Promise<number> => {
      const t0 = performance.now();
      await kube.must(
        kube.request('POST', '/apis/olm.operatorframework.io/v1/clustercatalogs', {
          apiVersion: 'olm.operatorframework.io/v1',
          kind: 'ClusterCatalog',
          metadata: { name },
          spec: { source: { type: 'Image', image: { ref } } },
        }),
      );
      await waitFor(`${name} Serving`, async () => {
        const c = await kube.request<{ status?: { conditions?: { type: string; status: string; message?: string }[] } }>('GET', `/apis/olm.operatorframework.io/v1/clustercatalogs/${name}`);
        const progressing = c.body.status?.conditions?.find((x) => x.type === 'Progressing');
        if (progressing?.status === 'False') throw new Error(`${name}: ${progressing.message ?? ''}`);
        return c.body.status?.conditions?.some((x) => x.type === 'Serving' && x.status === 'True') ?? false;
      }, { timeoutMs: 900_000, intervalMs: 250 });
      return performance.now() - t0;
    };
    const download = async (path: string): Promise<number> => {
      const res = await request(`http://127.0.0.1:${port}${path}`);
      let bytes = 0;
      for await (const chunk of res.body) bytes += (chunk as Buffer).length;
      if (res.statusCode !== 200) throw new Error(`${path}: HTTP ${res.statusCode}`);
      return bytes;
    };

    await serve('small', small.ref);
    await download('/catalogs/small/api/v1/all');
    const before = (await idleRss(pid, SETTLE_S)).at(SETTLE_S);

    const servedMs = await serve('tiny-files', big.ref);
    const allBytes = await download('/catalogs/tiny-files/api/v1/all');
    const metasBytes = await download('/catalogs/tiny-files/api/v1/metas?schema=bench.tiny');
    await download('/catalogs/tiny-files/api/v1/metas?name=n12345');
    const { hwm } = await procMemory(pid);
    const after = await idleRss(pid, SETTLE_S);
    return [
      { name: `catalog image: ${FILES} files in one layer`, value: mib(layer.length), unit: 'MiB gzip', note: `${mib(FILES * 1024)} MiB of tar` },
      { name: 'catalogd RSS, started and idle', value: mib(atStart), unit: 'MiB' },
      { name: `catalogd RSS before (serving a small catalog), idle ${SETTLE_S} s`, value: mib(before), unit: 'MiB' },
      { name: `time to Serving, ${FILES}-file catalog`, value: Math.round(servedMs / 1000), unit: 's', note: `/api/v1/all ${mib(allBytes)} MiB, metas ${mib(metasBytes)} MiB` },
      { name: 'catalogd peak RSS (VmHWM)', value: mib(hwm), unit: 'MiB' },
      { name: 'catalogd RSS after (serving it), idle 10 s', value: mib(after.at(10)), unit: 'MiB' },
      { name: 'catalogd RSS after (serving it), idle 30 s', value: mib(after.at(30)), unit: 'MiB' },
      { name: `catalogd RSS after (serving it), idle ${SETTLE_S} s`, value: mib(after.at(SETTLE_S)), unit: 'MiB' },
      { name: '  ratio after / before', value: Number((after.at(SETTLE_S) / before).toFixed(2)), unit: '×', note: 'target ≤ 1.5×' },
    ];
  } finally {
    if (catalogd) await stopProcess(catalogd);
    await reg.stop();
    await cp.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
