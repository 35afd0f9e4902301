// The controllers as the image runs them, for the benches that measure a process: a checkout's production build
// (the Dockerfile's steps: tsc, then cmd/bundle.ts), started with test/support/process.ts startBundled (through
// cmd/entrypoint.sh, so the image's node flags apply).
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Builds `checkout` (default this one) into <checkout>/.cache/footprint/dist with that checkout's own tsc and
 * cmd/bundle.ts; `BENCH_FOOTPRINT_DIST` (a dist under this checkout) is used as it is instead.
 */
export async function productionDist(checkout = ROOT): Promise<string> {
  const given = process.env.BENCH_FOOTPRINT_DIST;
  if (given && checkout === ROOT) return join(ROOT, given);
  const out = join(checkout, '.cache', 'footprint', 'dist');
  await rm(out, { recursive: true, force: true });
  const run = promisify(execFile);
  await run(process.execPath, [join(checkout, 'node_modules/typescript/bin/tsc'), '-p', join(checkout, 'tsconfig.build.json'), '--outDir', out], { cwd: checkout });
  await run(process.execPath, ['--import', 'tsx', join(checkout, 'cmd/bundle.ts'), out], { cwd: checkout });
  return out;
}
