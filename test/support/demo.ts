// The demo operator (demo/) in a test registry: its bundles pushed with `kubectl olm bundle push`
// and its catalog with `kubectl olm catalog push` (run in process), image references rewritten
// from `localhost:5001` (where `make run` serves them) to the given registry.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCaptured } from '../../internal/cli/index.ts';
import { loadCatalog } from '../../internal/shared/fbc/index.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The registry the demo catalog names (make run's). */
export const DEMO_REGISTRY = 'localhost:5001';

/** Pushes the demo to `host`; `work` holds the rewritten catalog. Returns the catalog image reference. */
export async function publishDemo(host: string, work: string): Promise<string> {
  const olm = async (argv: string[]): Promise<void> => {
    const r = await runCaptured(argv, { cwd: root, env: process.env });
    if (r.code !== 0) throw new Error(`kubectl olm ${argv.join(' ')}: ${r.stdout}${r.stderr}`);
  };
  const { config } = await loadCatalog(join(root, 'demo', 'catalog'));
  for (const b of config.bundles) await olm(['bundle', 'push', join(root, 'demo', 'bundles', b.name), b.image.replace(DEMO_REGISTRY, host), '--plain-http']);
  const from = join(root, 'demo', 'catalog', 'demo-operator');
  const to = join(work, 'catalog', 'demo-operator');
  await mkdir(to, { recursive: true });
  for (const f of await readdir(from)) await writeFile(join(to, f), (await readFile(join(from, f), 'utf8')).replaceAll(DEMO_REGISTRY, host));
  const image = `${host}/olm-demo/catalog:latest`;
  await olm(['catalog', 'push', join(work, 'catalog'), image, '--plain-http']);
  return image;
}
