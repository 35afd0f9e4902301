// Prints the plain closing line CI reads — `N passed, N failed[, N skipped]` — after vitest's
// own summary, and writes it to .cache/test-summary.txt for .ci/run. Just above it, the ten slowest files (their tests'
// and hooks' time, where the suite's time goes) and one line per failed test with the start of its error, so the tail
// of a CI log says what failed.
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/** How much of a failed test's error message the closing lines show. */
const MESSAGE_CHARS = 1500;
/** How many of the slowest files the closing lines name. */
const SLOWEST = 10;

export default class CountReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const failures: string[] = [];
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const r = t.result();
        if (r.state === 'passed') passed++;
        else if (r.state === 'failed') {
          failed++;
          const message = (r.errors?.[0]?.message ?? '').replace(/\s+/g, ' ').slice(0, MESSAGE_CHARS);
          failures.push(`FAILED ${m.relativeModuleId} > ${t.fullName}: ${message}`);
        } else skipped++;
      }
      // A file that failed to load has no tests; count it as a failure so it cannot pass silently.
      if (m.state() === 'failed' && [...m.children.allTests()].length === 0) failed++;
    }
    failed += errors.length;
    const slowest = modules
      .map((m) => ({ file: m.relativeModuleId, ms: m.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SLOWEST)
      .map(({ file, ms }) => `${(ms / 1000).toFixed(1).padStart(7)} s  ${file}\n`);
    const line = `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
    mkdirSync('.cache', { recursive: true });
    writeFileSync('.cache/test-summary.txt', line + '\n');
    process.stdout.write(`\nslowest files (their tests and hooks):\n${slowest.join('')}${failures.map((f) => `${f}\n`).join('')}${line}\n`);
  }
}
