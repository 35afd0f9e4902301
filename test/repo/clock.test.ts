// The clock rule (eslint/clock.js): product code refuses `Date.now` and `new Date()` / `Date()` with no arguments,
// lets `new Date(x)` through, and leaves tests and the clock's own file alone; run with ESLint's own API on sources
// placed in the real tree, so the project's config and paths apply as in `make test`.
import { rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({ cwd: root });
const written: string[] = [];

async function lint(relativePath: string, source: string): Promise<string[]> {
  const file = `${root}${relativePath}`;
  await writeFile(file, source);
  written.push(file);
  const [result] = await eslint.lintFiles([file]);
  return (result?.messages ?? []).filter((m) => m.ruleId === 'clock/only-here').map((m) => m.message);
}

afterAll(async () => {
  await Promise.all(written.map((f) => rm(f, { force: true })));
});

const readsTheClock = [
  'export const a = Date.now();',
  'export const b = new Date();',
  'export const c = Date();',
  'export function d(now: () => number = Date.now): number { return now(); }',
].join('\n') + '\n';

describe('clock/only-here', () => {
  it('refuses every read of the system clock in product code, saying what to use', async () => {
    const messages = await lint('internal/shared/kube/clock-probe.tmp.ts', readsTheClock);
    expect(messages).toEqual([
      'Date.now reads the system clock; take a Clock (internal/shared/toolkit) from options or the ManagerContext and call clock.date().getTime() (wall ms) or clock.now() (monotonic ms, for durations)',
      "new Date() reads the system clock; take a Clock (internal/shared/toolkit) from options or the ManagerContext and call clock.date(); new Date(x) with an argument is fine",
      "new Date() reads the system clock; take a Clock (internal/shared/toolkit) from options or the ManagerContext and call clock.date(); new Date(x) with an argument is fine",
      'Date.now reads the system clock; take a Clock (internal/shared/toolkit) from options or the ManagerContext and call clock.date().getTime() (wall ms) or clock.now() (monotonic ms, for durations)',
    ]);
    expect(await lint('cmd/clock-probe.tmp.ts', 'export const a = Date.now();\n')).toHaveLength(1);
  });

  it('lets parsing and converting through: new Date(x) with an argument, Date.parse, Date.UTC', async () => {
    const source = [
      "export const a = new Date('2025-01-01T00:00:00Z');",
      'export const b = new Date(0).toISOString();',
      "export const c = Date.parse('2025-01-01T00:00:00Z') + Date.UTC(2025, 0, 1);",
    ].join('\n') + '\n';
    expect(await lint('internal/shared/kube/clock-probe-parse.tmp.ts', source)).toEqual([]);
  });

  it('leaves tests and testing.ts to fake timers', async () => {
    expect(await lint('internal/shared/kube/clock-probe.tmp.test.ts', readsTheClock)).toEqual([]);
  });
});
