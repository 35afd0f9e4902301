// `kubectl olm migrate` killed (SIGKILL) at seeded random points, as a real child process, then run again to the
// end: each time the end state is the clean one (the Deployment's UID, the custom resource, one ClusterObjectSet
// revision, the ClusterExtension Installed at the same version, the classic objects gone, nothing duplicated); between
// runs `migrate rollback` gives the operator back to olm-classic. While the moves run, a watch on the namespace's
// Deployments and CSVs checks that olm-classic never fights v1: the Deployment is neither re-created nor rewritten
// (its UID and spec stay, no classic owner comes back once it is gone) and the CSV stays Succeeded until deleted.
// The seed is printed; MIGRATE_KILL_SEED=<seed> replays a run.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import { runCaptured, type CapturedRun } from '../../../internal/cli/index.ts';
import { KubeClient } from '../../../internal/shared/kube/index.ts';
import type { TestBundle } from '../../support/bundles.ts';
import { adminKube, controlPlane } from '../../support/env.ts';
import { TestKube } from '../../support/kube.ts';
import type { OlmClassicProcess } from '../../support/olm-classic-process.ts';
import { random, setUpMigrateFixture, tearDownMigrate, waitForClassicInstall, watchKinds } from './migrate-fixture.ts';
import { startOperatorController } from '../operator-controller/harness.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const root = fileURLToPath(new URL('../../../', import.meta.url));
const kube = (): TestKube => adminKube();
const PKG = 'migkill';
let clusterCatalog = '';
const CE = `/apis/olm.operatorframework.io/v1/clusterextensions/${PKG}`;
const COS = '/apis/olm.operatorframework.io/v1/clusterobjectsets';
let cwd = '';
let olmClassic: OlmClassicProcess | undefined;
let globalNs = '';
let ns = '';
let bundle: TestBundle;
const env = (): Record<string, string> => ({ KUBECONFIG: controlPlane().kubeconfigPath });
const olm = (argv: string[]): Promise<CapturedRun> => runCaptured(argv, { cwd, env: env() });
const get = async (path: string): Promise<{ status: number; body: Json }> => (await kube().request('GET', path)) as { status: number; body: Json };
const deployment = (): string => `/apis/apps/v1/namespaces/${ns}/deployments/${bundle.deploymentName}`;
const cr = (): string => `/apis/${bundle.group}/v1/namespaces/${ns}/widgets/kept`;
const sub = (): string => TestKube.path(ops.V1alpha1, ops.SubscriptionResource, PKG, ns);
const diag = (r: unknown): string => `${JSON.stringify(r)}\nolm-classic said:\n${olmClassic?.logs.slice(-20).join('\n') ?? ''}`;

/**
 * Where a run is killed: right after the CLI prints the line starting with `after` (the phase it starts), plus
 * `extraMs`; `after` undefined: `extraMs` after the process starts (while it reads the cluster and the catalog).
 */
interface KillPoint {
  readonly after?: string;
  readonly extraMs: number;
}
/** One kill point per phase: the check, the backup (file, Secret), the revision, ownership, the extension, cleanup. */
const PHASES: readonly (string | undefined)[] = [undefined, 'wrote backup', 'created Secret', 'created ClusterObjectSet', 'patched', 'created ClusterExtension', 'deleted Subscription', 'deleted ClusterServiceVersion'];

/** Runs `kubectl-olm migrate` as a child process and SIGKILLs it at the kill point; resolves with what it printed. */
function migrateKilled(point: KillPoint, backupDir: string): Promise<{ stdout: string[]; stderr: string; killed: boolean; code: number | null }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'cmd', 'kubectl-olm', 'main.ts'), 'migrate', PKG, '-n', ns, '--backup-dir', backupDir, '--timeout', '3m'], {
    cwd: root,
    env: { ...process.env, ...env() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  let stderr = '';
  let killed = false;
  const kill = (): void => {
    setTimeout(() => {
      killed = child.exitCode === null && child.kill('SIGKILL');
    }, point.extraMs);
  };
  if (point.after === undefined) kill();
  createInterface({ input: child.stdout }).on('line', (l) => {
    stdout.push(l);
    if (point.after !== undefined && l.startsWith(point.after) && !stdout.slice(0, -1).some((p) => p.startsWith(point.after!))) kill();
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ stdout, stderr, killed, code }));
  });
}

beforeAll(async () => {
  ({ globalNs, ns, cwd, bundle, olmClassic, clusterCatalog } = await setUpMigrateFixture(PKG, async () => {
    await startOperatorController({ boxcutterRuntime: true });
  }));
}, 300_000);

afterAll(async () => {
  await tearDownMigrate({ extensions: [PKG], namespaces: [ns], globalNs, clusterCatalog, olmClassic, cwd });
}, 180_000);

/** The moves in which the CSV left Succeeded before it was deleted (see the last test). */
const csvFlaps: string[] = [];

describe('kubectl olm migrate, killed', () => {
  it('SIGKILLed at random points in each phase, the next run ends in the clean state, and olm-classic never fights v1', async () => {
    const seed = Number(process.env['MIGRATE_KILL_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
    console.log(`migrate-kill: seed ${seed} (replay with MIGRATE_KILL_SEED=${seed})`);
    const rnd = random(seed);
    const order = [...PHASES].map((p) => ({ p, k: rnd() })).sort((a, b) => a.k - b.k).map((x) => x.p);
    const points: KillPoint[] = order.map((after) => ({ ...(after !== undefined && { after }), extraMs: Math.floor(rnd() * (after === undefined ? 2500 : 150)) }));
    const client = await KubeClient.fromConfig({ kubeconfig: controlPlane().kubeconfigPath });
    const depBefore = (await get(deployment())).body;
    const uid = depBefore['metadata']['uid'] as string;
    const specBefore = JSON.stringify(depBefore['spec']);
    const crUid = ((await get(cr())).body['metadata'] as Json)['uid'];
    const crdBefore = ((await get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${bundle.group}`)).body['metadata'] as Json)['uid'];

    for (const [i, point] of points.entries()) {
      const at = `run ${i + 1} (seed ${seed}, killed ${point.after ? `after "${point.after}"` : 'from the start'} +${point.extraMs} ms)`;
      const watch = watchKinds(client, ns, [{ apiVersion: 'apps/v1', kind: 'Deployment' }, { apiVersion: ops.V1alpha1, kind: ops.ClusterServiceVersionKind }]);
      try {
        const killed = await migrateKilled(point, join(cwd, `backup-${i}`));
        expect(killed.stderr, `${at}: ${diag(killed)}`).not.toMatch(/stopped|Error/);
        const r = await olm(['migrate', PKG, '-n', ns, '--backup-dir', join(cwd, `backup-${i}-again`), '--timeout', '3m']);
        expect(r.code, `${at}: first run printed ${JSON.stringify(killed)}\n${diag(r)}`).toBe(0);

        // the clean end state
        const dep = (await get(deployment())).body;
        expect(dep['metadata']['uid'], at).toBe(uid);
        expect(JSON.stringify(dep['spec']), at).toBe(specBefore);
        expect((dep['metadata']['ownerReferences'] as Json[]).map((o) => [o['kind'], o['name'], o['controller']]), at).toEqual([['ClusterObjectSet', `${PKG}-1`, true]]);
        expect(dep['metadata']['labels']['olm.owner'], at).toBeUndefined();
        expect(((await get(`/apis/apps/v1/namespaces/${ns}/deployments`)).body['items'] as Json[]).map((d) => d['metadata']['name']), at).toEqual([bundle.deploymentName]);
        expect(((await get(cr())).body['metadata'] as Json)['uid'], at).toBe(crUid);
        expect(((await get(`/apis/${bundle.group}/v1/namespaces/${ns}/widgets`)).body['items'] as Json[]).length, at).toBe(1);
        expect(((await get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${bundle.group}`)).body['metadata'] as Json)['uid'], at).toBe(crdBefore);
        const revs = ((await get(`${COS}?labelSelector=${encodeURIComponent(`olm.operatorframework.io/owner-name=${PKG}`)}`)).body['items'] as Json[]).map((c) => c['metadata']['name']);
        expect(revs, at).toEqual([`${PKG}-1`]);
        const ext = (await get(CE)).body;
        expect(ext['status']['install']['bundle'], at).toMatchObject({ name: bundle.name, version: '1.0.0' });
        expect(ext['status']['activeRevisions'], at).toEqual([{ name: `${PKG}-1` }]);
        expect((ext['status']['conditions'] as Json[]).find((c) => c['type'] === 'Installed'), at).toMatchObject({ status: 'True' });
        expect((await get(sub())).status, at).toBe(404);
        expect(((await get(TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, undefined, ns))).body['items'] as Json[]).length, at).toBe(0);
        expect(((await get(TestKube.path(ops.V1alpha1, 'installplans', undefined, ns))).body['items'] as Json[]).length, at).toBe(0);
        expect((await get(TestKube.path(ops.V1, ops.OperatorGroupResource, 'og', ns))).status, at).toBe(404);
        expect(((await get(`/api/v1/namespaces/${ns}/secrets?labelSelector=${encodeURIComponent('olm.operatorframework.io/migration-backup')}`)).body['items'] as Json[]).length, at).toBeLessThanOrEqual(1);
      } finally {
        watch.stop();
      }

      // olm-classic never fought v1 while the move ran
      const deps = watch.events.filter((e) => e.kind === 'Deployment');
      expect(deps.filter((e) => e.type !== 'MODIFIED').map((e) => e.type), `${at}: the Deployment re-created`).toEqual([]);
      for (const e of deps) {
        expect(e.obj['metadata']['uid'], at).toBe(uid);
        expect(JSON.stringify(e.obj['spec']), `${at}: the Deployment rewritten at resourceVersion ${e.obj['metadata']['resourceVersion']}`).toBe(specBefore);
      }
      const classicOwned = (o: Json): boolean => ((o['metadata']['ownerReferences'] ?? []) as Json[]).some((r) => r['kind'] === ops.ClusterServiceVersionKind) || o['metadata']['labels']?.['olm.owner'] !== undefined;
      const released = deps.findIndex((e) => !classicOwned(e.obj));
      if (released >= 0) expect(deps.slice(released).filter((e) => classicOwned(e.obj)).map((e) => e.obj['metadata']['resourceVersion']), `${at}: olm-classic took the Deployment back`).toEqual([]);
      const csvs = watch.events.filter((e) => e.kind === ops.ClusterServiceVersionKind && !e.obj['metadata']['labels']?.['olm.copiedFrom']);
      const phases = csvs.map((e) => [e.type, e.obj['status']?.['phase'], e.obj['status']?.['reason'], e.obj['status']?.['message']]);
      if (phases.some((p) => p[1] !== 'Succeeded')) csvFlaps.push(`${at}: the CSV's phase flapped: ${JSON.stringify(phases)}`);
      const last = csvs.at(-1)?.obj;
      if (last) {
        const history = (last['status']?.['conditions'] ?? []) as Json[];
        expect(history.at(-1)?.['phase'], at).toBe('Succeeded');
      }

      // back to a classic install for the next run
      const back = await olm(['migrate', 'rollback', PKG, '--timeout', '3m']);
      expect(back.code, `${at}: rollback: ${diag(back)}`).toBe(0);
      await waitForClassicInstall({ pkg: PKG, ns, bundle });
      expect(((await get(deployment())).body['metadata'] as Json)['uid'], at).toBe(uid);
    }
  }, 480_000);

  // The ClusterObjectSet's adoption writes its revision annotations on the Deployment, and a Deployment's generation
  // moves with its annotations; olm-classic leaves a CSV whose Deployment a ClusterObjectSet controls as it is, so
  // its health check never reads that generation as a rollout (no Failed/ComponentUnhealthy, no NeedsReinstall).
  it('the CSV stays Succeeded while the move runs (its phase never flaps)', () => {
    expect(csvFlaps).toEqual([]);
  });
});
