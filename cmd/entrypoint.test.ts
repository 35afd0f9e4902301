// cmd/entrypoint.sh, the image's entrypoint, run with a stand-in dist: which module it starts, with which node
// flags and malloc setting (the memory settings of issue 17), and how OLMV1_NODE_FLAGS and MALLOC_MMAP_THRESHOLD_
// override them.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ENTRYPOINT = fileURLToPath(new URL('./entrypoint.sh', import.meta.url));
const REPORT = "console.log(JSON.stringify({ main: process.argv[1], args: process.argv.slice(2), flags: process.execArgv, mmap: process.env.MALLOC_MMAP_THRESHOLD_ ?? null }))";
let dist = '';

beforeAll(async () => {
  dist = await mkdtemp(join(tmpdir(), 'entrypoint-'));
  await mkdir(join(dist, 'bin', 'catalogd'), { recursive: true });
  await writeFile(join(dist, 'bin', 'catalogd', 'main.mjs'), REPORT);
  await mkdir(join(dist, 'cmd', 'kubectl-olm'), { recursive: true });
  await writeFile(join(dist, 'cmd', 'kubectl-olm', 'main.js'), REPORT);
});
afterAll(() => rm(dist, { recursive: true, force: true }));

async function run(args: string[], env: Record<string, string> = {}): Promise<{ main: string; args: string[]; flags: string[]; mmap: string | null }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'MALLOC_MMAP_THRESHOLD_' && k !== 'OLMV1_NODE_FLAGS'));
  const { stdout } = await promisify(execFile)('sh', [ENTRYPOINT, ...args], { env: { ...clean, OLMV1_DIST: dist, ...env } });
  return JSON.parse(stdout) as { main: string; args: string[]; flags: string[]; mmap: string | null };
}

describe('cmd/entrypoint.sh', () => {
  it("runs a controller's bundle with no node flags (they would cost node's code cache) and glibc's mmap threshold fixed", async () => {
    expect(await run(['catalogd', '--cache-dir=/x'])).toEqual({
      main: join(dist, 'bin', 'catalogd', 'main.mjs'),
      args: ['--cache-dir=/x'],
      flags: [],
      mmap: '131072',
    });
  });

  it("runs what has no bundle (kubectl-olm) from tsc's output", async () => {
    expect((await run(['kubectl-olm', 'version'])).main).toBe(join(dist, 'cmd', 'kubectl-olm', 'main.js'));
  });

  it('OLMV1_NODE_FLAGS gives node flags; a MALLOC_MMAP_THRESHOLD_ already set is kept', async () => {
    expect(await run(['catalogd'], { OLMV1_NODE_FLAGS: '--max-old-space-size=256 --expose-gc', MALLOC_MMAP_THRESHOLD_: '65536' })).toMatchObject({
      flags: ['--max-old-space-size=256', '--expose-gc'],
      mmap: '65536',
    });
  });

  it.each([
    { args: ['operator-controler', '--help'], line: 'olmv1: unknown binary "operator-controler"; usage: olmv1 catalogd|operator-controller|olm-classic|kubectl-olm [flags]' },
    { args: ['../cmd/kubectl-olm'], line: 'olmv1: unknown binary "../cmd/kubectl-olm"; usage: olmv1 catalogd|operator-controller|olm-classic|kubectl-olm [flags]' },
    { args: [], line: 'usage: olmv1 catalogd|operator-controller|olm-classic|kubectl-olm [flags]' },
  ])('answers $args with one usage line on stderr and exit 2, no node stack', async ({ args, line }) => {
    const failure = await promisify(execFile)('sh', [ENTRYPOINT, ...args], { env: { ...process.env, OLMV1_DIST: dist } }).then(
      () => undefined,
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(failure).toMatchObject({ code: 2, stdout: '', stderr: `${line}\n` });
  });
});
