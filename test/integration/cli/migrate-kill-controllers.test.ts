// `kubectl olm migrate` while the controllers die (issue 33: "Interrupted at any point (SIGKILL of the CLI, of
// operator-controller, of olm-classic) it can be run again and ends in the same state, or rolled back"). The real
// operator-controller (BoxcutterRuntime) and olm-classic binaries run as their own processes; a move is started as a
// child `kubectl-olm migrate` and, right after it prints the line of a chosen step (plus a seeded delay), one controller
// is SIGKILLed and started again (after a seeded pause); eight cycles, four per controller:
//   - operator-controller while migrate waits for revision 1 (ClusterObjectSet) to adopt the objects and succeed,
//     after the classic ownership is patched off, while migrate waits for the extension to be Installed from the
//     adopted revision, and while the classic objects are removed;
//   - olm-classic after the ClusterObjectSet is created, after the classic ownership is patched off, while the
//     extension resolves, and while the classic objects are removed (the CSV's finalizer is olm-classic's to remove).
// The same migrate run must end in the clean state (the Deployment's UID and spec, the custom resource, one revision,
// the extension Installed, the classic objects gone); a watch on the Deployment over the whole cycle checks that
// neither the dying nor the restarted olm-classic re-creates or rewrites it, nor takes it back. Between moves,
// `migrate rollback` is SIGKILLed mid-way in four of the cycles (after the revision, the extension, or the
// Subscription is deleted or created again) and run again: it must converge to the classic state
// (Subscription, CSV Succeeded owning the same Deployment, no extension, no revision, no backup Secret).
// The seed is printed; MIGRATE_KILL_SEED=<seed> replays a run. The setup, the seeded generator and the watch are
// migrate-fixture.ts's, shared with migrate-kill.test.ts (its own package and namespaces).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import { runCaptured, type CapturedRun } from '../../../internal/cli/index.ts';
import { KubeClient } from '../../../internal/shared/kube/index.ts';
import { sleep } from '../../../internal/shared/toolkit/index.ts';
import type { TestBundle } from '../../support/bundles.ts';
import { adminKube, controlPlane, registry } from '../../support/env.ts';
import { TestKube } from '../../support/kube.ts';
import { waitFor } from '../../support/net.ts';
import { startOlmClassicProcess, type OlmClassicProcess } from '../../support/olm-classic-process.ts';
import { startBinary, type ControllerProcess } from '../../support/process.ts';
import { random, setUpMigrateFixture, tearDownMigrate, waitForClassicInstall, watchKinds } from './migrate-fixture.ts';
import { SYSTEM_NAMESPACE } from '../operator-controller/harness.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const root = fileURLToPath(new URL('../../../', import.meta.url));
const kube = (): TestKube => adminKube();
const PKG = 'migctl';
let clusterCatalog = '';
const CE = `/apis/olm.operatorframework.io/v1/clusterextensions/${PKG}`;
const COS = '/apis/olm.operatorframework.io/v1/clusterobjectsets';
let cwd = '';
let globalNs = '';
let ns = '';
let bundle: TestBundle;
let olmClassic: OlmClassicProcess | undefined;
let oc: { proc: ControllerProcess; logs: string[] } | undefined;
const env = (): Record<string, string> => ({ KUBECONFIG: controlPlane().kubeconfigPath });
const olm = (argv: string[]): Promise<CapturedRun> => runCaptured(argv, { cwd, env: env() });
const get = async (path: string): Promise<{ status: number; body: Json }> => (await kube().request('GET', path)) as { status: number; body: Json };
const items = async (path: string): Promise<Json[]> => ((await get(path)).body['items'] ?? []) as Json[];
const deployment = (): string => `/apis/apps/v1/namespaces/${ns}/deployments/${bundle.deploymentName}`;
const cr = (): string => `/apis/${bundle.group}/v1/namespaces/${ns}/widgets/kept`;
const sub = (): string => TestKube.path(ops.V1alpha1, ops.SubscriptionResource, PKG, ns);
const revisions = async (): Promise<string[]> => (await items(`${COS}?labelSelector=${encodeURIComponent(`olm.operatorframework.io/owner-name=${PKG}`)}`)).map((c) => c['metadata']['name'] as string);
const diag = (r: unknown): string =>
  `${JSON.stringify(r)}\nolm-classic said:\n${olmClassic?.logs.slice(-15).join('\n') ?? ''}\noperator-controller said:\n${oc?.logs.slice(-15).join('\n') ?? ''}`;

/** The real operator-controller binary with the ClusterObjectSet runtime; resolves once its controllers start. */
async function startOperatorControllerProcess(): Promise<void> {
  const logs: string[] = [];
  const proc = startBinary(
    'operator-controller',
    [
      '--health-probe-bind-address=0',
      `--system-namespace=${SYSTEM_NAMESPACE}`,
      `--cache-path=${join(cwd, 'operator-controller-cache')}`,
      `--insecure-registries=${registry().host}`,
      '--feature-gates=BoxcutterRuntime=true',
    ],
    env(),
    (l) => logs.push(l),
  );
  oc = { proc, logs };
  await Promise.race([
    proc.started,
    proc.exited.then(() => {
      throw new Error(`operator-controller exited before starting: ${logs.slice(-20).join('\n')}`);
    }),
  ]);
}

/**
 * `kubectl-olm <argv>` as a child process; `onPoint(child)` runs once, when it first prints a line starting with
 * `after`. Resolves with what it printed, how it ended and whether the point was reached.
 */
function runChild(argv: readonly string[], after: string | undefined, onPoint: (child: ReturnType<typeof spawn>) => void): Promise<{ stdout: string[]; stderr: string; code: number | null; signal: string | null; reached: boolean }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'cmd', 'kubectl-olm', 'main.ts'), ...argv], { cwd: root, env: { ...process.env, ...env() }, stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout: string[] = [];
  let stderr = '';
  let reached = false;
  createInterface({ input: child.stdout! }).on('line', (l) => {
    stdout.push(l);
    if (!reached && after !== undefined && l.startsWith(after)) {
      reached = true;
      onPoint(child);
    }
  });
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ stdout, stderr, code, signal, reached }));
  });
}

beforeAll(async () => {
  await kube().request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: SYSTEM_NAMESPACE } });
  ({ globalNs, ns, cwd, bundle, olmClassic, clusterCatalog } = await setUpMigrateFixture(PKG, async (dir) => {
    cwd = dir;
    await startOperatorControllerProcess();
  }));
}, 300_000);

afterAll(async () => {
  // a failure may have left a controller killed: the extension's and the CSV's finalizers need both running
  if (oc && (oc.proc.child.exitCode !== null || oc.proc.child.signalCode !== null)) await startOperatorControllerProcess().catch(() => undefined);
  if (olmClassic && !olmClassic.alive()) olmClassic = await startOlmClassicProcess({ globalNamespace: globalNs }).catch(() => undefined);
  await tearDownMigrate({ extensions: [PKG], namespaces: [ns], globalNs, clusterCatalog, olmClassic, stopOperatorController: async () => oc?.proc.stop(), cwd });
}, 180_000);

/** Which controller dies, right after migrate prints the line starting with `after`. */
interface Cycle {
  readonly victim: 'operator-controller' | 'olm-classic';
  readonly after: string;
  /** Where the rollback that follows is SIGKILLed (undefined: it runs to the end). */
  readonly rollbackAfter?: string;
}
const CYCLES: readonly Cycle[] = [
  // while migrate waits for the extension to be Installed from the adopted revision
  { victim: 'operator-controller', after: 'created ClusterExtension', rollbackAfter: 'deleted ClusterObjectSet' },
  // while migrate waits for revision 1 to adopt the objects and succeed
  { victim: 'operator-controller', after: 'created ClusterObjectSet', rollbackAfter: 'deleted ClusterExtension' },
  // after the ClusterObjectSet is created (the CSV still owns the Deployment)
  { victim: 'olm-classic', after: 'created ClusterObjectSet' },
  // after the classic ownership is patched off (the CSV no longer owns the Deployment)
  { victim: 'olm-classic', after: 'patched', rollbackAfter: 'created Subscription' },
  // while the classic objects are removed (the CSV's finalizer waits for olm-classic)
  { victim: 'olm-classic', after: 'deleted Subscription' },
  // after the classic ownership is patched off, before the extension exists
  { victim: 'operator-controller', after: 'patched' },
  // while the extension resolves to the adopted revision, olm-classic still holding the CSV
  { victim: 'olm-classic', after: 'created ClusterExtension', rollbackAfter: 'deleted ClusterObjectSet' },
  // while the classic objects are removed, the extension already Installed
  { victim: 'operator-controller', after: 'deleted Subscription' },
];

describe('kubectl olm migrate, a controller killed during the move', () => {
  it('SIGKILL of operator-controller or olm-classic mid-move: the run ends clean, olm-classic never touches the adopted Deployment; a killed rollback re-run converges to classic', async () => {
    const seed = Number(process.env['MIGRATE_KILL_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
    console.log(`migrate-kill-controllers: seed ${seed} (replay with MIGRATE_KILL_SEED=${seed})`);
    const rnd = random(seed);
    const client = await KubeClient.fromConfig({ kubeconfig: controlPlane().kubeconfigPath });
    const depBefore = (await get(deployment())).body;
    const uid = depBefore['metadata']['uid'] as string;
    const specBefore = JSON.stringify(depBefore['spec']);
    const crUid = ((await get(cr())).body['metadata'] as Json)['uid'];

    for (const [i, cycle] of CYCLES.entries()) {
      const killMs = Math.floor(rnd() * 200);
      const downMs = Math.floor(rnd() * 1500);
      const at = `cycle ${i + 1} (seed ${seed}: ${cycle.victim} killed ${killMs} ms after "${cycle.after}", restarted ${downMs} ms later)`;
      const watch = watchKinds(client, ns, [{ apiVersion: 'apps/v1', kind: 'Deployment' }]);
      try {
        let restarted: Promise<void> = Promise.resolve();
        let midMove = false;
        const run = await runChild(['migrate', PKG, '-n', ns, '--backup-dir', join(cwd, `backup-${i}`), '--timeout', '3m'], cycle.after, (child) => {
          restarted = (async () => {
            await sleep(killMs);
            // the kill lands while migrate still runs (it has more steps to print, and waits on the victim)
            midMove = child.exitCode === null && child.signalCode === null;
            if (cycle.victim === 'operator-controller') {
              await oc!.proc.stop('SIGKILL');
              await sleep(downMs);
              await startOperatorControllerProcess();
            } else {
              await olmClassic!.kill();
              await sleep(downMs);
              olmClassic = await startOlmClassicProcess({ globalNamespace: globalNs });
            }
          })();
        });
        await restarted;
        expect(run.reached, `${at}: never printed "${cycle.after}": ${diag(run)}`).toBe(true);
        expect(midMove, `${at}: migrate had ended before the kill: ${diag(run)}`).toBe(true);
        expect(run.code, `${at}: ${diag(run)}`).toBe(0);

        // the clean end state
        const dep = (await get(deployment())).body;
        expect(dep['metadata']['uid'], at).toBe(uid);
        expect(JSON.stringify(dep['spec']), at).toBe(specBefore);
        expect((dep['metadata']['ownerReferences'] as Json[]).map((o) => [o['kind'], o['name'], o['controller']]), at).toEqual([['ClusterObjectSet', `${PKG}-1`, true]]);
        expect(dep['metadata']['labels']['olm.owner'], at).toBeUndefined();
        expect((await items(`/apis/apps/v1/namespaces/${ns}/deployments`)).map((d) => d['metadata']['name']), at).toEqual([bundle.deploymentName]);
        expect(((await get(cr())).body['metadata'] as Json)['uid'], at).toBe(crUid);
        expect(await revisions(), at).toEqual([`${PKG}-1`]);
        const ext = (await get(CE)).body;
        expect(ext['status']['install']['bundle'], at).toMatchObject({ name: bundle.name, version: '1.0.0' });
        expect(ext['status']['activeRevisions'], at).toEqual([{ name: `${PKG}-1` }]);
        expect((ext['status']['conditions'] as Json[]).find((c) => c['type'] === 'Installed'), at).toMatchObject({ status: 'True' });
        expect((await get(sub())).status, at).toBe(404);
        expect((await items(TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, undefined, ns))).length, at).toBe(0);
        expect((await items(TestKube.path(ops.V1alpha1, 'installplans', undefined, ns))).length, at).toBe(0);
        expect((await get(TestKube.path(ops.V1, ops.OperatorGroupResource, 'og', ns))).status, at).toBe(404);
        // the restarted olm-classic has seen the whole move (its informers synced before it started its controllers,
        // and the CSV's finalizer came off only once it ran): none of its copies of the CSV is left
        expect((await items(`${TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource)}?labelSelector=${encodeURIComponent(`${ops.CopiedFromLabel}=${ns}`)}`)).length, at).toBe(0);
      } finally {
        watch.stop();
      }

      // neither the dying nor the restarted olm-classic fought v1 over the Deployment
      const deps = watch.events;
      expect(deps.filter((e) => e.type !== 'MODIFIED').map((e) => e.type), `${at}: the Deployment re-created`).toEqual([]);
      for (const e of deps) {
        expect(e.obj['metadata']['uid'], at).toBe(uid);
        expect(JSON.stringify(e.obj['spec']), `${at}: the Deployment rewritten at resourceVersion ${e.obj['metadata']['resourceVersion']}`).toBe(specBefore);
      }
      const classicOwned = (o: Json): boolean => ((o['metadata']['ownerReferences'] ?? []) as Json[]).some((r) => r['kind'] === ops.ClusterServiceVersionKind) || o['metadata']['labels']?.['olm.owner'] !== undefined;
      const released = deps.findIndex((e) => !classicOwned(e.obj));
      if (released >= 0) expect(deps.slice(released).filter((e) => classicOwned(e.obj)).map((e) => e.obj['metadata']['resourceVersion']), `${at}: olm-classic took the Deployment back`).toEqual([]);

      // back to a classic install for the next cycle: the rollback SIGKILLed mid-way, then run again
      if (cycle.rollbackAfter !== undefined) {
        const wait = Math.floor(rnd() * 100);
        const killed = await runChild(['migrate', 'rollback', PKG, '--timeout', '3m'], cycle.rollbackAfter, (child) => setTimeout(() => child.kill('SIGKILL'), wait));
        expect(killed.reached, `${at}: rollback never printed "${cycle.rollbackAfter}": ${diag(killed)}`).toBe(true);
        expect(killed.stderr, `${at}: rollback killed after "${cycle.rollbackAfter}" +${wait} ms: ${diag(killed)}`).not.toMatch(/stopped|Error/);
      }
      const back = await olm(['migrate', 'rollback', PKG, '--timeout', '3m']);
      expect(back.code, `${at}: rollback: ${diag(back)}`).toBe(0);
      await waitForClassicInstall({ pkg: PKG, ns, bundle });
      // the classic state
      const dep = (await get(deployment())).body;
      expect(dep['metadata']['uid'], at).toBe(uid);
      expect((dep['metadata']['ownerReferences'] as Json[]).map((o) => [o['kind'], o['name']]), at).toEqual([[ops.ClusterServiceVersionKind, bundle.name]]);
      expect((await get(CE)).status, at).toBe(404);
      // the extension's own revision (made once revision 1 was gone) goes with the extension
      await waitFor(`${at}: no revision left`, async () => (await revisions()).length === 0, { timeoutMs: 60_000 }).catch(() => undefined);
      expect(await revisions(), at).toEqual([]);
      expect((await items(`/api/v1/namespaces/${ns}/secrets?labelSelector=${encodeURIComponent('olm.operatorframework.io/migration-backup')}`)).length, at).toBe(0);
      expect(((await get(cr())).body['metadata'] as Json)['uid'], at).toBe(crUid);
    }
  }, 600_000);
});
