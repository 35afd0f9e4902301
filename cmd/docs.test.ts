// docs/configuration.md and docs/cli.md carry generated parts: every controller flag and every kubectl-olm usage
// text, as cmd/docs.ts derives them from the definitions. A flag or usage text changed without
// `npm run docs:generate` fails here.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { fill } from './docs.ts';

const root = join(import.meta.dirname, '..');

describe('generated docs', () => {
  it('docs/configuration.md and docs/cli.md are up to date (npm run docs:generate)', async () => {
    const run = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'cmd/docs.ts', '--check'], { cwd: root }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
    expect(run).toEqual({ code: 0, stderr: '' });
  }, 60_000);

  it('replaces only what sits between the markers, and refuses a part it does not know', () => {
    const page = 'intro\n<!-- BEGIN GENERATED a -->\nold\n<!-- END GENERATED a -->\noutro\n';
    expect(fill('p.md', page, { a: 'new\nrows' })).toBe('intro\n<!-- BEGIN GENERATED a -->\nnew\nrows\n<!-- END GENERATED a -->\noutro\n');
    expect(() => fill('p.md', page, {})).toThrow('p.md: no generated part named a');
  });
});
