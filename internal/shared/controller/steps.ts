// A reconcile as a list of small steps over one state (upstream operator-controller's ReconcileStepFunc list): each
// step reads and changes the state and either lets the next one run (returns undefined) or ends the pass with an
// outcome. The list is assembled where the implementations are chosen, so a process can run another list, and each
// step is tested alone with fakes of the ports it uses.
import type { Result } from './controller.ts';

/** How a step ends the pass: with an error (retried, or not when terminal), a result, or quietly (`{}`). */
export interface StepOutcome {
  readonly err?: unknown;
  readonly result?: Result;
  /** The step has settled the object's status itself (or it must stay as it is): no epilogue runs. */
  readonly final?: boolean;
}

export interface Step<S> {
  /** Shown in logs and tests; upstream's step names where there are any. */
  readonly name: string;
  readonly run: (state: S, signal: AbortSignal) => Promise<StepOutcome | undefined>;
}

/** The outcome of the step that ended the pass, with its name; undefined when every step ran through. */
export type StepsOutcome = StepOutcome & { readonly step: string };

/** Runs the steps in order until one ends the pass. A step that throws propagates the error. */
export async function runSteps<S>(steps: readonly Step<S>[], state: S, signal: AbortSignal): Promise<StepsOutcome | undefined> {
  for (const step of steps) {
    const outcome = await step.run(state, signal);
    if (outcome) return { ...outcome, step: step.name };
  }
  return undefined;
}
