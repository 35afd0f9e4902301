import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Condition } from '../../api/meta/v1.ts';
import { conditionChanges, waitFor } from './wait.ts';

const cond = (type: string, status: Condition['status'], reason: string, message = ''): Condition => ({ type, status, reason, message, lastTransitionTime: '' });

function sink(tty: boolean): PassThrough & { isTTY?: boolean; text(): string } {
  const s = new PassThrough() as PassThrough & { isTTY?: boolean; text(): string };
  const chunks: Buffer[] = [];
  s.on('data', (c: Buffer) => chunks.push(c));
  s.isTTY = tty;
  s.text = () => Buffer.concat(chunks).toString();
  return s;
}

describe('conditionChanges', () => {
  it('reports a condition once, again only when its status, reason or message changes', () => {
    const a = conditionChanges(new Map(), [cond('Progressing', 'True', 'Retrying', 'no bundles found'), cond('Installed', 'False', 'Failed')]);
    expect(a.lines).toEqual(['Progressing=True Retrying: no bundles found', 'Installed=False Failed']);
    const b = conditionChanges(a.now, [cond('Progressing', 'True', 'Retrying', 'no bundles found'), cond('Installed', 'True', 'Succeeded', 'ok')]);
    expect(b.lines).toEqual(['Installed=True Succeeded: ok']);
  });
});

describe('waitFor', () => {
  const states = (): (() => Promise<{ conditions: Condition[] }>) => {
    const seq = [[cond('Progressing', 'True', 'Retrying', 'wait')], [cond('Progressing', 'True', 'Retrying', 'wait')], [cond('Progressing', 'True', 'Succeeded', 'done')]];
    let i = 0;
    return async () => ({ conditions: seq[Math.min(i++, seq.length - 1)]! });
  };

  it('polls until done and shows each change on a terminal', async () => {
    const stderr = sink(true);
    const r = await waitFor({
      get: states(),
      done: (o) => o?.conditions[0]?.reason === 'Succeeded',
      conditions: (o) => o?.conditions,
      timeoutMs: 10_000,
      io: { stdout: sink(false), stderr, cwd: '/', env: {} },
      label: 'clusterextension/x',
    });
    expect(r.ok).toBe(true);
    expect(stderr.text()).toMatch(/^\[\d+s\] clusterextension\/x: Progressing=True Retrying: wait\n\[\d+s\] clusterextension\/x: Progressing=True Succeeded: done\n$/);
  });

  it('prints nothing when stderr is not a terminal', async () => {
    const stderr = sink(false);
    const r = await waitFor({ get: states(), done: (o) => o?.conditions[0]?.reason === 'Succeeded', conditions: (o) => o?.conditions, timeoutMs: 10_000, io: { stdout: sink(false), stderr, cwd: '/', env: {} }, label: 'x' });
    expect(r.ok).toBe(true);
    expect(stderr.text()).toBe('');
  });

  it('gives up at the timeout with the last object, or when aborted', async () => {
    const never = async () => ({ conditions: [cond('Progressing', 'True', 'Retrying', 'stuck')] });
    const t = await waitFor({ get: never, done: () => false, timeoutMs: 300, io: { stdout: sink(false), stderr: sink(false), cwd: '/', env: {} }, label: 'x' });
    expect(t).toMatchObject({ ok: false, reason: 'timeout', last: { conditions: [{ message: 'stuck' }] } });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const a = await waitFor({ get: never, done: () => false, timeoutMs: 60_000, io: { stdout: sink(false), stderr: sink(false), cwd: '/', env: {}, signal: ac.signal }, label: 'x' });
    expect(a).toMatchObject({ ok: false, reason: 'aborted' });
  });
});

describe('waitFor: baseline and giveUp', () => {
  it('shows only the conditions that change from the baseline', async () => {
    const stderr = sink(true);
    const seq = [[cond('Installed', 'True', 'Succeeded', 'old'), cond('Progressing', 'True', 'RollingOut', 'new')], [cond('Installed', 'True', 'Succeeded', 'old'), cond('Progressing', 'True', 'Succeeded', 'done')]];
    let i = 0;
    const r = await waitFor({
      get: async () => ({ conditions: seq[Math.min(i++, seq.length - 1)]! }),
      done: (o) => o?.conditions[1]?.reason === 'Succeeded',
      conditions: (o) => o?.conditions,
      baseline: [cond('Installed', 'True', 'Succeeded', 'old'), cond('Progressing', 'True', 'Succeeded', 'done')],
      timeoutMs: 10_000,
      io: { stdout: sink(false), stderr, cwd: '/', env: {} },
      label: 'x',
    });
    expect(r.ok).toBe(true);
    expect(stderr.text()).toMatch(/^\[\d+s\] x: Progressing=True RollingOut: new\n\[\d+s\] x: Progressing=True Succeeded: done\n$/);
  });

  it('ends when giveUp reports a cause', async () => {
    let reads = 0;
    const r = await waitFor({
      get: async () => ({ n: ++reads }),
      done: () => false,
      giveUp: (o) => ((o?.n ?? 0) >= 2 ? { cause: 'no bundles found', next: [] } : undefined),
      timeoutMs: 10_000,
      io: { stdout: sink(false), stderr: sink(false), cwd: '/', env: {} },
      label: 'x',
    });
    expect(r).toMatchObject({ ok: false, reason: 'unfixable', unfixable: { cause: 'no bundles found' } });
  });
});
