// Bad configuration and unreachable or untrusted servers give clear, typed, single-line errors.
// (An API server that is down when an informer starts: informer-resilience.test.ts.)
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { isRetryable, KubeClient, NetworkError } from '../../../internal/shared/kube/index.ts';
import { kubeconfig } from '../../support/control-plane.ts';
import { controlPlane } from '../../support/env.ts';
import { freePort } from '../../support/net.ts';

const START = fileURLToPath(new URL('./fixtures/start.ts', import.meta.url));
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bad-input-'));
});

/** Runs the start-up fixture; resolves its exit code and output. */
async function startUp(env: Record<string, string>, args: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('node', ['--import', 'tsx', START, ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('bad input', () => {
  it('a missing kubeconfig: exit 1 with one line naming the file', async () => {
    const missing = join(dir, 'does-not-exist.yaml');
    expect(await startUp({}, [missing])).toEqual({ code: 1, stdout: '', stderr: `error: kubeconfig ${missing}: file does not exist\n` });
    expect(await startUp({ KUBECONFIG: missing })).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: kubeconfig (from $KUBECONFIG) ${missing}: file does not exist\n`,
    });
  });

  it('a malformed kubeconfig: exit 1 with one line naming the file and the YAML problem', async () => {
    const bad = join(dir, 'malformed.yaml');
    await writeFile(bad, 'apiVersion: v1\nclusters:\n- name: x\n  cluster: [unclosed\n');
    expect(await startUp({}, [bad])).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: kubeconfig ${bad}: not valid YAML: unexpected end of the stream within a flow collection (line 5, column 1)\n`,
    });
  });

  it('a good kubeconfig: starts', async () => {
    expect(await startUp({ KUBECONFIG: controlPlane().kubeconfigPath })).toEqual({ code: 0, stdout: `server ${controlPlane().server}\n`, stderr: '' });
  });

  it('nothing listening: a retryable NetworkError naming the request', async () => {
    const path = join(dir, 'nothing-there');
    const port = await freePort();
    await writeFile(path, kubeconfig(`https://127.0.0.1:${port}`, controlPlane().caPem, 'token'));
    const client = await KubeClient.fromConfig({ kubeconfig: path });
    const err = await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'default' }).catch((e: unknown) => e);
    await client.close();
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ code: 'ECONNREFUSED', retryable: true, message: `GET /api/v1: connect ECONNREFUSED 127.0.0.1:${port}` });
    expect(isRetryable(err)).toBe(true);
  });

  it('an untrusted server certificate: a NetworkError that is not retryable', async () => {
    const path = join(dir, 'no-ca');
    // Without the cluster's CA the server's certificate is checked against the system roots and fails.
    await writeFile(path, kubeconfig(controlPlane().server, '', controlPlane().adminToken).replace(/^ {4}certificate-authority-data:.*\n/m, ''));
    const client = await KubeClient.fromConfig({ kubeconfig: path });
    const err = await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'default' }).catch((e: unknown) => e);
    await client.close();
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ retryable: false });
    expect((err as NetworkError).code).toMatch(/CERT|SELF_SIGNED|ISSUER/);
  });
});
