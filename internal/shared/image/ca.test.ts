// The CA directory and its watcher (upstream operator-controller #2175, certpoolwatcher.go) on real files and
// inotify: upstream's errors, log lines and exits.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../observability/index.ts';
import { loadCaDir, watchCaPool, type CaPool } from './ca.ts';

let tmp: string;
let certA: string;
let certB: string;

function certificate(cn: string): string {
  const out = join(tmp, `${cn}.crt`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', `/CN=${cn}`, '-keyout', join(tmp, `${cn}.key`), '-out', out], {
    stdio: 'ignore',
  });
  return out;
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'ca-pool-'));
  certA = (await readFile(certificate('a'))).toString();
  certB = (await readFile(certificate('b'))).toString();
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function freshDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmp, 'dir-'));
  for (const [name, data] of Object.entries(files)) await writeFile(join(dir, name), data);
  return dir;
}

/** A watcher on `dir` whose log lines, reloads and exits are recorded; each `next*` resolves on the next one. */
async function watched(dir: string | undefined, env: Record<string, string> = {}) {
  const lines: Record<string, unknown>[] = [];
  const waiters: { what: 'reload' | 'exit'; resolve: (v: unknown) => void }[] = [];
  const wake = (what: 'reload' | 'exit', v: unknown): void => {
    for (const w of waiters.filter((x) => x.what === what)) w.resolve(v);
    waiters.splice(0, waiters.length, ...waiters.filter((x) => x.what !== what));
  };
  const logger = createLogger({ level: 'debug', write: (line) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const pool = await watchCaPool({ ...(dir && { dir }), env, logger, exit: (code) => wake('exit', code), onReload: (p) => wake('reload', p) });
  const next = <T,>(what: 'reload' | 'exit'): Promise<T> => new Promise<T>((resolve) => waiters.push({ what, resolve: resolve as (v: unknown) => void }));
  return { pool, lines, nextReload: () => next<CaPool>('reload'), nextExit: () => next<number>('exit') };
}

describe('loadCaDir (upstream NewCertPool)', () => {
  it('takes every file’s certificates, skips subdirectories and files without one', async () => {
    const dir = await freshDir({ 'a.crt': certA, 'both.pem': certA + certB, 'notes.txt': 'not a certificate' });
    await mkdir(join(dir, 'sub'));
    expect(await loadCaDir(dir)).toEqual([certA.trim(), certA.trim(), certB.trim()]);
  });

  it('refuses a directory without certificates, and one it cannot read, as upstream', async () => {
    const dir = await freshDir({ 'notes.txt': 'nothing here' });
    await expect(loadCaDir(dir)).rejects.toThrow(`no certificates found in "${dir}"`);
    await expect(loadCaDir(join(tmp, 'missing'))).rejects.toThrow('ENOENT');
  });
});

describe('watchCaPool (upstream CertPoolWatcher)', () => {
  it('reloads the pool when the directory changes: one update per burst, a new generation', async () => {
    const dir = await freshDir({ 'a.crt': certA });
    const w = await watched(dir);
    try {
      expect(w.pool.generation).toBe(1);
      expect(w.pool.certs).toEqual([certA.trim()]);
      expect(w.lines).toContainEqual(expect.objectContaining({ msg: 'watching certificate directory', directory: dir }));
      const reload = w.nextReload();
      await writeFile(join(dir, 'b.crt'), certB);
      const p = await reload;
      expect(p.generation).toBe(2);
      expect(p.certs).toEqual([certA.trim(), certB.trim()]);
      expect(w.lines.filter((l) => l.msg === 'updating certificate pool')).toEqual([expect.objectContaining({ level: 'info', file: join(dir, 'b.crt') })]);
    } finally {
      w.pool.stop();
    }
  });

  it('exits 1 when the changed directory no longer holds a certificate', async () => {
    const dir = await freshDir({ 'a.crt': certA });
    const w = await watched(dir);
    try {
      const exit = w.nextExit();
      await writeFile(join(dir, 'a.crt'), 'emptied');
      expect(await exit).toBe(1);
      expect(w.lines).toContainEqual(expect.objectContaining({ level: 'error', msg: 'error updating certificate pool' }));
      expect(w.pool.generation).toBe(1);
    } finally {
      w.pool.stop();
    }
  });

  it('exits 0 when a file under SSL_CERT_DIR or SSL_CERT_FILE changes (the system pool is read once)', async () => {
    const sslDir = await freshDir({ 'ca-bundle.crt': certA });
    const sslFile = join(await freshDir({ 'cert.pem': certB }), 'cert.pem');
    const w = await watched(undefined, { SSL_CERT_DIR: `${sslDir}:${join(tmp, 'absent')}`, SSL_CERT_FILE: sslFile });
    try {
      expect(w.pool.certs).toEqual([]);
      let exit = w.nextExit();
      await writeFile(join(sslDir, 'new.crt'), certB);
      expect(await exit).toBe(0);
      expect(w.lines).toContainEqual(expect.objectContaining({ level: 'info', msg: 'restarting due to file change', file: join(sslDir, 'new.crt') }));
      exit = w.nextExit();
      await writeFile(sslFile, certA);
      expect(await exit).toBe(0);
      expect(w.lines).toContainEqual(expect.objectContaining({ msg: 'restarting due to file change', file: sslFile }));
    } finally {
      w.pool.stop();
    }
  });

  it('watches nothing when there is neither a directory nor a system store path', async () => {
    const w = await watched(undefined);
    w.pool.stop();
    expect(w.lines).toContainEqual(expect.objectContaining({ level: 'info', msg: 'No paths to watch' }));
  });
});
