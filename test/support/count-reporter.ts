// Prints the plain closing line CI reads — `N passed, N failed[, N skipped]` — after vitest's
// own summary, and writes it to .cache/test-summary.txt for .ci/run. Just above it, one line per failed test with
// the start of its error, so the tail of a CI log says what failed.
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/** How much of a failed test's error message the closing lines show. */
const MESSAGE_CHARS = 1500;

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
    const line = `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
    mkdirSync('.cache', { recursive: true });
    writeFileSync('.cache/test-summary.txt', line + '\n');
    process.stdout.write(`\n${failures.map((f) => `${f}\n`).join('')}${line}\n`);
  }
}
