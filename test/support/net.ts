// Small network helpers for tests: free loopback ports and readiness polling.
import { createServer } from 'node:net';
import { sleep } from '../../internal/shared/toolkit/index.ts';

export { sleep };

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** True when nothing listens on 127.0.0.1:`port` (it could be bound a moment ago). */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(false) : reject(err)));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}


/**
 * Polls `check` every `intervalMs` until it returns true (→ true) or `timeoutMs` has passed (→ false, after a last
 * look); what `check` throws is thrown. For helpers that word their own timeout error; `waitFor` words it for you.
 */
export async function poll(check: () => boolean | Promise<boolean>, { timeoutMs = 90_000, intervalMs = 250 } = {}): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(intervalMs);
  }
}

/** Polls `check` until it returns true or `timeoutMs` passes; the last failure is in the error. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  { timeoutMs = 90_000, intervalMs = 250 } = {},
): Promise<void> {
  let last: unknown;
  const attempt = async (): Promise<boolean> => {
    try {
      return await check();
    } catch (err) {
      last = err;
      return false;
    }
  };
  if (!(await poll(attempt, { timeoutMs, intervalMs }))) {
    throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
  }
}

/**
 * Reads until `ok` holds and resolves that read. On timeout the error names the last read (its JSON, cut to
 * `lastChars`) and what `context` says (e.g. a process's last log lines).
 */
export async function waitForValue<T>(
  what: string,
  read: () => Promise<T>,
  ok: (v: T) => boolean,
  { timeoutMs = 120_000, lastChars = 2000, context }: { timeoutMs?: number; lastChars?: number; context?: () => string } = {},
): Promise<T> {
  let last: T | undefined;
  try {
    await waitFor(
      what,
      async () => {
        last = await read();
        return ok(last);
      },
      { timeoutMs },
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; last: ${JSON.stringify(last)?.slice(0, lastChars)}${context ? `; ${context()}` : ''}`, { cause: err });
  }
  return last!;
}

/** True when a process with this pid exists. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
