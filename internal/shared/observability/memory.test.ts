// tuneMemory() and collectGarbage() change V8 flags for the whole process, so each case runs in a fresh node, with
// memory.ts compiled to plain JavaScript (tsx itself would grow the young generation before the case starts).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MiB = 1024 * 1024;
let dir = '';

const CHILD = `
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { collectGarbage, tuneMemory } from './memory.mjs';
// Full collections as V8 reports them: a GC that V8 finishes on its own (incremental marking begun while the modules
// loaded) moves heapUsed too, so "did collectGarbage() collect" is counted, not inferred from the heap's size.
let majors = 0;
new PerformanceObserver((list) => { for (const e of list.getEntries()) if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++; }).observe({ entryTypes: ['gc'] });
const settled = () => new Promise((r) => setTimeout(r, 0));
const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
// Allocation in steps, as a server's work comes: the young generation's size is settled between them.
const churn = async () => { const keep = []; for (let step = 0; step < 100; step++) { for (let i = 0; i < 3e4; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 60000) keep.length = 0; } await new Promise((r) => setImmediate(r)); } };
const garbage = () => { let junk = Array.from({ length: 3e5 }, (_, i) => ({ i })); junk = undefined; };
await settled();
const majors0 = majors;
collectGarbage(); // before tuneMemory: nothing
await settled();
const untouched = majors === majors0;
const start = newSpace();
if (process.argv.includes('tune')) tuneMemory();
for (let i = 0; i < 3; i++) await churn();
const grown = newSpace();
garbage();
const heap1 = process.memoryUsage().heapUsed;
await settled();
const majors1 = majors;
collectGarbage();
const freed = process.memoryUsage().heapUsed < heap1 / 2;
await settled();
const collected = freed && majors > majors1;
console.log(JSON.stringify({ start, grown, untouched, collected, gcGlobal: typeof globalThis.gc }));
`;

interface Report {
  readonly start: number;
  readonly grown: number;
  readonly untouched: boolean;
  readonly collected: boolean;
  readonly gcGlobal: string;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'memory-test-'));
  const source = await readFile(fileURLToPath(new URL('./memory.ts', import.meta.url)), 'utf8');
  await writeFile(join(dir, 'memory.mjs'), (await transform(source, { loader: 'ts', format: 'esm' })).code);
  await writeFile(join(dir, 'child.mjs'), CHILD);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function child(flags: string[], tune: boolean): Promise<Report> {
  const { stdout } = await promisify(execFile)(process.execPath, [...flags, join(dir, 'child.mjs'), ...(tune ? ['tune'] : [])], { env: { ...process.env, NODE_OPTIONS: '' } });
  return JSON.parse(stdout) as Report;
}

describe('tuneMemory / collectGarbage', () => {
  it('lets the young generation grow to about 2 MiB per semi-space, no further; collects only after tuneMemory(), with no gc global', async () => {
    const r = await child([], true);
    expect(r.start).toBeLessThan(4 * MiB);
    // Settled after each collection: one more doubling may come before the next settles it.
    expect(r.grown).toBeGreaterThanOrEqual(4 * MiB);
    expect(r.grown).toBeLessThanOrEqual(8 * MiB);
    expect(r).toMatchObject({ untouched: true, collected: true, gcGlobal: 'undefined' });
  });

  it('without it the same allocations grow the young generation further and collectGarbage() does nothing', async () => {
    const r = await child([], false);
    expect(r.grown).toBeGreaterThan(8 * MiB);
    expect(r.collected).toBe(false);
  });

  it('leaves a young-generation size given to node as given', async () => {
    const r = await child(['--max-semi-space-size=64'], true);
    expect(r.grown).toBeGreaterThan(16 * MiB);
    expect(r.collected).toBe(true);
  });
});
