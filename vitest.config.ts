import { defineConfig } from 'vitest/config';

// Two projects: fast unit tests beside the code, and integration tests that share one real
// kube-apiserver + registry started by test/support/global-setup.ts.
export default defineConfig({
  test: {
    reporters: ['default', './test/support/count-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['internal/**/*.test.ts', 'api/**/*.test.ts', 'cmd/**/*.test.ts', 'demo/**/*.test.ts', 'test/repo/**/*.test.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          // test/e2e: upstream operator-controller's e2e features, one file per profile, each with its own control
          // plane; their scenarios run concurrently inside the file (at most maxConcurrency at once).
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          maxConcurrency: 6,
          globalSetup: ['./test/support/global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 240_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
