import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import faces from './eslint/folder-faces.js';
import layers from './eslint/layers.js';
import clock from './eslint/clock.js';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.cache/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { faces, layers },
    rules: {
      'faces/index-only': 'error',
      'faces/reexports-only': 'error',
      'layers/one-way': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-constant-condition': ['error', { checkLoops: false }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    // Production code reaches undici only through internal/shared/http (its core, without the index) and prom-client
    // only through internal/shared/observability (its classes, without the index); tests may use either.
    files: ['api/**/*.ts', 'cmd/**/*.ts', 'internal/**/*.ts'],
    ignores: ['**/*.test.ts', '**/testing.ts', 'internal/shared/http/**', 'internal/shared/observability/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'undici', message: 'import internal/shared/http/index.ts: undici\'s index loads fetch, WebSocket, cookies and the mocks too' },
            { name: 'prom-client', message: 'import internal/shared/observability/index.ts: prom-client\'s index loads Node\'s cluster, child_process and dgram too' },
          ],
        },
      ],
    },
  },
  {
    // Product code reads the time only through the toolkit's Clock (docs/decisions/0010-one-clock.md); tests may use
    // fake timers or a ManualClock, and the clock's own file is where the system's clocks are read.
    files: ['api/**/*.ts', 'cmd/**/*.ts', 'internal/**/*.ts'],
    ignores: ['**/*.test.ts', '**/testing.ts', 'internal/shared/toolkit/clock.ts'],
    plugins: { clock },
    rules: { 'clock/only-here': 'error' },
  },
);
