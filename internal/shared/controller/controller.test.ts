import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LogFields, Logger } from '../observability/index.ts';
import { createLogger, createMetrics } from '../observability/index.ts';
import { Controller, type EventSource, type EventType, type Reconciler, type Result, objectKey, splitKey } from './controller.ts';
import { ApiError } from '../kube/index.ts';
import { TerminalError, routine } from './errors.ts';

type Outcome = Result | void | Error;

interface Call {
  readonly key: string;
  readonly at: number;
  readonly signal: AbortSignal;
}

// A reconciler that plays a script per key (then succeeds), recording every call.
function scripted(script: Record<string, Outcome[]> = {}) {
  const calls: Call[] = [];
  const reconciler: Reconciler = {
    reconcile(key, signal) {
      calls.push({ key, at: performance.now(), signal });
      const next = script[key]?.shift();
      if (next instanceof Error) return Promise.reject(next);
      return Promise.resolve(next);
    },
  };
  return { reconciler, calls };
}

interface Line {
  readonly level: string;
  readonly msg: string;
  readonly fields: LogFields;
}
function capturingLogger(lines: Line[] = [], base: LogFields = {}): Logger {
  const at = (level: string) => (msg: string, fields?: LogFields) => void lines.push({ level, msg, fields: { ...base, ...fields } });
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), child: (f) => capturingLogger(lines, { ...base, ...f }) };
}

class FakeSource<T> implements EventSource<T> {
  readonly subscribers = new Set<(type: EventType, obj: T, old?: T) => void>();
  onEvent(cb: (type: EventType, obj: T, old?: T) => void): () => void {
    this.subscribers.add(cb);
    return () => this.subscribers.delete(cb);
  }
  emit(type: EventType, obj: T, old?: T): void {
    for (const cb of this.subscribers) cb(type, obj, old);
  }
}

async function counter(metrics: ReturnType<typeof createMetrics>, name: string, labels: Record<string, string>): Promise<number> {
  const metric = metrics.registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  const values = (await metric.get()).values;
  const match = values.find((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want));
  return match?.value ?? 0;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function run(controller: Controller) {
  const ac = new AbortController();
  const done = controller.start(ac.signal);
  return {
    async stop() {
      ac.abort();
      await vi.runOnlyPendingTimersAsync();
      await done;
    },
    done,
  };
}

describe('Controller: outcomes', () => {
  it.each([
    { name: 'success → forget, no requeue', outcome: undefined as Outcome, result: 'success', calls: [0], errors: 0, terminal: 0 },
    { name: 'empty result is success', outcome: {} as Outcome, result: 'success', calls: [0], errors: 0, terminal: 0 },
    { name: 'requeueAfterMs → again after exactly that', outcome: { requeueAfterMs: 1500 }, result: 'requeue_after', calls: [0, 1500], errors: 0, terminal: 0 },
    { name: 'requeue → again after the rate-limited backoff', outcome: { requeue: true }, result: 'requeue', calls: [0, 5], errors: 0, terminal: 0 },
    { name: 'error → retried with backoff', outcome: new Error('boom'), result: 'error', calls: [0, 5], errors: 1, terminal: 0 },
    { name: 'terminal error → not retried', outcome: new TerminalError('Blocked', 'no'), result: 'error', calls: [0], errors: 1, terminal: 1 },
    { name: 'routine error → retried with backoff, counted as an error', outcome: routine(new Error('waiting'), 'Waiting'), result: 'error', calls: [0, 5], errors: 1, terminal: 0 },
    { name: 'routine terminal error → not retried, counted', outcome: routine(new TerminalError('Blocked', 'no'), 'Blocked', 'info'), result: 'error', calls: [0], errors: 1, terminal: 1 },
  ])('$name', async ({ outcome, result, calls, errors, terminal }) => {
    const metrics = createMetrics({ defaultMetrics: false });
    const { reconciler, calls: got } = scripted({ k: [outcome] });
    const c = new Controller({ name: 'test', reconciler, metrics });
    c.enqueue('k');
    const r = run(c);
    await vi.advanceTimersByTimeAsync(5000);
    expect(got.map((call) => call.at)).toEqual(calls);

    const label = (res: string) => counter(metrics, 'controller_runtime_reconcile_total', { controller: 'test', result: res });
    expect(await label(result)).toBe(1);
    expect(await label('success')).toBe(result === 'success' ? 1 : calls.length - 1);
    expect(await counter(metrics, 'controller_runtime_reconcile_errors_total', { controller: 'test' })).toBe(errors);
    expect(await counter(metrics, 'controller_runtime_terminal_reconcile_errors_total', { controller: 'test' })).toBe(terminal);
    expect(c.queue.numRequeues('k')).toBe(0); // the final success (or terminal error) forgets
    await r.stop();
  });

  it('backs off exponentially on repeated errors and forgets on success', async () => {
    const { reconciler, calls } = scripted({ k: [new Error('1'), new Error('2'), new Error('3'), undefined] });
    const c = new Controller({ name: 'test', reconciler });
    c.enqueue('k');
    const r = run(c);
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls.map((call) => call.at)).toEqual([0, 5, 15, 35]); // +5, +10, +20
    expect(c.queue.numRequeues('k')).toBe(0);
    await r.stop();
  });

  it('a thrown non-Error is an error too', async () => {
    const reconciler: Reconciler = {
      reconcile: () => {
        throw 'not an error';
      },
    };
    const metrics = createMetrics({ defaultMetrics: false });
    const c = new Controller({ name: 'test', reconciler, metrics });
    c.enqueue('k');
    const r = run(c);
    await vi.advanceTimersByTimeAsync(0);
    expect(await counter(metrics, 'controller_runtime_reconcile_errors_total', { controller: 'test' })).toBe(1);
    await r.stop();
  });

  it('logs errors with key, reason and error; terminal ones say they are not retried', async () => {
    const lines: Line[] = [];
    const terminal = new TerminalError('InvalidConfiguration', 'bad');
    const plain = new Error('flaky');
    const { reconciler } = scripted({ a: [terminal], b: [plain] });
    const c = new Controller({ name: 'ce', reconciler, logger: capturingLogger(lines) });
    c.enqueue('a');
    c.enqueue('b');
    const r = run(c);
    await vi.advanceTimersByTimeAsync(0);
    const errors = lines.filter((l) => l.level === 'error');
    expect(errors).toEqual([
      { level: 'error', msg: 'Reconciler error (terminal, not retried)', fields: { controller: 'ce', key: 'a', reason: 'InvalidConfiguration', err: terminal } },
      { level: 'error', msg: 'Reconciler error', fields: { controller: 'ce', key: 'b', requeues: 1, err: plain } },
    ]);
    await r.stop();
  });

  it('keyField names the key\'s log field: a namespace-keyed controller logs `namespace: <ns>`, not `key`', async () => {
    const lines: Line[] = [];
    const plain = new Error('flaky');
    const gone = new TerminalError('Invalid', 'bad');
    const waiting = routine(new Error('not yet'), 'NotYet', 'info');
    const { reconciler } = scripted({ 'ns-a': [plain], 'ns-b': [gone], 'ns-c': [waiting] });
    const c = new Controller({ name: 'subscription', reconciler, logger: capturingLogger(lines), keyField: 'namespace' });
    for (const k of ['ns-a', 'ns-b', 'ns-c']) c.enqueue(k);
    const r = run(c);
    await vi.advanceTimersByTimeAsync(0);
    const about = lines.filter((l) => l.msg.startsWith('Reconcile'));
    expect(about.map((l) => [l.msg, l.fields['namespace']])).toEqual([
      ['Reconciler error', 'ns-a'],
      ['Reconciler error (terminal, not retried)', 'ns-b'],
      ['Reconcile not done yet; retrying', 'ns-c'],
    ]);
    for (const l of about) expect(l.fields).not.toHaveProperty('key');
    await r.stop();
  });

  it('a conflict (itself or as a cause) is routine: retried from fresh state, logged at debug, not at error', async () => {
    const lines: Line[] = [];
    const conflict = new ApiError(409, { kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409, message: 'the object has been modified' }, { method: 'PUT', path: '/' });
    const wrapped = new Error(`error updating status: ${conflict.message}`, { cause: conflict });
    const { reconciler, calls } = scripted({ a: [conflict, undefined], b: [wrapped, undefined] });
    const c = new Controller({ name: 'ce', reconciler, logger: capturingLogger(lines) });
    c.enqueue('a');
    c.enqueue('b');
    const r = run(c);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls.filter((c) => c.key === 'a')).toHaveLength(2);
    expect(calls.filter((c) => c.key === 'b')).toHaveLength(2);
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    expect(lines.filter((l) => l.level === 'debug').map((l) => [l.msg, l.fields['key']])).toEqual([
      ['Reconcile conflict; reconciling again from fresh state', 'a'],
      ['Reconcile conflict; reconciling again from fresh state', 'b'],
    ]);
    await r.stop();
  });
});

describe('Controller: routine errors (expected on the way) are logged below error with their reason', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('routine (itself or as a cause) at its level, AlreadyExists at debug; both retried as any error; a plain error stays an error', async () => {
    const lines: Line[] = [];
    const waiting = routine(new Error('waiting for ClusterRoles to delete'), 'WaitingForDependents');
    const refused = new Error('wrapped: no bundles found', { cause: routine(new Error('no bundles found'), 'NoMatchingBundle', 'info') });
    const exists = new ApiError(409, { kind: 'Status', status: 'Failure', reason: 'AlreadyExists', code: 409, message: 'already exists' }, { method: 'POST', path: '/' });
    const terminating = new ApiError(
      403,
      { kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403, message: 'unable to create new content in namespace ns because it is being terminated', details: { causes: [{ reason: 'NamespaceTerminating' }] } },
      { method: 'POST', path: '/' },
    );
    const plain = new Error('boom');
    const { reconciler, calls } = scripted({ a: [waiting, undefined], b: [refused, undefined], c: [exists, undefined], d: [plain, undefined], e: [terminating, undefined] });
    const c = new Controller({ name: 'ce', reconciler, logger: capturingLogger(lines) });
    for (const k of ['a', 'b', 'c', 'd', 'e']) c.enqueue(k);
    const r = run(c);
    await vi.advanceTimersByTimeAsync(1_000);
    for (const k of ['a', 'b', 'c', 'd', 'e']) expect(calls.filter((x) => x.key === k)).toHaveLength(2);
    const about = lines.filter((l) => l.fields['key'] !== undefined).map((l) => [l.level, l.msg, l.fields['key'], l.fields['reason']]);
    expect(about).toEqual([
      ['debug', 'Reconcile not done yet; retrying', 'a', 'WaitingForDependents'],
      ['info', 'Reconcile not done yet; retrying', 'b', 'NoMatchingBundle'],
      ['debug', 'Reconcile found an object already created; reconciling again', 'c', 'AlreadyExists'],
      ['error', 'Reconciler error', 'd', undefined],
      ['debug', 'Reconcile met a namespace being deleted; retrying', 'e', 'NamespaceTerminating'],
    ]);
    await r.stop();
  });

  it('a transient API error (throttling, 5xx, a dropped connection) is info for the first 5 tries in a row, then an error', async () => {
    const lines: Line[] = [];
    const throttled = new ApiError(429, { kind: 'Status', status: 'Failure', reason: 'TooManyRequests', code: 429, message: 'storage is (re)initializing' }, { method: 'GET', path: '/' });
    const { reconciler, calls } = scripted({ t: [throttled, throttled, throttled, throttled, throttled, throttled, undefined] });
    const c = new Controller({ name: 'ce', reconciler, logger: capturingLogger(lines) });
    c.enqueue('t');
    const r = run(c);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toHaveLength(7);
    expect(lines.filter((l) => l.fields['key'] === 't').map((l) => [l.level, l.msg, l.fields['requeues']])).toEqual([
      ['info', 'Reconcile met a transient API error; retrying', 1],
      ['info', 'Reconcile met a transient API error; retrying', 2],
      ['info', 'Reconcile met a transient API error; retrying', 3],
      ['info', 'Reconcile met a transient API error; retrying', 4],
      ['info', 'Reconcile met a transient API error; retrying', 5],
      ['error', 'Reconciler error', 6],
    ]);
    await r.stop();
  });
});

describe('Controller: a retryable reconcile error in the process log (what `make run` shows)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('is one line at error level with the object and the message — no stack, even for a multi-line message with a cause', async () => {
    const written: string[] = [];
    const logger = createLogger({ level: 'info', env: {}, write: (line) => void written.push(line), now: () => new Date(0) });
    // As the pipeline throws a permission refusal: a wrapped, multi-line message with a cause that has a stack.
    const cause = new Error('pre-authorization failed: service account requires the following permissions to manage cluster extension:\n  Namespace:"" APIGroups:[] Resources:[services] Verbs:[list,watch]');
    const err = new Error(`error for resolved bundle "demo.v1" with version "1": ${cause.message}`, { cause });
    const { reconciler } = scripted({ demo: [err] });
    const c = new Controller({ name: 'clusterextension', reconciler, logger });
    c.enqueue('demo');
    const r = run(c);
    await vi.advanceTimersByTimeAsync(0);
    await r.stop();
    const errors = written.filter((l) => l.includes('"level":"error"'));
    expect(errors).toHaveLength(1);
    const [line] = errors as [string];
    expect(line).not.toContain('\n'); // one physical line: the message's newlines are escaped
    expect(line).not.toMatch(/stack|\s+at /);
    expect(JSON.parse(line)).toEqual({
      ts: '1970-01-01T00:00:00.000Z',
      level: 'error',
      msg: 'Reconciler error',
      controller: 'clusterextension',
      key: 'demo',
      requeues: 1,
      err: { message: err.message, cause: { message: cause.message } },
    });
  });
});

describe('Controller: concurrency', () => {
  it('runs at most `concurrency` reconciles at once and reports worker gauges', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    let inFlight = 0;
    let maxInFlight = 0;
    const release: (() => void)[] = [];
    const reconciler: Reconciler = {
      async reconcile() {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise<void>((resolve) => release.push(resolve));
        inFlight--;
      },
    };
    const c = new Controller({ name: 'test', reconciler, concurrency: 3, metrics });
    for (let i = 0; i < 10; i++) c.enqueue(`k${i}`);
    const r = run(c);
    await vi.advanceTimersByTimeAsync(0);
    expect(inFlight).toBe(3);
    expect(await counter(metrics, 'controller_runtime_active_workers', { controller: 'test' })).toBe(3);
    expect(await counter(metrics, 'controller_runtime_max_concurrent_reconciles', { controller: 'test' })).toBe(3);
    while (release.length > 0) {
      release.shift()!();
      await vi.advanceTimersByTimeAsync(0);
    }
    expect(maxInFlight).toBe(3);
    expect(await counter(metrics, 'controller_runtime_reconcile_total', { controller: 'test', result: 'success' })).toBe(10);
    expect(await counter(metrics, 'controller_runtime_active_workers', { controller: 'test' })).toBe(0);
    await r.stop();
  });

  it('never reconciles one key twice at once; a change during a reconcile is reconciled after it', async () => {
    let running = 0;
    let overlapped = false;
    let calls = 0;
    let release: (() => void) | undefined;
    const reconciler: Reconciler = {
      async reconcile() {
        calls++;
        running++;
        if (running > 1) overlapped = true;
        await new Promise<void>((resolve) => (release = resolve));
        running--;
      },
    };
    const c = new Controller({ name: 'test', reconciler, concurrency: 4 });
    c.enqueue('k');
    const r = run(c);
    await vi.advanceTimersByTimeAsync(0);
    c.enqueue('k');
    c.enqueue('k');
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toBe(1);
    release!();
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toBe(2); // once more, for both changes
    release!();
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toBe(2);
    expect(overlapped).toBe(false);
    await r.stop();
  });

  it('rejects a concurrency below 1', () => {
    expect(() => new Controller({ name: 'x', reconciler: scripted().reconciler, concurrency: 0 })).toThrow(RangeError);
  });
});

describe('Controller: watches and resync', () => {
  interface Obj {
    metadata: { name?: string; namespace?: string };
    owner?: string;
  }
  const obj = (name: string, namespace?: string, owner?: string): Obj => ({
    metadata: namespace === undefined ? { name } : { name, namespace },
    ...(owner !== undefined && { owner }),
  });

  it('default mapping enqueues namespace/name or name', async () => {
    const { reconciler, calls } = scripted();
    const c = new Controller({ name: 'test', reconciler });
    const source = new FakeSource<Obj>();
    c.watch(source);
    source.emit('add', obj('a', 'ns'));
    source.emit('update', obj('b'), obj('b'));
    source.emit('delete', obj('c'));
    source.emit('add', { metadata: {} }); // nameless: ignored
    const r = run(c);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.map((call) => call.key)).toEqual(['ns/a', 'b', 'c']);
    await r.stop();
  });

  it('mapFn chooses keys; updates map the old object too; throwing mapFns are logged', async () => {
    const lines: Line[] = [];
    const { reconciler, calls } = scripted();
    const c = new Controller({ name: 'test', reconciler, logger: capturingLogger(lines) });
    const source = new FakeSource<Obj>();
    c.watch(source, (o) => {
      if (o.metadata.name === 'bad') throw new Error('mapper bug');
      return o.owner === undefined ? [] : [`owner-${o.owner}`];
    });
    source.emit('update', obj('x', undefined, 'new'), obj('x', undefined, 'old'));
    source.emit('add', obj('y')); // no owner: filtered out
    source.emit('add', obj('bad'));
    const r = run(c);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.map((call) => call.key).sort()).toEqual(['owner-new', 'owner-old']);
    expect(lines.filter((l) => l.level === 'error').map((l) => l.msg)).toEqual(['Mapping an event to keys failed; event dropped']);
    await r.stop();
  });

  it('delayMs enqueues after the delay; a burst of events costs one reconcile per key', async () => {
    const { reconciler, calls } = scripted();
    const c = new Controller({ name: 'test', reconciler });
    const now = new FakeSource<Obj>();
    const later = new FakeSource<Obj>();
    c.watch(now, (o) => o.owner);
    c.watch(later, () => ['w1', 'w2'], { delayMs: 1000 });
    const r = run(c);
    for (let i = 0; i < 20; i++) later.emit('update', obj(`rb${i}`), obj(`rb${i}`));
    now.emit('add', obj('role', 'ns', 'mine'));
    await vi.advanceTimersByTimeAsync(999);
    expect(calls.map((call) => call.key)).toEqual(['mine']);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.map((call) => call.key)).toEqual(['mine', 'w1', 'w2']);
    later.emit('add', obj('again'));
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls.map((call) => call.key)).toEqual(['mine', 'w1', 'w2', 'w1', 'w2']);
    await r.stop();
  });

  it('unsubscribes its sources when stopped', async () => {
    const c = new Controller({ name: 'test', reconciler: scripted().reconciler });
    const source = new FakeSource<Obj>();
    c.watch(source);
    expect(source.subscribers.size).toBe(1);
    const r = run(c);
    await r.stop();
    expect(source.subscribers.size).toBe(0);
  });

  it('resync enqueues every listed key each period', async () => {
    const { reconciler, calls } = scripted();
    const c = new Controller({ name: 'test', reconciler, resync: { periodMs: 1000, keys: () => ['a', 'b'] } });
    const r = run(c);
    await vi.advanceTimersByTimeAsync(2500);
    expect(calls.map((call) => `${call.key}@${call.at}`)).toEqual(['a@1000', 'b@1000', 'a@2000', 'b@2000']);
    await r.stop();
  });
});

describe('Controller: stopping', () => {
  it('aborts the signal, waits for in-flight reconciles, starts nothing new', async () => {
    let release: (() => void) | undefined;
    const seen: string[] = [];
    let signal: AbortSignal | undefined;
    const reconciler: Reconciler = {
      async reconcile(key, s) {
        seen.push(key);
        signal = s;
        await new Promise<void>((resolve) => (release = resolve));
      },
    };
    const c = new Controller({ name: 'test', reconciler });
    c.enqueue('first');
    c.enqueue('second');
    const ac = new AbortController();
    let finished = false;
    const done = c.start(ac.signal).then(() => (finished = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(seen).toEqual(['first']);

    ac.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(signal?.aborted).toBe(true);
    expect(finished).toBe(false); // still waiting for 'first'
    release!();
    await done;
    expect(seen).toEqual(['first']); // 'second' was dropped
    expect(c.queue.shuttingDown()).toBe(true);
  });

  it('gives each reconcile a signal of its own: many requests in flight on it, none left on the process-wide one', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.name);
    process.on('warning', onWarning);
    const signals: AbortSignal[] = [];
    const reconciler: Reconciler = {
      async reconcile(_key, s) {
        signals.push(s);
        // Twenty requests in flight at once, each listening for the abort, as a phase of applies does.
        const listeners = Array.from({ length: 20 }, () => () => undefined);
        for (const l of listeners) s.addEventListener('abort', l);
        await Promise.resolve();
        for (const l of listeners) s.removeEventListener('abort', l);
      },
    };
    const c = new Controller({ name: 'test', reconciler });
    const ac = new AbortController();
    const done = c.start(ac.signal);
    for (let i = 0; i < 5; i++) c.enqueue(`k${i}`);
    await vi.advanceTimersByTimeAsync(0);
    await new Promise((r) => process.nextTick(r)); // warnings are emitted on the next tick
    process.off('warning', onWarning);
    expect(signals).toHaveLength(5);
    expect(new Set(signals).size).toBe(5);
    expect(signals.includes(ac.signal)).toBe(false);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    ac.abort();
    await done;
  });

  it('does not retry an error caused by the shutdown', async () => {
    const lines: Line[] = [];
    const reconciler: Reconciler = {
      reconcile: (_key, signal) =>
        new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true })),
    };
    const c = new Controller({ name: 'test', reconciler, logger: capturingLogger(lines) });
    c.enqueue('k');
    const r = run(c);
    await vi.advanceTimersByTimeAsync(0);
    await r.stop();
    expect(lines.some((l) => l.level === 'error')).toBe(false);
    expect(lines.map((l) => l.msg)).toContain('Reconcile interrupted by shutdown');
  });

  it('returns at once for an aborted signal, runs only once, watches nothing after', async () => {
    const c = new Controller({ name: 'test', reconciler: scripted().reconciler });
    await c.start(AbortSignal.abort());
    expect(c.started).toBe(true);
    await expect(c.start(new AbortController().signal)).rejects.toThrow(/already started/);
    expect(() => c.watch(new FakeSource<{ metadata: { name: string } }>())).toThrow(/has stopped/);
  });
});

describe('objectKey / splitKey', () => {
  it.each([
    { obj: { metadata: { name: 'a', namespace: 'ns' } }, key: 'ns/a', split: { namespace: 'ns', name: 'a' } },
    { obj: { metadata: { name: 'a' } }, key: 'a', split: { name: 'a' } },
    { obj: { metadata: { name: 'a', namespace: '' } }, key: 'a', split: { name: 'a' } },
  ])('$key', ({ obj, key, split }) => {
    expect(objectKey(obj)).toBe(key);
    expect(splitKey(key)).toEqual(split);
  });

  it('no name, no key', () => {
    expect(objectKey({ metadata: {} })).toBeUndefined();
    expect(objectKey({})).toBeUndefined();
  });
});
