// Writes config/crd/bases/*.yaml from the CRD data in api/v1/schema.
//   npm run crd:generate            write the manifests
//   npm run crd:generate -- --check exit 1 when the manifests on disk differ (CI drift check)
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderAll } from './v1/schema/index.ts';

const outDir = fileURLToPath(new URL('../config/crd/bases/', import.meta.url));
const check = process.argv.includes('--check');

async function current(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

const drifted: string[] = [];
if (!check) await mkdir(outDir, { recursive: true });
for (const [name, content] of renderAll()) {
  const file = join(outDir, name);
  if ((await current(file)) === content) continue;
  if (check) drifted.push(name);
  else {
    await writeFile(file, content);
    console.log(`wrote config/crd/bases/${name}`);
  }
}
if (drifted.length) {
  console.error(`CRD manifests out of date: ${drifted.join(', ')}; run \`npm run crd:generate\``);
  process.exit(1);
}
