// Builds the CLI that bin/kubectl-olm runs: cmd/kubectl-olm/cli.ts (its `main`) and everything it
// imports (npm packages included) bundled by esbuild into dist/kubectl-olm/, one ES module per lazily
// loaded command (code splitting), so `kubectl olm --help` parses only the small entry chunk. Also writes
// inputs.json — the checkout files the bundle was built from — so bin/kubectl-olm rebuilds when one
// changed. Run by `make build`, `npm pack` (prepack) and, on first use in a checkout, bin/kubectl-olm.
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { NODE_ESM_BUNDLE } from '../bundle.ts';
import { realClock } from '../../internal/shared/toolkit/index.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const BUNDLE_DIR = join(root, 'dist', 'kubectl-olm');

export async function bundleCli(outdir = BUNDLE_DIR): Promise<{ readonly files: number; readonly inputs: number }> {
  const tmp = `${outdir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  const started = realClock.date().getTime();
  const result = await build({
    entryPoints: { cli: join(root, 'cmd', 'kubectl-olm', 'cli.ts') },
    outdir: tmp,
    ...NODE_ESM_BUNDLE,
  });
  const inputs = Object.keys(result.metafile.inputs)
    .map((p) => relative(root, join(root, p)))
    .filter((p) => !p.startsWith('node_modules/') && !p.startsWith('..'))
    .sort();
  await writeFile(join(tmp, 'inputs.json'), `${JSON.stringify({ builtAt: started, inputs: [...inputs, 'package-lock.json'] }, null, 1)}\n`);
  await writeFile(join(tmp, 'package.json'), '{ "type": "module" }\n');
  await rm(outdir, { recursive: true, force: true });
  await mkdir(join(outdir, '..'), { recursive: true });
  await rename(tmp, outdir);
  return { files: Object.keys(result.metafile.outputs).length, inputs: inputs.length };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const outdir = args.find((a) => !a.startsWith('--')) ?? BUNDLE_DIR;
  const r = await bundleCli(outdir);
  if (!args.includes('--quiet')) console.log(`kubectl-olm bundled into ${relative(process.cwd(), outdir) || '.'} (${r.files} files from ${r.inputs} sources)`);
}
