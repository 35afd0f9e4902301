// catalogd processes (cmd/catalogd/main.ts, real flags, --leader-elect) against the shared control
// plane: the non-leader serves the same content as the leader, follows a new digest, takes over
// when the leader stops; a replica joining later is ready only once it serves what is Serving;
// every replica drops the content of a deleted catalog.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forceRemove } from '../../../internal/shared/image/index.ts';
import { adminKube, controlPlane, registry } from '../../support/env.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { freePort, waitFor } from '../../support/net.ts';
import { startProcess, stopProcess, type Managed } from '../../support/process.ts';
import {
  createCatalog,
  deleteCatalogs,
  fbc,
  fetchAll,
  patchCatalog,
  releaseFinalizers,
  serving,
  uniqueName,
  waitForCatalog,
} from './catalogs.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const NAMESPACE = `catalogd-ha-${Math.random().toString(36).slice(2, 7)}`;

interface Replica {
  readonly proc: Managed;
  readonly url: string;
  readonly health: string;
  readonly dir: string;
}

let dir: string;
const replicas: Replica[] = [];
const created = new Set<string>();

async function startReplica(i: number): Promise<Replica> {
  const port = await freePort();
  const health = await freePort();
  const cache = join(dir, `replica-${i}`);
  const proc = startProcess(
    process.execPath,
    [
      '--import',
      'tsx',
      join(root, 'cmd/catalogd/main.ts'),
      `--kubeconfig=${controlPlane().kubeconfigPath}`,
      '--leader-elect',
      `--leader-election-namespace=${NAMESPACE}`,
      `--catalogs-server-addr=127.0.0.1:${port}`,
      `--external-address=127.0.0.1:${port}`,
      `--cache-dir=${cache}`,
      `--insecure-registries=${registry().host}`,
      `--health-probe-bind-address=127.0.0.1:${health}`,
    ],
    join(dir, `replica-${i}.log`),
  );
  return { proc, url: `http://127.0.0.1:${port}`, health: `http://127.0.0.1:${health}`, dir: cache };
}

const waitReady = (r: Replica): Promise<void> =>
  waitFor(`${r.proc.logFile} ready`, async () => {
    const res = await request(`${r.health}/readyz`);
    await res.body.dump();
    return res.statusCode === 200;
  }, { timeoutMs: 60_000, intervalMs: 100 });
const logOf = async (r: Replica): Promise<{ msg: string; [k: string]: unknown }[]> =>
  (await readFile(r.proc.logFile, 'utf8'))
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg: string });
const leads = async (r: Replica): Promise<boolean> => (await logOf(r)).some((l) => l.msg === 'became leader');
const catalogUrl = (r: Replica, name: string): string => `${r.url}/catalogs/${name}`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'catalogd-ha-'));
  await adminKube().must(adminKube().request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }));
  replicas.push(await startReplica(0), await startReplica(1));
  for (const r of replicas) await waitReady(r);
  await waitFor('a leader', async () => (await Promise.all(replicas.map(leads))).some(Boolean), { timeoutMs: 30_000 });
});

afterAll(async () => {
  if (replicas.length) await deleteCatalogs(created).catch(() => undefined);
  for (const r of replicas) await stopProcess(r.proc);
  await releaseFinalizers();
  await adminKube().request('DELETE', `/api/v1/namespaces/${NAMESPACE}`);
  if (dir) await forceRemove(dir);
});

describe('two catalogd replicas', () => {
  it('all serve a catalog: the follower tracks a new digest and takes over as leader, a late replica is ready with content, deletion reaches all', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const leader = (await leads(a)) ? a : b;
    const other = leader === a ? b : a;
    expect(await leads(other)).toBe(false);

    const v1 = fbc('ha', ['1.0.0']);
    const first = await pushCatalogImage(registry(), 'catalogd/ha:v1', { files: v1 });
    const name = uniqueName('ha');
    created.add(name);
    await createCatalog(name, { ref: first.ref });
    const c1 = await waitForCatalog(name, 'Serving', serving);
    expect(c1.status?.urls?.base).toBe(catalogUrl(leader, name));
    expect(c1.status?.resolvedSource?.image.ref).toBe(first.digestRef);

    const fromLeader = await fetchAll(catalogUrl(leader, name));
    expect(fromLeader.status).toBe(200);
    await waitFor('the non-leader to serve', async () => (await fetchAll(catalogUrl(other, name))).status === 200, { timeoutMs: 20_000, intervalMs: 100 });
    expect((await fetchAll(catalogUrl(other, name))).body).toBe(fromLeader.body);
    expect((await logOf(other)).some((l) => l.msg === 'serving catalog content resolved by the leader' && l.catalog === name)).toBe(true);

    // A new image (a spec change): the leader resolves it, the follower pulls the same digest.
    const v2 = fbc('ha', ['1.0.0', '2.0.0']);
    const second = await pushCatalogImage(registry(), 'catalogd/ha:v2', { files: v2 });
    await patchCatalog(name, { spec: { source: { type: 'Image', image: { ref: second.ref } } } });
    await waitForCatalog(name, 'on v2', (c) => serving(c) && c.status?.resolvedSource?.image.ref === second.digestRef);
    await waitFor('both to serve v2', async () => {
      const [x, y] = await Promise.all([fetchAll(catalogUrl(leader, name)), fetchAll(catalogUrl(other, name))]);
      return x.body === y.body && x.body.includes('"ha.v2.0.0"');
    }, { timeoutMs: 20_000, intervalMs: 100 });

    // The leader stops (releasing its lease): the other one leads, and keeps serving.
    await stopProcess(leader.proc);
    replicas.splice(replicas.indexOf(leader), 1);
    await waitFor('the follower to lead', () => leads(other), { timeoutMs: 40_000, intervalMs: 200 });
    const served = await fetchAll(catalogUrl(other, name));
    expect(served.status).toBe(200);
    expect(served.body).toContain('"ha.v2.0.0"');
    const c3 = await waitForCatalog(name, 'urls from the new leader', (c) => c.status?.urls?.base === catalogUrl(other, name));
    expect(c3.status?.resolvedSource?.image.ref).toBe(second.digestRef);

    // A replica that joins now (a rolling update) is ready only once it serves what is Serving.
    const late = await startReplica(2);
    replicas.push(late);
    await waitReady(late);
    const first200 = await fetchAll(catalogUrl(late, name));
    expect(first200.status).toBe(200);
    expect(first200.body).toBe(served.body);

    // Deleting: the new leader runs the finalizer; every replica drops the content.
    await deleteCatalogs([name]);
    created.delete(name);
    expect((await fetchAll(catalogUrl(other, name))).status).toBe(404);
    await waitFor('the late replica to drop it', async () => (await fetchAll(catalogUrl(late, name))).status === 404, { timeoutMs: 20_000, intervalMs: 100 });
  });
});
