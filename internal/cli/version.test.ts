import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runCaptured } from './run.ts';

describe('kubectl olm version', () => {
  it('--version and version --client print the package version, no cluster needed', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(await runCaptured(['--version'])).toEqual({ code: 0, stdout: `Client Version: v${pkg.version}\n`, stderr: '' });
    expect(await runCaptured(['version', '--client'])).toEqual({ code: 0, stdout: `Client Version: v${pkg.version}\n`, stderr: '' });
    const j = JSON.parse((await runCaptured(['version', '--client', '-o', 'json'])).stdout) as { clientVersion: { gitVersion: string } };
    expect(j.clientVersion.gitVersion).toBe(`v${pkg.version}`);
  });

  it('without --client it needs the cluster: an unreachable one is exit 1 after the client version', async () => {
    const r = await runCaptured(['version', '--kubeconfig', '/nonexistent/kubeconfig'], { env: {} });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^Client Version: v/);
    expect(r.stderr).toMatch(/^error: /);
  });
});
