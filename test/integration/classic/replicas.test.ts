// Two olm-classic processes (cmd/olm-classic, real flags, --leader-elect, each with its package server) against the
// shared control plane: the one that is not the leader serves the same PackageManifests as the leader — asked
// directly on each bind address with the API server's front-proxy client certificate, as the aggregator asks —,
// follows a spec.image change and a new digest the leader's registry poll finds, reads a spec.address source (a real
// `opm serve`) itself, and keeps serving, unchanged, when it takes the lease over.
import { rm } from 'node:fs/promises';
import { request, type Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import type { PackageManifest } from '../../../internal/classic/packageserver/index.ts';
import { installClassicCRDs } from '../../support/crds.ts';
import { DEMO_CATALOG, demoWithStableV4, pushCatalogDir } from '../../support/demo.ts';
import { adminKube, controlPlane, registry } from '../../support/env.ts';
import { TestKube } from '../../support/kube.ts';
import { freePort, waitFor, waitForValue } from '../../support/net.ts';
import { OpmServe } from '../../support/opm.ts';
import { frontProxyAgent } from '../../support/package-server.ts';
import { startOlmClassicProcess, type OlmClassicProcess } from '../../support/olm-classic-process.ts';

const API = '/apis/packages.operators.coreos.com/v1';
const kube = (): TestKube => adminKube();
const tag = `ha-${Math.random().toString(36).slice(2, 7)}`;

interface Replica {
  readonly proc: OlmClassicProcess;
  readonly port: number;
}

let ns: string;
let global: string;
let dispatcher: Agent;
let leader: Replica;
let follower: Replica;
const dirs: string[] = [];
const opm = new OpmServe(DEMO_CATALOG);

async function startReplica(leading: boolean): Promise<Replica> {
  const port = await freePort();
  const proc = await startOlmClassicProcess({
    globalNamespace: global,
    args: ['--leader-elect', `--leader-election-namespace=${ns}`, `--package-server-bind-address=127.0.0.1:${port}`],
    // The leader starts its controllers; the other one only serves.
    ...(!leading && { startedLine: 'serving packages.operators.coreos.com/v1' }),
  });
  return { proc, port };
}

const push = (name: string, dir?: string): Promise<string> => pushCatalogDir(registry().host, `classic/${name}`, dir);

/** The demo catalog with demo-operator.v0.4.0 also in stable, removed after the file. */
async function stableV4(): Promise<string> {
  const dir = await demoWithStableV4();
  dirs.push(dir);
  return dir;
}

const csPath = (namespace: string, name?: string): string => TestKube.path(ops.V1alpha1, ops.CatalogSourceResource, name, namespace);
const getCatalogSource = (namespace: string, name: string): Promise<ops.CatalogSource> => kube().must<ops.CatalogSource>(kube().request('GET', csPath(namespace, name)));

/** A replica's answer to a namespace's list, asked directly as the aggregator would (as system:masters). */
async function list(r: Replica, namespace: string): Promise<PackageManifest[]> {
  const res = await request(`https://127.0.0.1:${r.port}${API}/namespaces/${namespace}/packagemanifests`, {
    dispatcher,
    headers: { 'x-remote-user': 'ha-test', 'x-remote-group': 'system:masters' },
  });
  const body = (await res.body.json()) as { items: PackageManifest[] };
  if (res.statusCode !== 200) throw new Error(`replica on port ${r.port}: ${res.statusCode} ${JSON.stringify(body)}`);
  // The resourceVersion is each server's own revision; everything a manifest shows must be equal.
  return body.items.map((p) => ({ ...p, metadata: { ...p.metadata, resourceVersion: undefined } }) as PackageManifest);
}

const stableHeads = (items: PackageManifest[]): string[] =>
  items.map((p) => `${p.status.catalogSourceNamespace}/${p.status.catalogSource}: ${p.status.channels.find((c) => c.name === 'stable')?.currentCSV ?? ''}`);

/** Both replicas' lists of `namespace`, once they are equal and `want` holds for them. */
let lastHeads: string[][] = [];
async function bothServe(what: string, namespace: string, want: (items: PackageManifest[]) => boolean): Promise<PackageManifest[]> {
  const [a] = await waitForValue(
    what,
    async () => {
      const both = await Promise.all([list(leader, namespace), list(follower, namespace)]);
      lastHeads = both.map((items) => stableHeads(items));
      return both;
    },
    ([a, b]) => JSON.stringify(a) === JSON.stringify(b) && want(a),
    { lastChars: 200, context: () => `stable heads (leader, other): ${JSON.stringify(lastHeads)}; the other replica's last lines: ${follower.proc.logs.slice(-10).join('\n')}` },
  );
  return a;
}

beforeAll(async () => {
  await installClassicCRDs(kube());
  ns = await kube().namespace('classic-ha');
  global = await kube().namespace('classic-ha-global');
  dispatcher = await frontProxyAgent(controlPlane());
  // One after the other: the first holds the lease before the second campaigns.
  leader = await startReplica(true);
  follower = await startReplica(false);
  await waitFor('the second replica to see the leader', async () => follower.proc.logs.some((l) => l.includes('"leader is"')));
  expect(follower.proc.logs.some((l) => l.includes('became leader'))).toBe(false);
}, 180_000);

afterAll(async () => {
  for (const r of [follower, leader]) await r?.proc.stop();
  await opm.stop();
  await dispatcher?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  for (const n of [ns, global]) if (n) await kube().request('DELETE', `/api/v1/namespaces/${n}`);
});

describe('two olm-classic replicas, each with its package server', () => {
  it('the replica that is not the leader serves what the leader serves, follows updates, and keeps it when it leads', async () => {
    await push(`${tag}:v1`);
    const image = `${registry().host}/classic/${tag}:v1`;
    await kube().must(
      kube().request('POST', csPath(ns), { apiVersion: ops.V1alpha1, kind: ops.CatalogSourceKind, metadata: { name: 'demo' }, spec: { sourceType: 'grpc', image, displayName: 'Demo' } }),
    );
    // The global one polls its tag: a new digest under it is found by the leader's poll only.
    const pollTag = `${registry().host}/classic/${tag}:poll`;
    await push(`${tag}:poll`);
    await kube().must(
      kube().request('POST', csPath(global), {
        apiVersion: ops.V1alpha1,
        kind: ops.CatalogSourceKind,
        metadata: { name: 'global-demo' },
        spec: { sourceType: 'grpc', image: pollTag, displayName: 'Global', updateStrategy: { registryPoll: { interval: '2s' } } },
      }),
    );

    const first = await bothServe('both replicas to list the namespace’s and the global packages', ns, (items) => items.length === 2);
    expect(stableHeads(first)).toEqual([`${ns}/demo: demo-operator.v0.3.0`, `${global}/global-demo: demo-operator.v0.3.0`]);
    expect(first.map((p) => p.status.catalogSourceDisplayName)).toEqual(['Demo', 'Global']);

    // spec.image changes: the leader loads it and writes status; the other replica loads it too.
    const v4 = await stableV4();
    await push(`${tag}:v2`, v4);
    await kube().must(kube().request('PATCH', csPath(ns, 'demo'), { spec: { image: `${registry().host}/classic/${tag}:v2` } }, 'application/merge-patch+json'));
    await bothServe('both replicas to serve the new spec.image', ns, (items) => stableHeads(items)[0] === `${ns}/demo: demo-operator.v0.4.0`);

    // A new digest under the polled tag: only the leader polls; the other replica follows its status.
    const before = (await getCatalogSource(global, 'global-demo')).status?.connectionState?.lastConnect;
    await push(`${tag}:poll`, v4);
    await waitFor('the leader to load the new digest', async () => (await getCatalogSource(global, 'global-demo')).status?.connectionState?.lastConnect !== before);
    const polled = await bothServe('both replicas to serve the polled digest', ns, (items) => stableHeads(items)[1] === `${global}/global-demo: demo-operator.v0.4.0`);
    expect(stableHeads(polled)).toEqual([`${ns}/demo: demo-operator.v0.4.0`, `${global}/global-demo: demo-operator.v0.4.0`]);

    // spec.address: each replica reads the registry server itself.
    const { address } = await opm.start();
    await kube().must(kube().request('POST', csPath(ns), { apiVersion: ops.V1alpha1, kind: ops.CatalogSourceKind, metadata: { name: 'addr' }, spec: { sourceType: 'grpc', address } }));
    const updated = await bothServe('both replicas to serve the spec.address source', ns, (items) => items.length === 3);
    expect(stableHeads(updated)).toEqual([`${ns}/addr: demo-operator.v0.3.0`, `${ns}/demo: demo-operator.v0.4.0`, `${global}/global-demo: demo-operator.v0.4.0`]);
    expect(follower.proc.logs.filter((l) => l.includes('"level":"error"'))).toEqual([]);

    // The leader stops (releasing the lease): the other replica leads, and serves the same from the moment it does.
    await leader.proc.stop();
    await waitFor('the other replica to lead', async () => follower.proc.logs.some((l) => l.includes('became leader')), { timeoutMs: 60_000 });
    expect(await list(follower, ns)).toEqual(updated);
    await waitFor('the new leader to write status', async () =>
      (await getCatalogSource(ns, 'demo')).status?.connectionState?.lastObservedState === ops.ConnectionStateReady,
    );
    expect(await list(follower, ns)).toEqual(updated);
  });
});
