// The shared event recorder (internal/shared/kube events.ts) against the real API server: a new event is created, the
// same event again within 10 minutes bumps the written one's count and lastTimestamp, later (or
// with another message) it is a new event, and one whose earlier copy is gone is created afresh.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient, eventRecorder } from '../../../internal/shared/kube/index.ts';
import { noopLogger } from '../../../internal/shared/observability/index.ts';
import { adminKube, controlPlane } from '../../support/env.ts';
import { waitFor } from '../../support/net.ts';
import { memoryLogger } from './helpers.ts';

interface Event {
  metadata: { name: string };
  type: string;
  reason: string;
  message: string;
  count: number;
  firstTimestamp: string;
  lastTimestamp: string;
}

let client: KubeClient;
beforeAll(async () => {
  client = await KubeClient.fromConfig({ kubeconfig: controlPlane().kubeconfigPath });
});
afterAll(async () => {
  await client?.close();
});

const extension = () => ({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', metadata: { name: 'recorded', uid: randomUUID() } });

async function eventsOf(uid: string): Promise<Event[]> {
  const r = await adminKube().must<{ items: Event[] }>(
    adminKube().request('GET', `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent(`involvedObject.uid=${uid}`)}`),
  );
  return r.items.sort((a, b) => a.firstTimestamp.localeCompare(b.firstTimestamp) || a.message.localeCompare(b.message));
}

describe('event recorder', () => {
  it('folds repeats within 10 minutes into one event, and starts a new one after', async () => {
    let now = Date.parse('2026-11-01T10:00:00Z');
    const recorder = eventRecorder(client, 'operator-controller', noopLogger, () => now);
    const ext = extension();
    const uid = ext.metadata.uid;

    recorder.warning(ext, 'InstallFailed', 'boom');
    for (let i = 0; i < 3; i++) {
      // Fired at once: the recorder orders the writes (create, then counts 2, 3, 4).
      now += 60_000;
      recorder.warning(ext, 'InstallFailed', 'boom');
    }
    await waitFor('the count at 4', async () => (await eventsOf(uid))[0]?.count === 4);
    let events = await eventsOf(uid);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'Warning', reason: 'InstallFailed', message: 'boom', firstTimestamp: '2026-11-01T10:00:00Z', lastTimestamp: '2026-11-01T10:03:00Z' });

    recorder.warning(ext, 'InstallFailed', 'another cause'); // another message: another event
    now += 11 * 60_000;
    recorder.warning(ext, 'InstallFailed', 'boom'); // more than 10 minutes after the last one: a new event
    await waitFor('three events', async () => (await eventsOf(uid)).length === 3);
    events = await eventsOf(uid);
    expect(events.map((e) => [e.message, e.count, e.firstTimestamp])).toEqual([
      ['boom', 4, '2026-11-01T10:00:00Z'],
      ['another cause', 1, '2026-11-01T10:03:00Z'],
      ['boom', 1, '2026-11-01T10:14:00Z'],
    ]);
  });

  it('creates the event afresh when the one it would fold into is gone', async () => {
    const log = memoryLogger();
    const recorder = eventRecorder(client, 'operator-controller', log);
    const ext = extension();
    const uid = ext.metadata.uid;
    recorder.normal(ext, 'Installed', 'Installed bundle x.v1.0.0 (version 1.0.0)');
    await waitFor('the event', async () => (await eventsOf(uid)).length === 1);
    const [first] = await eventsOf(uid);
    await adminKube().must(adminKube().request('DELETE', `/api/v1/namespaces/default/events/${first!.metadata.name}`));
    recorder.normal(ext, 'Installed', 'Installed bundle x.v1.0.0 (version 1.0.0)'); // the fold fails: 404
    await waitFor('the failed fold handled', async () => log.lines.some((l) => l.level === 'warn' && l.msg === 'could not record event'), { timeoutMs: 30_000, intervalMs: 20 });
    recorder.normal(ext, 'Installed', 'Installed bundle x.v1.0.0 (version 1.0.0)');
    await waitFor('a new event', async () => (await eventsOf(uid)).length === 1);
    const [second] = await eventsOf(uid);
    expect(second!.metadata.name).not.toBe(first!.metadata.name);
    expect(second!.count).toBe(1);
  });
});
