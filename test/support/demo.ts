// The demo operator (demo/) in a test registry: its bundles pushed with `kubectl olm bundle push`
// and its catalog with `kubectl olm catalog push` (run in process), image references rewritten
// from `localhost:5001` (where `make run` serves them) to the given registry. The classic tests' catalog images: a
// catalog directory (by default the demo catalog, as it is) pushed in process, and the demo catalog with a new head.
import { cp, mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCaptured } from '../../internal/cli/index.ts';
import { publishCatalog } from '../../internal/publish/index.ts';
import { loadCatalog } from '../../internal/shared/fbc/index.ts';
import { RegistryClient, parseReference } from '../../internal/shared/image/index.ts';
import { clusterBinaries } from './binaries.ts';
import { pushBinaryImage } from './cluster-images.ts';
import { DEMO_REGISTRY } from './registry.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
export { DEMO_REGISTRY };

/** The demo catalog's directory (demo/catalog), its image references as `make run` pushes them. */
export const DEMO_CATALOG = join(root, 'demo', 'catalog');

/** Publishes the catalog directory `dir` (default: the demo catalog) as `<host>/<repoTag>`, as `kubectl olm catalog push` does; its digest reference. */
export async function pushCatalogDir(host: string, repoTag: string, dir = DEMO_CATALOG): Promise<string> {
  const client = new RegistryClient({ insecureRegistries: [host] });
  try {
    return (await publishCatalog(dir, parseReference(`${host}/${repoTag}`), { client })).digestRef;
  } finally {
    await client.close();
  }
}

/** A copy of the demo catalog with demo-operator.v0.4.0 also in stable (stable's head: a new package version); the caller removes it. */
export async function demoWithStableV4(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'olm-demo-stable-v4-'));
  await cp(DEMO_CATALOG, dir, { recursive: true });
  const channels = join(dir, 'demo-operator', 'channels.yaml');
  const text = await readFile(channels, 'utf8');
  const stableEnd = text.indexOf('---');
  await writeFile(channels, `${text.slice(0, stableEnd)}- name: demo-operator.v0.4.0\n  replaces: demo-operator.v0.3.0\n${text.slice(stableEnd)}`);
  return dir;
}

/**
 * The demo operator's image (demo/operator, built on first use) as `<host>/olm-demo/demo-operator:v<version>` for each
 * bundle of the demo catalog: what the bundles' Deployment names at `registry.example.com`, which real nodes mirror to
 * the local registry.
 */
export async function pushDemoOperator(host: string): Promise<void> {
  const { config } = await loadCatalog(DEMO_CATALOG);
  const { demoOperator } = await clusterBinaries();
  for (const b of config.bundles) {
    const tag = `v${b.name.slice(`${b.package}.v`.length)}`;
    await pushBinaryImage(host, 'demo-operator', demoOperator, { repository: 'olm-demo/demo-operator', tag, runtime: { user: '65532:65532' } });
  }
}

/**
 * Pushes the demo to `host` — the operator's image (demo/operator) once per bundle version, each bundle, the catalog —;
 * `work` holds the rewritten catalog. Returns the catalog image reference.
 */
export async function publishDemo(host: string, work: string): Promise<string> {
  const olm = async (argv: string[]): Promise<void> => {
    const r = await runCaptured(argv, { cwd: root, env: process.env });
    if (r.code !== 0) throw new Error(`kubectl olm ${argv.join(' ')}: ${r.stdout}${r.stderr}`);
  };
  const { config } = await loadCatalog(join(root, 'demo', 'catalog'));
  await pushDemoOperator(host);
  for (const b of config.bundles) await olm(['bundle', 'push', join(root, 'demo', 'bundles', b.name), b.image.replace(DEMO_REGISTRY, host), '--plain-http']);
  const from = join(root, 'demo', 'catalog', 'demo-operator');
  const to = join(work, 'catalog', 'demo-operator');
  await mkdir(to, { recursive: true });
  for (const f of await readdir(from)) await writeFile(join(to, f), (await readFile(join(from, f), 'utf8')).replaceAll(DEMO_REGISTRY, host));
  const image = `${host}/olm-demo/catalog:latest`;
  await olm(['catalog', 'push', join(work, 'catalog'), image, '--plain-http']);
  return image;
}
