// Memory and CPU figures, and the median every bench reports: forced garbage collection (`npm run bench` runs
// node with --expose-gc), measurements in a fresh child process, so that one case's heap and peak RSS do not leak into
// another's, and RSS / CPU of other processes (controllers, the cluster) read from /proc.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';

function collector(): () => void {
  const f = (globalThis as { gc?: () => void }).gc;
  if (!f) throw new Error('run with node --expose-gc');
  return f;
}

/** The middle item by `key` (of an even count, the upper of the two), undefined for none: the median start, run, sample. */
export function medianBy<T>(xs: readonly T[], key: (x: T) => number): T | undefined {
  return [...xs].sort((a, b) => key(a) - key(b))[xs.length >> 1];
}

/** The median of numbers (0 for none). */
export const median = (xs: readonly number[]): number => medianBy(xs, (x) => x) ?? 0;

/** Two full collections (the second frees what finalizers of the first released). */
export function fullGc(): void {
  const f = collector();
  f();
  f();
}

/** Heap used plus external memory (Buffers, ArrayBuffers). */
export const held = (): number => {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
};

/** Full GCs until heap + external stop falling: ArrayBuffer backing stores are freed off-thread. */
export async function settledGc(): Promise<void> {
  const f = collector();
  let last = Infinity;
  for (let i = 0; i < 10; i++) {
    f();
    await new Promise((r) => setTimeout(r, 20));
    const now = held();
    if (now >= last - 4096) break;
    last = now;
  }
}

/**
 * Runs `file` again in a child (`node --expose-gc --import tsx <file> --measure ...args`) and returns
 * the JSON its last stdout line holds.
 */
export async function measureInChild<T>(file: string, args: readonly string[]): Promise<T> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', file, '--measure', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`measurement exited with ${String(code)}`);
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as T;
}

/** Resident memory now and at its peak (VmRSS, VmHWM) of another process, bytes, from /proc. */
export async function procMemory(pid: number): Promise<{ rss: number; hwm: number }> {
  const text = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** Resident memory of another process, whole MiB; NaN without a pid. */
export async function rssMiB(pid: number | undefined): Promise<number> {
  if (pid === undefined) return Number.NaN;
  return Math.round((await procMemory(pid)).rss / 1048576);
}

/** user+system CPU of another process, ms, from /proc/<pid>/stat (100 Hz ticks); NaN without a pid. */
export async function procCpuMs(pid: number | undefined): Promise<number> {
  if (pid === undefined) return Number.NaN;
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime
}

/** user+system CPU of this process so far, ms. */
export function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * RSS of another process sampled every `everyMs` for `samples` samples; `at(i)` is the lowest of the
 * 5 samples up to sample `i` (a GC may be running at any one), `last` the lowest of the last 5.
 */
export async function idleRss(pid: number, samples: number, everyMs = 1000): Promise<{ at(i: number): number; readonly last: number }> {
  const rss: number[] = [];
  for (let i = 0; i < samples; i++) {
    await new Promise((r) => setTimeout(r, everyMs));
    rss.push((await procMemory(pid)).rss);
  }
  const at = (i: number): number => Math.min(...rss.slice(Math.max(0, i - 5), i));
  return { at, last: at(samples) };
}

/** Samples a process's RSS every `intervalMs` until stopped; `stop()` gives the highest sample. */
export function rssSampler(pid: number, intervalMs = 100): { stop(): number } {
  let peak = 0;
  const timer = setInterval(() => {
    procMemory(pid).then(
      (m) => void (peak = Math.max(peak, m.rss)),
      () => undefined,
    );
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}
