// catalogd's memory once a big catalog's content goes (issue 32): the real catalogd binary
// (cmd/catalogd/main.ts as a child process) against a real kube-apiserver and registry, two runs:
//  - delete: catalogd started with --max-catalog-files above BENCH_RELEASE_FILES (default 200,000);
//    RSS idle (baseline), a ClusterCatalog of that many tiny files (bench/catalogd-files.ts's image)
//    to Serving with /api/v1/all and metas queries served (peak, VmHWM), then the ClusterCatalog
//    deleted (until it is gone): RSS 5, 30, 60 and 90 s later;
//  - refuse: catalogd with its default file limit (100,000); baseline, then a ClusterCatalog of
//    100,001 files until Progressing says the limit refused it: peak, and RSS 5, 30 and 60 s later.
// Target: back within max(64 MiB, 25 %) of the baseline within 60 s. Each sample is the lowest of
// the 5 one-second samples before it (memory.ts idleRss). BENCH_RELEASE_BASE=<checkout> runs that
// checkout's catalogd first (e.g. main, for a before/after in one run).
// Upstream's catalogd (operator-controller v1.2.0 cmd/catalogd, built as catalogd-peer builds it: test/envtest/build.sh
// catalogd-upstream) runs after ours, against the same API server, registry and images, its RSS read from /proc the
// same way: the same delete run, and the 100,001-file image, which upstream (no file limit) unpacks and serves, then
// deleted as ours is (upstream's ClusterCatalog CRD installed first; TLS with a self-signed pair; the plain-HTTP registry
// told to containers/image by $HOME/.config/containers/registries.conf). BENCH_RELEASE_UPSTREAM=0 leaves it out; its
// column is skipped with a note when its build fails.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { ControlPlane, type ControlPlaneInfo } from '../test/support/control-plane.ts';
import { installCrds, yamlFiles } from '../test/support/crds.ts';
import { CATALOG_LABEL, MEDIA, pushImage } from '../test/support/images.ts';
import { TestKube } from '../test/support/kube.ts';
import { freePort, waitFor } from '../test/support/net.ts';
import { startProcess, stopProcess, type Managed } from '../test/support/process.ts';
import { Registry } from '../test/support/registry.ts';
import { startCatalogdFromSource, tinyFilesLayer, waitForCatalogdReady } from './catalogd-files.ts';
import { UPSTREAM_CATALOG_CRD, upstreamBinary } from './catalogd-peer.ts';
import type { Figure } from './control-plane.ts';
import { idleRss, procMemory, rssSampler } from './memory.ts';

const FILES = Number(process.env.BENCH_RELEASE_FILES ?? 200_000);
const DEFAULT_LIMIT = 100_000;
const here = fileURLToPath(new URL('..', import.meta.url));
const mib = (n: number): number => Number((n / 1048576).toFixed(1));

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

interface Started {
  proc: Managed;
  pid: number;
  base: string;
}

/** Starts one catalogd in `dir`; `maxFiles` is ours' --max-catalog-files (upstream has no such limit). */
type Starter = (dir: string, maxFiles?: number) => Promise<Started>;

/** Our catalogd of checkout `root` (cmd/catalogd/main.ts as a child process). */
function ours(root: string, info: ControlPlaneInfo, registryHost: string): Starter {
  return async (dir, maxFiles) => {
    await mkdir(dir, { recursive: true });
    const { proc, pid, port } = await startCatalogdFromSource(root, info.kubeconfigPath, registryHost, dir, maxFiles);
    return { proc, pid, base: `http://127.0.0.1:${port}` };
  };
}

/** Upstream's catalogd binary, as catalogd-peer starts it (TLS with `tls`, the registry insecure by registries.conf). */
function upstream(binary: string, info: ControlPlaneInfo, registryHost: string, tls: { cert: string; key: string }): Starter {
  return async (dir) => {
    await mkdir(join(dir, '.config', 'containers'), { recursive: true });
    await mkdir(join(dir, 'cache'), { recursive: true });
    await writeFile(join(dir, '.config', 'containers', 'registries.conf'), `[[registry]]\nlocation = "${registryHost}"\ninsecure = true\n`);
    const port = await freePort();
    const health = await freePort();
    const webhook = await freePort();
    const proc = startProcess(
      binary,
      [
        `--catalogs-server-addr=127.0.0.1:${port}`,
        `--external-address=127.0.0.1:${port}`,
        `--cache-dir=${join(dir, 'cache')}`,
        `--tls-cert=${tls.cert}`,
        `--tls-key=${tls.key}`,
        `--health-probe-bind-address=127.0.0.1:${health}`,
        `--webhook-server-port=${webhook}`,
        '--feature-gates=APIV1MetasHandler=true',
      ],
      join(dir, 'catalogd.log'),
      { ...process.env, KUBECONFIG: info.kubeconfigPath, TMPDIR: dir, HOME: dir },
    );
    await waitForCatalogdReady(proc, health);
    return { proc, pid: proc.pid, base: `https://127.0.0.1:${port}` };
  };
}

async function conditions(kube: TestKube, name: string): Promise<Condition[] | undefined> {
  const c = await kube.request<{ status?: { conditions?: Condition[] } }>('GET', `/apis/olm.operatorframework.io/v1/clustercatalogs/${name}`);
  return c.status === 404 ? undefined : (c.body.status?.conditions ?? []);
}

async function create(kube: TestKube, name: string, ref: string): Promise<void> {
  await kube.must(
    kube.request('POST', '/apis/olm.operatorframework.io/v1/clustercatalogs', {
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterCatalog',
      metadata: { name },
      spec: { source: { type: 'Image', image: { ref } } },
    }),
  );
}

/** Self-signed TLS (upstream's server) accepted; plain HTTP (ours) unaffected. */
const insecure = new Agent({ connect: { rejectUnauthorized: false } });

async function download(url: string): Promise<number> {
  const res = await request(url, { dispatcher: insecure });
  let bytes = 0;
  for await (const chunk of res.body) bytes += (chunk as Buffer).length;
  if (res.statusCode !== 200) throw new Error(`${url}: HTTP ${res.statusCode}`);
  return bytes;
}

/**
 * Both runs with one catalogd; figures labelled `label`. `limited`: the catalogd refuses the 100,001-file image (ours,
 * --max-catalog-files at its default); otherwise (upstream) that image is unpacked and served, then deleted.
 */
async function run(label: string, start: Starter, kube: TestKube, big: string, refused: string, limited: boolean): Promise<Figure[]> {
  const figures: Figure[] = [];
  const dir = await mkdtemp(join(tmpdir(), 'bench-catalogd-release-'));
  try {
    // delete
    let cd = await start(join(dir, 'a'), FILES + 10);
    try {
      const baseline = (await idleRss(cd.pid, 10)).last;
      const sampler = rssSampler(cd.pid);
      const t0 = performance.now();
      await create(kube, 'big', big);
      await waitFor('big Serving', async () => {
        const cs = await conditions(kube, 'big');
        const p = cs?.find((x) => x.type === 'Progressing');
        if (p?.status === 'False') throw new Error(`big: ${p.message ?? ''}`);
        return cs?.some((x) => x.type === 'Serving' && x.status === 'True') ?? false;
      }, { timeoutMs: 900_000, intervalMs: 250 });
      const servingMs = performance.now() - t0;
      await download(`${cd.base}/catalogs/big/api/v1/all`);
      await download(`${cd.base}/catalogs/big/api/v1/metas?schema=bench.tiny`);
      await download(`${cd.base}/catalogs/big/api/v1/metas?name=n12345`);
      await download(`${cd.base}/catalogs/big/api/v1/metas?name=n12345`);
      const serving = (await procMemory(cd.pid)).rss;
      await kube.must(kube.request('DELETE', '/apis/olm.operatorframework.io/v1/clustercatalogs/big'));
      await waitFor('big gone', async () => (await conditions(kube, 'big')) === undefined, { timeoutMs: 600_000, intervalMs: 250 });
      const after = await idleRss(cd.pid, 90);
      const peak = Math.max(sampler.stop(), (await procMemory(cd.pid)).hwm);
      const limit = baseline + Math.max(64 * 1048576, baseline / 4);
      figures.push(
        { name: `${label}: delete — RSS baseline (idle)`, value: mib(baseline), unit: 'MiB' },
        { name: `${label}: delete — time to Serving, ${FILES} files`, value: Math.round(servingMs / 1000), unit: 's' },
        { name: `${label}: delete — RSS serving (after /all, metas)`, value: mib(serving), unit: 'MiB' },
        { name: `${label}: delete — peak RSS (VmHWM)`, value: mib(peak), unit: 'MiB' },
        ...[5, 30, 60, 90].map((s) => ({ name: `${label}: delete — RSS ${s} s after the catalog is gone`, value: mib(after.at(s)), unit: 'MiB' })),
        { name: `${label}: delete — within max(64 MiB, 25 %) of baseline at 60 s`, value: after.at(60) <= limit ? 1 : 0, unit: 'yes', note: `limit ${mib(limit)} MiB` },
      );
    } finally {
      await stopProcess(cd.proc);
    }

    // refuse
    cd = await start(join(dir, 'b'));
    try {
      const baseline = (await idleRss(cd.pid, 10)).last;
      const sampler = rssSampler(cd.pid);
      await create(kube, 'refused', refused);
      let message = '';
      await waitFor(limited ? 'refused by the file limit' : 'refused Serving (no file limit)', async () => {
        const cs = await conditions(kube, 'refused');
        const p = cs?.find((x) => x.type === 'Progressing');
        message = p?.message ?? '';
        if (!limited && p?.status === 'False') throw new Error(`refused: ${message}`);
        return limited ? /max-catalog-files/.test(message) : (cs?.some((x) => x.type === 'Serving' && x.status === 'True') ?? false);
      }, { timeoutMs: 900_000, intervalMs: 250 });
      await kube.must(kube.request('DELETE', '/apis/olm.operatorframework.io/v1/clustercatalogs/refused'));
      await waitFor('refused gone', async () => (await conditions(kube, 'refused')) === undefined, { timeoutMs: 600_000, intervalMs: 250 });
      const after = await idleRss(cd.pid, 60);
      const peak = Math.max(sampler.stop(), (await procMemory(cd.pid)).hwm);
      const limit = baseline + Math.max(64 * 1048576, baseline / 4);
      figures.push(
        { name: `${label}: refuse — RSS baseline (idle)`, value: mib(baseline), unit: 'MiB' },
        { name: `${label}: refuse — peak RSS (VmHWM)`, value: mib(peak), unit: 'MiB', note: limited ? message.slice(0, 120) : `no file limit: ${DEFAULT_LIMIT + 1} files served, then deleted` },
        ...[5, 30, 60].map((s) => ({ name: `${label}: refuse — RSS ${s} s after the ${limited ? 'refusal' : 'catalog is gone'}`, value: mib(after.at(s)), unit: 'MiB' })),
        { name: `${label}: refuse — within max(64 MiB, 25 %) of baseline at 60 s`, value: after.at(60) <= limit ? 1 : 0, unit: 'yes', note: `limit ${mib(limit)} MiB` },
      );
    } finally {
      await stopProcess(cd.proc);
    }
    return figures;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function benchCatalogdRelease(): Promise<Figure[]> {
  const cp = new ControlPlane();
  const reg = new Registry();
  try {
    const [info, regInfo] = await Promise.all([cp.start(), reg.start()]);
    const kube = new TestKube(info);
    await installCrds(kube, await yamlFiles(fileURLToPath(new URL('../config/crd/bases', import.meta.url))));
    const image = async (name: string, files: number): Promise<string> =>
      (await pushImage(regInfo, name, { labels: { [CATALOG_LABEL]: '/configs' }, layers: [{ blob: tinyFilesLayer(files), mediaType: MEDIA.ociLayerGzip }] })).ref;
    const big = await image('bench/release-big:v1', FILES);
    const refused = await image('bench/release-refused:v1', DEFAULT_LIMIT + 1);
    const figures: Figure[] = [];
    const base = process.env.BENCH_RELEASE_BASE;
    if (base) figures.push(...(await run('before', ours(base, info, regInfo.host), kube, big, refused, true)));
    figures.push(...(await run(base ? 'after' : 'catalogd', ours(here, info, regInfo.host), kube, big, refused, true)));
    if (process.env.BENCH_RELEASE_UPSTREAM === '0') figures.push({ name: 'upstream catalogd', value: 0, unit: '', note: 'left out (BENCH_RELEASE_UPSTREAM=0)' });
    else {
      const built = await upstreamBinary();
      if ('skipped' in built) figures.push({ name: 'upstream column skipped', value: 0, unit: '', note: built.skipped });
      else {
        const dir = await mkdtemp(join(tmpdir(), 'bench-catalogd-release-tls-'));
        try {
          const tls = { cert: join(dir, 'tls.crt'), key: join(dir, 'tls.key') };
          execFileSync(
            'openssl',
            ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', tls.key, '-out', tls.cert],
            { stdio: 'ignore' },
          );
          await installCrds(kube, [UPSTREAM_CATALOG_CRD]);
          figures.push(...(await run('upstream', upstream(built.path, info, regInfo.host, tls), kube, big, refused, false)));
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      }
    }
    return figures;
  } finally {
    await insecure.close();
    await reg.stop();
    await cp.stop();
  }
}
