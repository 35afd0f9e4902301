// Crash safety: an install and an upgrade are interrupted before each of their writes in turn (as
// a killed process would be), as is the deletion of an old revision; then a fresh applier (a restarted process) runs them again. Every
// run must end exactly where an uninterrupted run ends — same objects, same revision records,
// nothing orphaned — and uninstall must then leave nothing behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { ClusterExtension } from '../../../api/v1/index.ts';
import type { RevisionApplier, RevisionApplierOptions } from '../../../internal/operator-controller/applier/index.ts';
import type { BundleRef } from '../../../internal/operator-controller/controller/index.ts';
import type { KubeClient } from '../../../internal/shared/kube/index.ts';
import {
  adminClient,
  bundleObjects,
  bundleRef,
  createNamespace,
  expectedObjects,
  extension,
  waitForRollout,
  newApplier,
  ownedObjects,
  RecordingClient,
  revisionSecrets,
  suffix,
  uninstallFully,
  type Write,
} from './harness.ts';

const never = new AbortController().signal;
// Small chunks, so that every record spans several Secrets and chunk writes get interrupted too.
const CHUNK_BYTES = 256;
let admin: KubeClient;
let system: string;

beforeAll(async () => {
  admin = await adminClient();
  system = await createNamespace(admin, 'olmv1-system');
});
afterAll(async () => {
  await admin?.close();
});

/** What the controller does: apply until installed, the Deployment "controller" catching up in between. */
async function drive(applier: RevisionApplier, ext: ClusterExtension, ns: string, bundle: BundleRef, objects: KubeObject[], signal: AbortSignal): Promise<void> {
  for (let pass = 0; pass < 4; pass++) {
    if ((await applier.apply(ext, bundle, objects, signal)).installed) return;
    await waitForRollout(admin, ns);
  }
  throw new Error('apply did not converge');
}

interface Run {
  readonly ns: string;
  readonly group: string;
  readonly name: string;
  readonly ext: ClusterExtension;
}

function newRun(ns: string): Run {
  const name = `crash-${suffix()}`;
  return { ns, group: `k${suffix()}.applier.test`, name, ext: extension(name, ns) };
}

const normalised = async (r: Run): Promise<string[]> => (await revisionSecrets(admin, system, r.name)).map((s) => s.replaceAll(r.name, 'EXT'));

/**
 * Runs `scenario` uninterrupted once (counting its writes), then once per write with a kill just
 * before it, followed by recovery. Returns the writes and records of the uninterrupted run.
 */
async function everyInterruption(
  prepare: (applier: RevisionApplier, r: Run) => Promise<void>,
  scenario: (applier: RevisionApplier, r: Run, signal: AbortSignal) => Promise<void>,
  expectedVersion: string,
  options: Partial<RevisionApplierOptions> = {},
): Promise<{ readonly writes: readonly Write[]; readonly records: readonly string[] }> {
  const ns = await createNamespace(admin, 'crash');
  const reference = newRun(ns);
  const refClient = RecordingClient.from(admin);
  await prepare(newApplier(admin, system, { chunkBytes: CHUNK_BYTES, ...options }), reference);
  await scenario(newApplier(refClient, system, { chunkBytes: CHUNK_BYTES, ...options }), reference, never);
  const writes = refClient.writes.length;
  const wantRecords = await normalised(reference);
  const opts = (r: Run): Parameters<typeof expectedObjects>[0] => ({ ns: r.ns, group: r.group, version: expectedVersion });
  expect(await ownedObjects(admin, reference.name, reference.group)).toEqual(expectedObjects(opts(reference)));
  await uninstallFully(newApplier(admin, system), reference.ext);
  expect(writes).toBeGreaterThan(10);

  for (let n = 1; n <= writes; n++) {
    const r = newRun(await createNamespace(admin, 'crash'));
    await prepare(newApplier(admin, system, { chunkBytes: CHUNK_BYTES, ...options }), r);
    const killed = RecordingClient.from(admin);
    const controller = new AbortController();
    killed.abortBefore = { n, controller };
    await expect(scenario(newApplier(killed, system, { chunkBytes: CHUNK_BYTES, ...options }), r, controller.signal), `kill before write ${n}`).rejects.toThrow(
      `killed before write ${n}`,
    );
    expect(killed.writes).toHaveLength(n - 1);

    const restarted = newApplier(admin, system, { chunkBytes: CHUNK_BYTES, ...options });
    await scenario(restarted, r, never);
    expect(await ownedObjects(admin, r.name, r.group), `objects after kill before write ${n}`).toEqual(expectedObjects(opts(r)));
    expect(await normalised(r), `records after kill before write ${n}`).toEqual(wantRecords);
    expect((await restarted.installed(r.ext, never))?.version).toBe(expectedVersion);

    await uninstallFully(restarted, r.ext);
    expect(await ownedObjects(admin, r.name, r.group)).toEqual([]);
    expect(await revisionSecrets(admin, system, r.name)).toEqual([]);
  }
  return { writes: refClient.writes, records: wantRecords };
}

describe('crash safety', () => {
  it('an install killed before any one of its writes converges on restart, nothing orphaned', async () => {
    const { writes, records } = await everyInterruption(
      async () => {},
      (applier, r, signal) => drive(applier, r.ext, r.ns, bundleRef('1.0.0'), bundleObjects({ ns: r.ns, group: r.group, version: '1.0.0' }), signal),
      '1.0.0',
    );
    // Chunks, head, 8 objects; 8 objects again and Succeeded once the Deployment is Available.
    const chunks = writes.filter((w) => w.verb === 'create' && /\.\d+$/.test(w.what)).length;
    expect(chunks).toBeGreaterThanOrEqual(2);
    expect(writes.map((w) => w.verb)).toEqual([...Array<string>(chunks + 1).fill('create'), ...Array<string>(16).fill('apply'), 'patch']);
    expect(records).toEqual([`EXT-1 Active Succeeded (${chunks} chunks)`]);
  });

  it('an upgrade killed before any one of its writes converges on restart: new objects applied, old ones pruned, old revision archived', async () => {
    const { writes, records } = await everyInterruption(
      (applier, r) => drive(applier, r.ext, r.ns, bundleRef('1.0.0'), bundleObjects({ ns: r.ns, group: r.group, version: '1.0.0' }), never),
      (applier, r, signal) => drive(applier, r.ext, r.ns, bundleRef('2.0.0'), bundleObjects({ ns: r.ns, group: r.group, version: '2.0.0' }), signal),
      '2.0.0',
    );
    // ... then the 4 objects 2.0.0 no longer has are pruned and revision 1 is archived.
    const chunks = writes.filter((w) => w.verb === 'create' && /\.\d+$/.test(w.what)).length;
    expect(chunks).toBeGreaterThanOrEqual(2);
    expect(writes.map((w) => w.verb)).toEqual([
      ...Array<string>(chunks + 1).fill('create'),
      ...Array<string>(16).fill('apply'),
      'patch',
      ...Array<string>(4).fill('delete'),
      'patch',
    ]);
    expect(records).toEqual([expect.stringMatching(/^EXT-1 Archived Succeeded \(\d+ chunks\)$/), `EXT-2 Active Succeeded (${chunks} chunks)`]);
  });

  it('dropping the oldest archived revision killed before any one of its writes (head, then chunks) leaves no chunk behind', async () => {
    const install = (v: string) => (applier: RevisionApplier, r: Run, signal: AbortSignal) =>
      drive(applier, r.ext, r.ns, bundleRef(v), bundleObjects({ ns: r.ns, group: r.group, version: v }), signal);
    const { writes, records } = await everyInterruption(
      async (applier, r) => {
        await install('1.0.0')(applier, r, never);
        await install('2.0.0')(applier, r, never);
      },
      install('3.0.0'),
      '3.0.0',
      { retainArchived: 1 },
    );
    // Revision 3 rolled out, revision 2 archived; revision 1 goes: its head, then each chunk.
    const deletes = writes.filter((w) => w.verb === 'delete' && w.what.startsWith('Secret/'));
    expect(deletes.length).toBeGreaterThanOrEqual(3);
    expect(records).toEqual([expect.stringMatching(/^EXT-2 Archived Succeeded \(\d+ chunks\)$/), expect.stringMatching(/^EXT-3 Active Succeeded \(\d+ chunks\)$/)]);
  });
});
