// Forced garbage collection for memory figures (`npm run bench` runs node with --expose-gc).

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
