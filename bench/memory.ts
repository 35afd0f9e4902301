// Memory figures: forced garbage collection (`npm run bench` runs node with --expose-gc) and
// measurements in a fresh child process, so that one case's heap and peak RSS do not leak into another's.
import { spawn } from 'node:child_process';

function collector(): () => void {
  const f = (globalThis as { gc?: () => void }).gc;
  if (!f) throw new Error('run with node --expose-gc');
  return f;
}

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
