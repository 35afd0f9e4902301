// Serving certificate from files, reloaded when they change (controller-runtime's certwatcher:
// fsnotify on the files plus a periodic re-read). Both files are re-read together; a pair that
// does not load (e.g. a cert written before its key: `onChange` throws) is logged and the previous
// pair stays in use until a good one appears. The pair is parsed once, by whoever uses it (the
// server's secure context), not also here. Kubernetes Secret volumes swap a `..data` symlink, so the
// directories are watched, not the files. Used by catalogd's catalog server and classic's package server.
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { errorMessage, type Logger } from '../toolkit/index.ts';

export interface KeyPair {
  readonly cert: Buffer;
  readonly key: Buffer;
}

export interface CertWatcherOptions {
  readonly certFile: string;
  readonly keyFile: string;
  /** Re-read period (certwatcher's default: 10 s). */
  readonly intervalMs?: number;
  /** Called with each new pair; throws when the pair does not load (e.g. `server.setSecureContext`), which keeps the previous one. */
  readonly onChange: (pair: KeyPair) => void;
  readonly logger: Logger;
}

export interface CertWatcher {
  readonly current: KeyPair;
  /** Re-reads the files now; resolves true when a new pair was taken. */
  check(): Promise<boolean>;
  stop(): void;
}

export const DEFAULT_TLS_RELOAD_INTERVAL_MS = 10_000;

async function readPair(certFile: string, keyFile: string): Promise<KeyPair> {
  const [cert, key] = await Promise.all([readFile(certFile), readFile(keyFile)]);
  return { cert, key };
}

/** Reads the pair (throws when a file cannot be read; the caller's first use of it checks that it loads) and starts watching. */
export async function watchCertificate(options: CertWatcherOptions): Promise<CertWatcher> {
  const { certFile, keyFile, logger } = options;
  let current = await readPair(certFile, keyFile);
  let failedWith = '';
  let running: Promise<boolean> | undefined;
  let stopped = false;

  const check = (): Promise<boolean> => {
    running ??= (async () => {
      try {
        const pair = await readPair(certFile, keyFile);
        if (stopped || (pair.cert.equals(current.cert) && pair.key.equals(current.key))) return false;
        options.onChange(pair);
        current = pair;
        failedWith = '';
        logger.info('reloaded the serving certificate', { certFile, keyFile });
        return true;
      } catch (err) {
        const message = errorMessage(err);
        if (message !== failedWith) logger.error('cannot load the serving certificate; keeping the previous one', { certFile, keyFile, err });
        failedWith = message;
        return false;
      } finally {
        running = undefined;
      }
    })();
    return running;
  };

  const timer = setInterval(() => void check(), options.intervalMs ?? DEFAULT_TLS_RELOAD_INTERVAL_MS);
  timer.unref();
  const watchers: FSWatcher[] = [];
  let debounce: NodeJS.Timeout | undefined;
  for (const dir of new Set([dirname(certFile), dirname(keyFile)])) {
    try {
      const w = watch(dir, { persistent: false }, () => {
        clearTimeout(debounce);
        debounce = setTimeout(() => void check(), 100);
        debounce.unref();
      });
      w.on('error', () => w.close()); // the periodic re-read still runs
      watchers.push(w);
    } catch {
      // Not watchable: the periodic re-read covers it.
    }
  }

  return {
    get current() {
      return current;
    },
    check,
    stop() {
      stopped = true;
      clearInterval(timer);
      clearTimeout(debounce);
      for (const w of watchers) w.close();
    },
  };
}
