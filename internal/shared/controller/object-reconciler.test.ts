import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { ApiError, type KubeClient } from '../kube/index.ts';
import { createLogger, noopLogger } from '../observability/index.ts';
import { TerminalError, routine, routineOf } from './errors.ts';
import { ObjectReconciler, type ObjectReconcilerOptions, type Pass } from './object-reconciler.ts';
import type { Step } from './steps.ts';

interface Thing extends KubeObject {
  spec?: { size?: number };
  status?: { phase?: string; note?: string };
}

const conflict = (): ApiError => new ApiError(409, { kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409, message: 'conflict' }, { method: 'PUT', path: '/' });
const notFound = (): ApiError => new ApiError(404, { kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404, message: 'gone' }, { method: 'PUT', path: '/' });

/** An API server holding one object: every write bumps its resourceVersion; a write with a stale one gets 409. */
function server(initial: Thing) {
  let obj = structuredClone(initial);
  const writes: string[] = [];
  const bump = (): string => String(Number(obj.metadata.resourceVersion) + 1);
  const client = {
    get: async () => structuredClone(obj),
    updateStatus: async (o: Thing) => {
      writes.push('status');
      if (o.metadata.resourceVersion !== obj.metadata.resourceVersion) throw conflict();
      obj = { ...obj, status: structuredClone(o.status ?? {}), metadata: { ...obj.metadata, resourceVersion: bump() } };
      return structuredClone(obj);
    },
    patch: async (_ref: unknown, _type: string, p: { metadata: { finalizers: string[]; resourceVersion: string } }) => {
      writes.push('finalizers');
      if (p.metadata.resourceVersion !== obj.metadata.resourceVersion) throw conflict();
      obj = { ...obj, metadata: { ...obj.metadata, finalizers: p.metadata.finalizers, resourceVersion: bump() } };
      return structuredClone(obj);
    },
  } as unknown as KubeClient;
  return {
    client,
    writes,
    stored: () => obj,
    /** Someone else writes the object. */
    touch: (status?: Thing['status']) => void (obj = { ...obj, ...(status && { status }), metadata: { ...obj.metadata, resourceVersion: bump() } }),
  };
}

const thing = (): Thing => ({ apiVersion: 'example.io/v1', kind: 'Thing', metadata: { name: 'a', resourceVersion: '1', generation: 1 }, spec: { size: 1 }, status: { phase: 'Old' } });
const step = (name: string, run: (s: Pass<Thing>) => unknown): Step<Pass<Thing>> => ({
  name,
  run: async (s) => (await run(s)) as undefined,
});
const signal = new AbortController().signal;

type Options = Partial<ObjectReconcilerOptions<Thing, Pass<Thing>>>;
function reconciler(api: ReturnType<typeof server>, steps: Step<Pass<Thing>>[], extra: { cached?: () => Thing | undefined; forgotten?: string[]; options?: Options } = {}) {
  return new ObjectReconciler<Thing, Pass<Thing>>({
    kind: 'Thing',
    client: api.client,
    get: extra.cached ?? (() => api.stored()),
    steps,
    state: (pass) => pass,
    logger: noopLogger,
    onThrow: (t, err) => void ((t.status ??= {}).note = `threw: ${(err as Error).message}`),
    onError: (t, err) => void ((t.status ??= {}).phase = `Failed: ${(err as Error).message}`),
    done: { requeueAfterMs: 600_000 },
    forget: (key) => void extra.forgotten?.push(key),
    ...extra.options,
  });
}

describe('ObjectReconciler', () => {
  it('with logPasses, logs reconcile starting and ending around each pass, naming the object, as upstream does', async () => {
    const lines: string[] = [];
    const logger = createLogger({ write: (l) => void lines.push(l), now: () => new Date(0), env: {} });
    const api = server(thing());
    const r = reconciler(api, [step('fails', () => Promise.reject(new Error('boom')))], { options: { logger, logPasses: true } });
    await expect(r.reconcile('a', signal)).rejects.toThrow('boom');
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>).map(({ msg, thing: t, level }) => ({ msg, thing: t, level }))).toEqual([
      { msg: 'reconcile starting', thing: 'a', level: 'info' },
      { msg: 'reconcile ending', thing: 'a', level: 'info' },
    ]);
  });

  it('runs the steps over a copy and writes the changed status once, at the end', async () => {
    const api = server(thing());
    const cached = api.stored();
    const r = reconciler(api, [step('a', (s) => void (s.obj.status = { phase: 'New' })), step('b', (s) => void ((s.obj.status ??= {}).note = 'b'))]);
    expect(await r.reconcile('a', signal)).toEqual({ requeueAfterMs: 600_000 });
    expect(api.writes).toEqual(['status']);
    expect(api.stored().status).toEqual({ phase: 'New', note: 'b' });
    expect(cached.status).toEqual({ phase: 'Old' });
    expect(r.ownWrite('a', '2')).toBe(true);
    expect(r.ownWrite('a', '1')).toBe(false);
  });

  it('writes nothing when the status is semantically the same', async () => {
    const api = server(thing());
    const r = reconciler(api, [step('same', (s) => void (s.obj.status = { note: undefined, phase: 'Old' }))]);
    await r.reconcile('a', signal);
    expect(api.writes).toEqual([]);
  });

  it('on a conflict overwrites nothing and asks to run again from fresh state', async () => {
    const api = server(thing());
    const stale = api.stored();
    api.touch({ phase: 'Newer' });
    const r = reconciler(api, [step('a', (s) => void (s.obj.status = { phase: 'FromOld' }))], { cached: () => stale });
    expect(await r.reconcile('a', signal)).toEqual({ requeue: true });
    expect(api.stored().status).toEqual({ phase: 'Newer' });
    expect(r.ownWrite('a', '2')).toBe(false);
    // The next pass reads the fresh object and decides from it.
    const fresh = reconciler(api, [step('a', (s) => void (s.obj.status = { phase: `${s.obj.status?.phase}+1` }))]);
    await fresh.reconcile('a', signal);
    expect(api.stored().status).toEqual({ phase: 'Newer+1' });
  });

  it('a step that returns a conflict re-runs the pass quietly, with nothing written', async () => {
    const api = server(thing());
    const r = reconciler(api, [step('a', (s) => ((s.obj.status = { phase: 'X' }), { err: conflict() }))]);
    expect(await r.reconcile('a', signal)).toEqual({ requeue: true });
    expect(api.writes).toEqual([]);
  });

  it('records a returned error on status, writes it, then fails the pass; a thrown one is recorded by onThrow too', async () => {
    const api = server(thing());
    const r = reconciler(api, [step('a', () => ({ err: new TerminalError('Blocked', 'bad spec') }))]);
    await expect(r.reconcile('a', signal)).rejects.toThrow('bad spec');
    expect(api.stored().status).toEqual({ phase: 'Failed: bad spec' });

    const api2 = server(thing());
    const r2 = reconciler(api2, [
      step('boom', () => {
        throw new Error('boom');
      }),
    ]);
    await expect(r2.reconcile('a', signal)).rejects.toThrow('boom');
    expect(api2.stored().status).toEqual({ phase: 'Failed: boom', note: 'threw: boom' });
  });

  it('a final outcome ends the pass without the epilogue', async () => {
    const api = server(thing());
    const r = reconciler(api, [step('a', (s) => ((s.obj.status = { phase: 'Unwritten' }), { final: true, result: { requeueAfterMs: 5 } })), step('never', () => ({ err: new Error('ran') }))]);
    expect(await r.reconcile('a', signal)).toEqual({ requeueAfterMs: 5 });
    expect(api.writes).toEqual([]);
  });

  it('a step may write status itself; the epilogue then writes only what changed after', async () => {
    const api = server(thing());
    const r = reconciler(api, [
      step('early', async (s) => {
        s.obj.status = { phase: 'Early' };
        await s.writeStatus(signal);
      }),
    ]);
    await r.reconcile('a', signal);
    expect(api.writes).toEqual(['status']);
    expect(api.stored().status).toEqual({ phase: 'Early' });
  });

  it('fails the pass, writing nothing, when a step changed spec or metadata', async () => {
    for (const change of [(t: Thing) => void (t.spec = { size: 2 }), (t: Thing) => void (t.metadata.labels = { x: 'y' })]) {
      const api = server(thing());
      const r = reconciler(api, [step('bad', (s) => ((s.obj.status = { phase: 'X' }), change(s.obj)))]);
      await expect(r.reconcile('a', signal)).rejects.toThrow('Thing a: a reconcile step changed spec or metadata');
      expect(api.writes).toEqual([]);
    }
  });

  it('changes finalizers at once; the copy follows, and later writes carry the new resourceVersion', async () => {
    const api = server(thing());
    const r = reconciler(api, [
      step('add', (s) => s.addFinalizer('example.io/cleanup', signal)),
      step('status', (s) => void (s.obj.status = { phase: 'After' })),
    ]);
    await r.reconcile('a', signal);
    expect(api.writes).toEqual(['finalizers', 'status']);
    expect(api.stored().metadata.finalizers).toEqual(['example.io/cleanup']);
    expect(api.stored().status).toEqual({ phase: 'After' });
    expect([r.ownWrite('a', '2'), r.ownWrite('a', '3')]).toEqual([true, true]);

    const remove = reconciler(api, [step('remove', (s) => s.removeFinalizer('example.io/cleanup', signal)), step('again', (s) => s.removeFinalizer('example.io/cleanup', signal))]);
    await remove.reconcile('a', signal);
    expect(api.stored().metadata.finalizers).toEqual([]);
    expect(api.writes).toEqual(['finalizers', 'status', 'finalizers']);
  });

  it('an object gone from the cache ends the pass and is forgotten; one gone from the server is no error', async () => {
    const forgotten: string[] = [];
    const api = server(thing());
    expect(await reconciler(api, [], { cached: () => undefined, forgotten }).reconcile('a', signal)).toBeUndefined();
    expect(forgotten).toEqual(['a']);

    const gone = server(thing());
    (gone.client as unknown as { updateStatus: () => Promise<never> }).updateStatus = async () => {
      throw notFound();
    };
    expect(await reconciler(gone, [step('a', (s) => void (s.obj.status = { phase: 'X' }))]).reconcile('a', signal)).toEqual({ requeueAfterMs: 600_000 });
  });
  it('a failed status write is named, and joined to the pass\'s own error as errors.Join (terminal when that was)', async () => {
    const failing = (): ReturnType<typeof server> => {
      const api = server(thing());
      (api.client as unknown as { updateStatus: () => Promise<never> }).updateStatus = async () => {
        throw new Error('etcdserver: request timed out');
      };
      return api;
    };
    const alone = reconciler(failing(), [step('a', (s) => void (s.obj.status = { phase: 'X' }))]);
    await expect(alone.reconcile('a', signal)).rejects.toThrow(/^error updating status: etcdserver: request timed out$/);
    const both = reconciler(failing(), [step('a', () => ({ err: new TerminalError('Blocked', 'bad spec') }))]);
    const err = await both.reconcile('a', signal).catch((e: unknown) => e);
    expect((err as Error).message).toBe('bad spec\nerror updating status: etcdserver: request timed out');
    expect(err).toBeInstanceOf(TerminalError);
  });

  it('statusChanged decides what is written; afterWrite follows the write (errors joined, routine when all are); done reads the state', async () => {
    const api = server(thing());
    const seen: string[] = [];
    const options: Options = {
      statusChanged: (stored, out) => stored?.phase !== out?.phase,
      afterWrite: async (s, wrote) => void seen.push(`${s.cached.status?.phase}→${s.obj.status?.phase} wrote=${wrote}`),
      done: (s) => ({ requeueAfterMs: s.obj.status?.note === 'soon' ? 1 : 2 }),
    };
    const run = (steps: Step<Pass<Thing>>[], o = options, cached?: () => Thing): Promise<unknown> =>
      reconciler(api, steps, { options: o, ...(cached && { cached }) }).reconcile('a', signal).catch((e: unknown) => e);
    expect(await run([step('note', (s) => void ((s.obj.status ??= {}).note = 'soon'))])).toEqual({ requeueAfterMs: 1 });
    expect(await run([step('phase', (s) => void (s.obj.status = { phase: 'New' }))])).toEqual({ requeueAfterMs: 2 });
    expect([api.writes, seen]).toEqual([['status'], ['Old→Old wrote=false', 'Old→New wrote=true']]);
    // Not after a final outcome nor a conflict.
    const stale = api.stored();
    api.touch();
    await run([step('final', () => ({ final: true }))]);
    expect(await run([step('a', (s) => void (s.obj.status = { phase: 'X' }))], options, () => stale)).toEqual({ requeue: true });
    expect(seen).toHaveLength(2);
    Object.assign(api.client, { updateStatus: async () => Promise.reject(new Error('timeout')) });
    const waiting = (): Error => routine(new Error('waiting'), 'Waiting');
    const failing = { ...options, afterWrite: async (): Promise<never> => Promise.reject(waiting()) };
    const err = await run([step('a', () => ({ err: waiting() }))], failing);
    expect([(err as Error).message, routineOf(err)]).toEqual(['waiting\nerror updating status: timeout\nwaiting', undefined]);
    const quiet = await run([step('a', () => ({ err: waiting() }))], { ...failing, statusChanged: () => false });
    expect([(quiet as Error).message, routineOf(quiet)?.reason]).toEqual(['waiting\nwaiting', 'Waiting']);
  });

  it('an object that its own finalizer removal let go gets no status write', async () => {
    const api = server({ ...thing(), metadata: { ...thing().metadata, finalizers: ['example.io/cleanup'] } });
    (api.client as unknown as { patch: () => Promise<never> }).patch = async () => {
      throw notFound();
    };
    const r = reconciler(api, [step('remove', (s) => s.removeFinalizer('example.io/cleanup', signal)), step('status', (s) => void (s.obj.status = { phase: 'Gone' }))]);
    await r.reconcile('a', signal);
    expect(api.writes).toEqual([]);
  });
});
