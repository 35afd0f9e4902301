// Prints the plain closing line CI reads — `N passed, N failed[, N skipped]` — after vitest's
// own summary, and writes it to .cache/test-summary.txt for .ci/run.
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

export default class CountReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const s = t.result().state;
        if (s === 'passed') passed++;
        else if (s === 'failed') failed++;
        else skipped++;
      }
      // A file that failed to load has no tests; count it as a failure so it cannot pass silently.
      if (m.state() === 'failed' && [...m.children.allTests()].length === 0) failed++;
    }
    failed += errors.length;
    const line = `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
    mkdirSync('.cache', { recursive: true });
    writeFileSync('.cache/test-summary.txt', line + '\n');
    process.stdout.write(`\n${line}\n`);
  }
}
