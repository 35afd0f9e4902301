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
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['./test/support/global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 240_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
