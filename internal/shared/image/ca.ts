// Extra trust from a directory of PEM files (a mounted ConfigMap or Secret), for registry and
// catalogd clients; and the pool of it kept current as upstream's CertPoolWatcher keeps it
// (operator-controller #2175, internal/shared/util/http/certpoolwatcher.go).
//
// watchCaPool reads the directory (`no certificates found in "<dir>"` when no file holds a certificate) and watches it,
// with the system trust store's `SSL_CERT_DIR` (colon-separated) and `SSL_CERT_FILE` when they exist. A change to the
// directory reloads the pool (`updating certificate pool`; the clients holding it build new connections with it); a
// change under `SSL_CERT_DIR` / `SSL_CERT_FILE` ends the process with code 0 (`restarting due to file change`), since
// a process's system pool is read once, so that it restarts with the new one; a pool that no longer loads, or a
// watch that fails, ends it with code 1 — upstream's log lines and exits.
import { X509Certificate } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../toolkit/index.ts';

/** Every file in `dir`, sorted by name; dotfiles (a mount's `..data`) and subdirectories skipped. */
export async function readCertificateDir(dir: string): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (const name of (await readdir(dir)).sort()) {
    if (name.startsWith('.')) continue;
    try {
      out.push(await readFile(join(dir, name)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EISDIR') throw err;
    }
  }
  return out;
}

/** Extra CA certificates that may change: clients compare `generation` with the one their connections were built for. */
export interface CaPool {
  /** PEM certificates, one a string. */
  readonly certs: readonly string[];
  /** 1 when first read, one more per reload. */
  readonly generation: number;
}

/** A client's `ca` option: fixed PEM data, or a pool that may change. */
export type CaSource = string | Buffer | readonly (string | Buffer)[] | CaPool;

export function isCaPool(ca: CaSource | undefined): ca is CaPool {
  return typeof ca === 'object' && ca !== null && !Buffer.isBuffer(ca) && !Array.isArray(ca) && 'generation' in ca;
}

/** The PEM data of a source and its generation (0 for fixed data). */
export function caCertificates(ca: CaSource): { readonly certs: readonly (string | Buffer)[]; readonly generation: number } {
  if (isCaPool(ca)) return { certs: ca.certs, generation: ca.generation };
  return { certs: typeof ca === 'string' || Buffer.isBuffer(ca) ? [ca] : [...(ca as readonly (string | Buffer)[])], generation: 0 };
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

/**
 * The certificates of `dir` (upstream NewCertPool): every file's PEM certificates, subdirectories skipped; rejects
 * when the directory cannot be read or no file holds a certificate (`no certificates found in "<dir>"`).
 */
export async function loadCaDir(dir: string): Promise<string[]> {
  const certs: string[] = [];
  let files = 0;
  for (const name of (await readdir(dir)).sort()) {
    const file = join(dir, name);
    if ((await stat(file)).isDirectory()) continue; // symlinks to directories too (a mount's ..data)
    let data: Buffer;
    try {
      data = await readFile(file);
    } catch (err) {
      throw new Error(`error reading cert file ${JSON.stringify(file)}: ${(err as Error).message}`, { cause: err });
    }
    const found = (data.toString('latin1').match(PEM_CERTIFICATE) ?? []).filter((pem) => {
      try {
        new X509Certificate(pem);
        return true;
      } catch {
        return false;
      }
    });
    if (found.length > 0) files++;
    certs.push(...found);
  }
  if (files === 0) throw new Error(`no certificates found in ${JSON.stringify(dir)}`);
  return certs;
}

export interface CaPoolWatcherOptions {
  /** The CA directory (`--pull-cas-dir`, `--catalogd-cas-dir`); empty or absent: the system pool only, only its paths watched. */
  readonly dir?: string;
  readonly logger: Logger;
  /** Where `SSL_CERT_DIR` / `SSL_CERT_FILE` are read (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** upstream's os.Exit (default process.exit). */
  readonly exit?: (code: number) => void;
  /** Events arriving within this long of the previous one are taken together (upstream: 50 ms). */
  readonly drainMs?: number;
  /** Called after each reload. */
  readonly onReload?: (pool: CaPool) => void;
}

export interface CaPoolWatcher extends CaPool {
  stop(): void;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Reads the pool and starts watching; rejects as loadCaDir, or when a path cannot be watched. */
export async function watchCaPool(options: CaPoolWatcherOptions): Promise<CaPoolWatcher> {
  const { logger } = options;
  const dir = options.dir ?? '';
  const env = options.env ?? process.env;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const drainMs = options.drainMs ?? 50;
  const sslCertDir = env.SSL_CERT_DIR ?? '';
  const sslCertFile = env.SSL_CERT_FILE ?? '';
  logger.debug('SSL environment', { SSL_CERT_DIR: sslCertDir, SSL_CERT_FILE: sslCertFile });
  const present = async (paths: string[]): Promise<string[]> => {
    const out: string[] = [];
    for (const p of paths) if (p !== '' && (await exists(p))) out.push(p);
    return out;
  };
  const sslCertPaths = await present([...sslCertDir.split(':'), sslCertFile]);

  let certs: readonly string[] = dir === '' ? [] : await loadCaDir(dir);
  let generation = 1;
  const watchers: FSWatcher[] = [];
  let stopped = false;
  let pending: string | undefined;
  let drain: NodeJS.Timeout | undefined;

  const checkForRestart = (name: string): void => {
    for (const p of sslCertPaths) {
      if (name.includes(p)) {
        logger.info('restarting due to file change', { file: name });
        exit(0);
      }
    }
  };
  const update = async (name: string): Promise<void> => {
    logger.info('updating certificate pool', { file: name });
    let next: string[];
    try {
      next = dir === '' ? [] : await loadCaDir(dir);
    } catch (err) {
      logger.error('error updating certificate pool', { err });
      exit(1);
      return;
    }
    if (stopped) return;
    certs = next;
    generation++;
    options.onReload?.(pool);
  };
  // The first event of a burst is the one named; the others only count for the restart check (upstream drainEvents).
  const onEvent = (name: string): void => {
    if (stopped) return;
    checkForRestart(name);
    pending ??= name;
    clearTimeout(drain);
    drain = setTimeout(() => {
      const first = pending ?? name;
      pending = undefined;
      void update(first);
    }, drainMs);
    drain.unref();
  };

  const pool: CaPoolWatcher = {
    get certs() {
      return certs;
    },
    get generation() {
      return generation;
    },
    stop() {
      stopped = true;
      clearTimeout(drain);
      for (const w of watchers) w.close();
    },
  };

  const watchPaths = [...sslCertPaths, ...(await present([dir]))];
  if (watchPaths.length === 0) {
    logger.info('No paths to watch');
    return pool;
  }
  for (const p of watchPaths) {
    const isDir = (await stat(p)).isDirectory();
    try {
      const w = watch(p, { persistent: false }, (_event, filename) => onEvent(isDir && filename ? join(p, filename.toString()) : p));
      w.on('error', (err) => {
        logger.error('error watching certificate dir', { err });
        exit(1);
      });
      watchers.push(w);
    } catch (err) {
      pool.stop();
      throw err;
    }
    logger.debug(isDir ? 'watching certificate directory' : 'watching certificate file', { [isDir ? 'directory' : 'file']: p });
  }
  return pool;
}
