// tuneMemory() and collectGarbage() change V8 flags for the whole process, so each case runs in a fresh node.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const memory = fileURLToPath(new URL('./memory.ts', import.meta.url));

const CHILD = `
import { getHeapSpaceStatistics } from 'node:v8';
const { collectGarbage, tuneMemory } = await import(${JSON.stringify(memory)});
const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
const churn = () => { const keep = []; for (let i = 0; i < 3e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 60000) keep.length = 0; } };
let junk = Array.from({ length: 3e5 }, (_, i) => ({ i }));
junk = undefined;
const heap0 = process.memoryUsage().heapUsed;
collectGarbage(); // before tuneMemory: nothing
const heap1 = process.memoryUsage().heapUsed;
const before = newSpace();
if (process.argv.includes('tune')) tuneMemory();
churn();
const held = newSpace();
junk = Array.from({ length: 3e5 }, (_, i) => ({ i }));
junk = undefined;
const heap2 = process.memoryUsage().heapUsed;
collectGarbage();
const heap3 = process.memoryUsage().heapUsed;
console.log(JSON.stringify({ untouched: heap1 >= heap0, collected: heap3 < heap2 / 2, before, held, gcGlobal: typeof globalThis.gc }));
`;

async function child(flags: string[] = [], tune = true): Promise<{ untouched: boolean; collected: boolean; before: number; held: number; gcGlobal: string }> {
  const args = [...flags, '--import', 'tsx', '--input-type=module', '-e', CHILD, ...(tune ? ['tune'] : [])];
  const { stdout } = await promisify(execFile)(process.execPath, args, { env: { ...process.env, NODE_OPTIONS: '' } });
  return JSON.parse(stdout) as { untouched: boolean; collected: boolean; before: number; held: number; gcGlobal: string };
}

describe('tuneMemory / collectGarbage', () => {
  it('collects nothing before tuneMemory(); after it, holds the young generation where it was and collects fully, with no gc global', async () => {
    const r = await child();
    expect(r).toMatchObject({ untouched: true, collected: true, gcGlobal: 'undefined' });
    expect(r.held).toBeLessThanOrEqual(r.before);
    // Without it, the same allocations grow the young generation.
    const untuned = await child([], false);
    expect(untuned.held).toBeGreaterThan(untuned.before);
    expect(untuned.collected).toBe(false);
  });

  it('leaves a young-generation size given to node as given', async () => {
    const r = await child(['--max-semi-space-size=64']);
    expect(r.collected).toBe(true);
    expect(r.held).toBeGreaterThan(r.before);
  });
});
