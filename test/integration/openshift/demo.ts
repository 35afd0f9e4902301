// The demo catalog (demo/) in the test registry: every bundle pushed with `kubectl olm bundle push`, then the
// catalog with its image references moved from `make run`'s localhost:5001 to this registry, pushed with
// `kubectl olm catalog push`; and helpers around the OpenShift objects the gating tests read.
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCaptured } from '../../../internal/cli/index.ts';
import type { ClusterOperator, ClusterOperatorCondition } from '../../../internal/openshift/index.ts';
import { adminKube, registry } from '../../support/env.ts';
import { poll } from '../../support/net.ts';

const root = join(import.meta.dirname, '../../..');
const MAKE_RUN_REGISTRY = 'localhost:5001';

async function olm(argv: string[]): Promise<string> {
  const r = await runCaptured(argv, { cwd: root, env: process.env });
  if (r.code !== 0) throw new Error(`kubectl olm ${argv.join(' ')} failed (exit ${r.code}):\n${r.stdout}${r.stderr}`);
  return r.stdout.trim();
}

/** Pushes the demo bundles and catalog to the test registry once per process; the catalog's digest reference. */
let published: Promise<string> | undefined;
export function publishDemo(): Promise<string> {
  published ??= (async () => {
    const host = registry().host;
    for (const dir of await readdir(join(root, 'demo', 'bundles'))) {
      const version = dir.replace(/^demo-operator\.v/, '');
      await olm(['bundle', 'push', join(root, 'demo', 'bundles', dir), `${host}/olm-demo/demo-operator-bundle:v${version}`, '--plain-http']);
    }
    const tmp = await mkdtemp(join(tmpdir(), 'demo-catalog-'));
    try {
      await cp(join(root, 'demo', 'catalog'), tmp, { recursive: true });
      for (const f of await readdir(join(tmp, 'demo-operator'))) {
        const file = join(tmp, 'demo-operator', f);
        await writeFile(file, (await readFile(file, 'utf8')).replaceAll(MAKE_RUN_REGISTRY, host));
      }
      return await olm(['catalog', 'push', tmp, `${host}/olm-demo/catalog:gating`, '--plain-http']);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  })();
  return published;
}

const CO_PATH = '/apis/config.openshift.io/v1/clusteroperators';

export async function getClusterOperator(name: string): Promise<ClusterOperator | undefined> {
  const r = await adminKube().request<ClusterOperator>('GET', `${CO_PATH}/${name}`);
  return r.status === 404 ? undefined : r.body;
}

export async function deleteClusterOperator(name: string): Promise<void> {
  await adminKube().request('DELETE', `${CO_PATH}/${name}`);
}

export const coCondition = (co: ClusterOperator | undefined, type: string): ClusterOperatorCondition | undefined => co?.status?.conditions?.find((c) => c.type === type);

/** Waits until the ClusterOperator's condition `type` passes `ok`; the last one seen is in the error. */
export async function waitForCondition(
  name: string,
  type: string,
  ok: (c: ClusterOperatorCondition) => boolean,
  timeoutMs = 60_000,
): Promise<ClusterOperatorCondition> {
  let last: ClusterOperatorCondition | undefined;
  const met = await poll(async () => !!(last = coCondition(await getClusterOperator(name), type)) && ok(last), { timeoutMs, intervalMs: 200 });
  if (!met) throw new Error(`ClusterOperator ${name}: ${type} never matched; last: ${JSON.stringify(last ?? null)}`);
  return last!;
}

export interface EventSeen {
  readonly reason: string;
  readonly message: string;
  readonly type: string;
  readonly involvedObject: { readonly kind: string; readonly name: string };
}

/** Events about ClusterOperator `name` (cluster-scoped objects' events are in `default`). */
export async function clusterOperatorEvents(name: string): Promise<EventSeen[]> {
  const r = await adminKube().must<{ items: EventSeen[] }>(
    adminKube().request('GET', `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent(`involvedObject.kind=ClusterOperator,involvedObject.name=${name}`)}`),
  );
  return r.items;
}

/** ClusterVersion `version` at `version` (what the cluster-version operator would report; there is none here). */
export async function setClusterVersion(version: string): Promise<void> {
  const path = '/apis/config.openshift.io/v1/clusterversions/version';
  let cv = await adminKube().request<{ metadata: { resourceVersion: string }; status?: unknown }>('GET', path);
  if (cv.status === 404) {
    cv = await adminKube().request('POST', '/apis/config.openshift.io/v1/clusterversions', {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: 'version' },
      spec: { clusterID: '5d6e4c3b-2a19-4f87-9e61-0c3b2a1d4e5f' },
    });
    if (cv.status !== 201) throw new Error(`create ClusterVersion: ${cv.status} ${JSON.stringify(cv.body)}`);
  }
  const status = {
    desired: { version, image: `quay.io/openshift-release-dev/ocp-release:${version}-x86_64` },
    history: [{ state: 'Completed', version, image: `quay.io/openshift-release-dev/ocp-release:${version}-x86_64`, startedTime: '2026-01-01T00:00:00Z', completionTime: '2026-01-01T01:00:00Z', verified: false }],
    observedGeneration: 1,
    versionHash: 'test',
    availableUpdates: null,
  };
  await adminKube().must(adminKube().request('PUT', `${path}/status`, { ...(cv.body as object), status }));
}
