import { describe, expect, it } from 'vitest';
import { runSteps, type Step } from './steps.ts';

interface State {
  readonly ran: string[];
}

const step = (name: string, outcome?: Awaited<ReturnType<Step<State>['run']>>): Step<State> => ({
  name,
  run: async (s) => {
    s.ran.push(name);
    return outcome;
  },
});

describe('runSteps', () => {
  const signal = new AbortController().signal;

  it('runs every step in order when none ends the pass', async () => {
    const state: State = { ran: [] };
    expect(await runSteps([step('a'), step('b'), step('c')], state, signal)).toBeUndefined();
    expect(state.ran).toEqual(['a', 'b', 'c']);
  });

  it('stops at the first step with an outcome and names it', async () => {
    const state: State = { ran: [] };
    const err = new Error('boom');
    expect(await runSteps([step('a'), step('b', { err }), step('c')], state, signal)).toEqual({ err, step: 'b' });
    expect(state.ran).toEqual(['a', 'b']);
  });

  it('a quiet stop ({}) and a result end the pass too', async () => {
    const quiet: State = { ran: [] };
    expect(await runSteps([step('a', {}), step('b')], quiet, signal)).toEqual({ step: 'a' });
    const requeue: State = { ran: [] };
    expect(await runSteps([step('a', { result: { requeueAfterMs: 5 }, final: true })], requeue, signal)).toEqual({
      result: { requeueAfterMs: 5 },
      final: true,
      step: 'a',
    });
  });

  it('lets a thrown error through, after the steps before it ran', async () => {
    const state: State = { ran: [] };
    const throwing: Step<State> = { name: 'x', run: () => Promise.reject(new Error('thrown')) };
    await expect(runSteps([step('a'), throwing, step('c')], state, signal)).rejects.toThrow('thrown');
    expect(state.ran).toEqual(['a']);
  });
});
