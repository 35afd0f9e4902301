// The connection layer against the real kube-apiserver: keep-alive reuse and credential rotation.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { KubeClient } from '../../../internal/shared/kube/index.ts';
import { kubeconfig } from '../../support/control-plane.ts';
import { controlPlane } from '../../support/env.ts';
import { freePort, sleep } from '../../support/net.ts';
import { kubeconfigFile } from './helpers.ts';
import { TcpProxy } from './tcp-proxy.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'transport-'));
});

async function whoAmI(client: KubeClient): Promise<string> {
  const review: KubeObject = await client.create({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {} });
  return (review['status'] as { userInfo: { username: string } }).userInfo.username;
}

/** A kubeconfig whose user reads its bearer token from `tokenPath` (kubeconfig `tokenFile`). */
async function tokenFileKubeconfig(tokenPath: string): Promise<string> {
  const path = join(dir, `kubeconfig-${Math.random().toString(36).slice(2)}`);
  const text = kubeconfig(controlPlane().server, controlPlane().caPem, 'unused').replace('    token: unused', `    tokenFile: ${tokenPath}`);
  await writeFile(path, text);
  return path;
}

describe('connection', () => {
  const proxies: TcpProxy[] = [];
  afterAll(async () => {
    for (const p of proxies) await p.close();
  });

  it('keeps reusing its keep-alive connections instead of opening one per request', async () => {
    const proxy = await TcpProxy.start(await freePort(), Number(new URL(controlPlane().server).port));
    proxies.push(proxy);
    const client = await KubeClient.fromConfig({ kubeconfig: await kubeconfigFile(controlPlane(), controlPlane().adminToken, `https://127.0.0.1:${proxy.port}`) });
    await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'default' }); // discovery + get
    // undici may open a second socket when a request follows a large body at once; after that, none.
    const warm = proxy.accepted;
    expect(warm).toBeLessThanOrEqual(2);
    for (let i = 0; i < 30; i++) await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'default' });
    await client.list({ apiVersion: 'v1', kind: 'Namespace' });
    expect(proxy.accepted).toBe(warm);
    await client.close();
  });

  it('picks up a rotated token file on the next refresh', async () => {
    const tokenPath = join(dir, 'rotating-token');
    await writeFile(tokenPath, `${controlPlane().userTokens.alice}\n`);
    const client = await KubeClient.fromConfig({ kubeconfig: await tokenFileKubeconfig(tokenPath), refreshMs: 500 });
    expect(await whoAmI(client)).toBe('alice');
    await writeFile(tokenPath, controlPlane().userTokens.bob);
    await sleep(600);
    expect(await whoAmI(client)).toBe('bob');
    await client.close();
  });

  it('re-reads credentials at once and retries when the server answers 401', async () => {
    const tokenPath = join(dir, 'stale-token');
    await writeFile(tokenPath, 'a-token-the-server-does-not-know');
    const client = await KubeClient.fromConfig({ kubeconfig: await tokenFileKubeconfig(tokenPath) }); // refresh: 60 s
    await writeFile(tokenPath, controlPlane().userTokens.carol);
    expect(await whoAmI(client)).toBe('carol');
    await client.close();
  });
});
