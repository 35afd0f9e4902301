// A controller binary started before its cluster is usable: a missing or malformed kubeconfig, or
// an API server that is down, gives one clear JSON log line per attempt and retries with growing
// delays — never a crash loop — and the process starts working once the problem is fixed.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { kubeconfig } from '../../support/control-plane.ts';
import { controlPlane } from '../../support/env.ts';
import { freePort, processAlive, waitFor } from '../../support/net.ts';
import { startProcess, stopProcess, type Managed } from '../../support/process.ts';

const MAIN = fileURLToPath(new URL('../../../cmd/operator-controller/main.ts', import.meta.url));

interface LogLine {
  readonly level: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

let dir: string;
const running: Managed[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'manager-startup-'));
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => stopProcess(p)));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function start(name: string, kubeconfigPath: string): Promise<Managed> {
  const port = await freePort();
  const p = startProcess(
    'node',
    ['--import', 'tsx', MAIN, `--kubeconfig=${kubeconfigPath}`, `--health-probe-bind-address=127.0.0.1:${port}`],
    join(dir, `${name}.log`),
  );
  running.push(p);
  return p;
}

async function lines(p: Managed): Promise<LogLine[]> {
  const text = await readFile(p.logFile, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}

async function until(p: Managed, what: string, check: (ls: LogLine[]) => boolean): Promise<LogLine[]> {
  let seen: LogLine[] = [];
  await waitFor(
    what,
    async () => {
      seen = await lines(p);
      return check(seen);
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  );
  return seen;
}

describe('controller start-up with an unusable cluster configuration', () => {
  it('a missing kubeconfig: one line per attempt naming the file, growing delays, then starts once the file appears', async () => {
    const path = join(dir, 'later.kubeconfig');
    const p = await start('missing', path);
    const failures = (ls: LogLine[]): LogLine[] => ls.filter((l) => l.msg.startsWith('cannot use cluster configuration'));
    const seen = await until(p, 'two failed attempts', (ls) => failures(ls).length >= 2);
    const [first, second] = failures(seen);
    expect(first).toMatchObject({ level: 'error', msg: `cannot use cluster configuration: kubeconfig ${path}: file does not exist`, file: path, attempt: 1 });
    expect(second).toMatchObject({ attempt: 2 });
    expect(Number(second?.retryInMs)).toBeGreaterThan(Number(first?.retryInMs));
    expect(processAlive(p.pid)).toBe(true);

    const cp = controlPlane();
    await writeFile(path, kubeconfig(cp.server, cp.caPem, cp.adminToken), { mode: 0o600 });
    await until(p, 'controllers started', (ls) => ls.some((l) => l.msg === 'caches synced; starting controllers'));
    await stopProcess(p);
    expect(await p.exited).toBe(0);
  });

  it('a malformed kubeconfig: the YAML problem in one line per attempt, and the process stays up', async () => {
    const path = join(dir, 'malformed.kubeconfig');
    await writeFile(path, 'apiVersion: v1\nclusters:\n- name: x\n  cluster: [unclosed\n');
    const p = await start('malformed', path);
    const seen = await until(p, 'two failed attempts', (ls) => ls.filter((l) => l.level === 'error').length >= 2);
    const errors = seen.filter((l) => l.level === 'error');
    expect(errors[0]?.msg).toBe(
      `cannot use cluster configuration: kubeconfig ${path}: not valid YAML: unexpected end of the stream within a flow collection (line 5, column 1)`,
    );
    expect(errors.map((l) => l.attempt)).toEqual(errors.map((_, i) => i + 1));
    expect(processAlive(p.pid)).toBe(true);
  });

  it('an API server that is down: the list failure is logged with its retry delay, and the process stays up', async () => {
    const cp = controlPlane();
    const path = join(dir, 'down.kubeconfig');
    const port = await freePort();
    await writeFile(path, kubeconfig(`https://127.0.0.1:${port}`, cp.caPem, cp.adminToken), { mode: 0o600 });
    const p = await start('down', path);
    const seen = await until(p, 'two failed lists', (ls) => ls.filter((l) => l.msg === 'list failed; retrying after backoff').length >= 2);
    const failed = seen.filter((l) => l.msg === 'list failed; retrying after backoff');
    expect(JSON.stringify(failed[0]?.err)).toContain('ECONNREFUSED');
    expect(failed[0]).toHaveProperty('retryInMs');
    expect(processAlive(p.pid)).toBe(true);
    expect(seen.some((l) => l.msg === 'caches synced; starting controllers')).toBe(false);
  });
});
