// Leader election between real processes (fixtures/leader.ts) on the shared control plane, with
// controller-runtime's defaults: lease 15 s, renew deadline 10 s, retry 2 s.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { microTime, type KubeClient, type Lease } from '../../../internal/shared/kube/index.ts';
import { controlPlane } from '../../support/env.ts';
import { killProcess, startProcess, stopProcess, type Managed } from '../../support/process.ts';
import { adminClient, namespace, until } from './helpers.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/leader.ts', import.meta.url));
const MICROTIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const LEASE_MS = 15_000;
const RETRY_MS = 2_000;

interface Event {
  readonly t: number;
  readonly id: string;
  readonly event: string;
  readonly outcome?: string;
  readonly leader?: string;
}

let admin: KubeClient;
let ns: string;
let dir: string;
const procs = new Map<string, Managed>();

beforeAll(async () => {
  admin = await adminClient(controlPlane());
  ns = await namespace(admin, 'leader');
  dir = await mkdtemp(join(tmpdir(), 'leader-'));
});
afterAll(async () => {
  await Promise.all([...procs.values()].map((p) => stopProcess(p, 2_000)));
  await admin?.close();
});

function start(id: string): Managed {
  const p = startProcess('node', ['--import', 'tsx', FIXTURE], join(dir, `${id}.log`), {
    ...process.env,
    KUBECONFIG: controlPlane().kubeconfigPath,
    LEASE_NAMESPACE: ns,
    LEASE_NAME: 'test-lock',
    IDENTITY: id,
  });
  procs.set(id, p);
  return p;
}

async function events(id: string): Promise<Event[]> {
  const text = await readFile(join(dir, `${id}.log`), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Event);
}

const has = async (id: string, event: string): Promise<boolean> => (await events(id)).some((e) => e.event === event);
const lease = (): Promise<Lease> => admin.get<Lease>({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: ns, name: 'test-lock' });

describe('leader election', () => {
  it('lets one process lead, hands over after a SIGKILL, on release at once, and stops a leader that lost the lease', async () => {
    start('a');
    start('b');
    await until('a leader', async () => (await has('a', 'leading')) || (await has('b', 'leading')), 60_000);
    const [first, second] = (await has('a', 'leading')) ? ['a', 'b'] : ['b', 'a'];
    // The other has read the lease and found it held, and the leader has been reconciling for a while (> 8 × 250 ms,
    // an attempt of the other every 2 s).
    await until(`${second} to see ${first} leading`, async () => (await events(second)).some((e) => e.event === 'observed-leader' && e.leader === first), 30_000);
    await until(`${first} to reconcile 9 times`, async () => (await events(first)).filter((e) => e.event === 'reconcile').length > 8, 30_000);
    expect(await has(second, 'leading')).toBe(false);
    expect((await events(second)).filter((e) => e.event === 'reconcile')).toEqual([]);
    expect((await events(first)).filter((e) => e.event === 'reconcile').length).toBeGreaterThan(8);
    const held = await lease();
    expect(held.spec).toMatchObject({ holderIdentity: first, leaseDurationSeconds: 15, leaseTransitions: 0 });
    expect(held.spec?.renewTime).toMatch(MICROTIME);
    expect(held.spec?.acquireTime).toMatch(MICROTIME);

    // SIGKILL: no release; the other waits for the lease to expire, then takes over.
    await killProcess(procs.get(first)!);
    const killedAt = Date.now();
    await until(`${second} to lead`, () => has(second, 'leading'), 40_000);
    const takeover = (await events(second)).find((e) => e.event === 'leading')!.t - killedAt;
    expect(takeover).toBeGreaterThan(LEASE_MS - RETRY_MS * 1.2 - 1_000); // not before the lease could have expired
    expect(takeover).toBeLessThan(LEASE_MS + 2 * RETRY_MS * 1.2 + 1_000); // expiry, plus at most one unseen renewal and one retry
    expect((await lease()).spec).toMatchObject({ holderIdentity: second, leaseTransitions: 1 });
    console.info(`[leader-election] takeover ${takeover} ms after SIGKILL of the leader`);

    // SIGTERM: the leader stops its reconcilers and releases the lease, so the next one need not wait.
    start('c');
    await until('c to campaign', () => has('c', 'started'), 30_000);
    // c has read the lease and found it held by the leader.
    await until(`c to see ${second} leading`, async () => (await events('c')).some((e) => e.event === 'observed-leader' && e.leader === second), 30_000);
    expect(await has('c', 'leading')).toBe(false);
    const stoppedAt = Date.now();
    await stopProcess(procs.get(second)!);
    expect(await procs.get(second)!.exited).toBe(0);
    const secondEvents = (await events(second)).map((e) => e.event);
    expect(secondEvents.indexOf('reconcilers-stopped')).toBeGreaterThan(secondEvents.lastIndexOf('reconcile'));
    expect(secondEvents.slice(-2)).toEqual(['stopped-leading', 'exit']);
    await until('c to lead', () => has('c', 'leading'), 20_000);
    const handover = (await events('c')).find((e) => e.event === 'leading')!.t - stoppedAt;
    console.info(`[leader-election] handover ${handover} ms after SIGTERM of the leader`);
    expect(handover).toBeLessThan(RETRY_MS * 1.2 + 2_000);
    expect((await lease()).spec).toMatchObject({ holderIdentity: 'c', leaseTransitions: 2 });

    // Someone else takes the lease: the leader notices on its next renewal and stops reconciling.
    const current = await lease();
    const stolenAt = Date.now();
    await admin.update({ ...current, spec: { ...current.spec, holderIdentity: 'intruder', leaseDurationSeconds: 3600, renewTime: microTime() } });
    expect(await procs.get('c')!.exited).toBe(1);
    const cEvents = await events('c');
    const exit = cEvents.find((e) => e.event === 'exit')!;
    expect(exit.outcome).toBe('lost');
    console.info(`[leader-election] stolen lease noticed after ${exit.t - stolenAt} ms`);
    expect(exit.t - stolenAt).toBeLessThan(RETRY_MS + 2_000);
    const names = cEvents.map((e) => e.event);
    expect(names.indexOf('reconcilers-stopped')).toBeGreaterThan(names.lastIndexOf('reconcile'));
    expect((await lease()).spec?.holderIdentity).toBe('intruder'); // a loser does not release what it does not hold
  });
});
