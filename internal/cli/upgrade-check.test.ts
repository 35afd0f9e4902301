import { describe, expect, it } from 'vitest';
import { runCaptured } from './run.ts';

describe('kubectl olm upgrade-check: flags and errors exit 2', () => {
  it('refuses an unknown output format and a version it cannot read, with the usage', async () => {
    const bad = await runCaptured(['upgrade-check', '-o', 'xml']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('error: invalid output format "xml": want table, json or yaml');
    expect(bad.stderr).toContain("See 'kubectl olm upgrade-check --help' for usage.");
    const version = await runCaptured(['upgrade-check', '--to', 'five']);
    expect(version.code).toBe(2);
    expect(version.stderr).toMatch(/^error: --to: "five" is not a version: /);
    expect(version.stderr).not.toContain('0five');
  });

  it('a cluster it cannot reach is an error (2), not a verdict', async () => {
    const r = await runCaptured(['upgrade-check', '--current', '4.22.0', '--kubeconfig', '/nonexistent/kubeconfig'], { env: {} });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: .*\/nonexistent\/kubeconfig/);
    expect(r.stdout).toBe('');
  });

  it('is listed in the help', async () => {
    const r = await runCaptured(['upgrade-check', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Exit status: 0 nothing blocks, 1 something blocks, 2 an error');
  });
});
