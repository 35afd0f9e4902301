// Writes config/crd/{bases,experimental}/*.yaml from the CRD data in api/v1/schema, and
// config/crd/classic/*.yaml (operators.coreos.com) from api/operators/schema.
//   npm run crd:generate            write the manifests
//   npm run crd:generate -- --check exit 1 when the manifests on disk differ (CI drift check)
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderClassic } from './operators/schema/index.ts';
import { renderAll, renderExperimental } from './v1/schema/index.ts';

const crdDir = fileURLToPath(new URL('../config/crd/', import.meta.url));
const check = process.argv.includes('--check');

async function current(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

const drifted: string[] = [];
for (const [dir, manifests] of [
  ['bases', renderAll()],
  ['experimental', renderExperimental()],
  ['classic', renderClassic()],
] as const) {
  if (!check) await mkdir(join(crdDir, dir), { recursive: true });
  for (const [name, content] of manifests) {
    const file = join(crdDir, dir, name);
    if ((await current(file)) === content) continue;
    if (check) drifted.push(`${dir}/${name}`);
    else {
      await writeFile(file, content);
      console.log(`wrote config/crd/${dir}/${name}`);
    }
  }
}
if (drifted.length) {
  console.error(`CRD manifests out of date: ${drifted.join(', ')}; run \`npm run crd:generate\``);
  process.exit(1);
}
