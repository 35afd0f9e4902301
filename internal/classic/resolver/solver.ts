// The classic SAT solver on logic-solver (MiniSat compiled to asm.js), with upstream's search
// semantics (OLM R/solver/solve.go, search.go): every constraint holds; mandatory variables are
// installed; dependencies are tried in their preference order, breadth-first from the mandatory
// variables, backtracking to the next candidate when a choice makes the problem unsatisfiable;
// then the number of installed variables the search did not choose is minimised. An
// unsatisfiable problem is explained by a minimal set of constraints (NotSatisfiableError).
//
// logic-solver has a fixed 64 MiB heap, no timeout and throws strings when it aborts; every call
// into it goes through `guarded`, which turns such a throw into a ClassicResolutionError, and the
// deadline/abort signal is checked between calls (one call cannot be interrupted).
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import type LogicSolver from 'logic-solver';
import { errorMessage, realClock, type Clock } from '../../shared/toolkit/index.ts';
import type { AppliedConstraint, Constraint, Variable } from './constraints.ts';
import {
  aggregateMessage,
  ClassicResolutionError,
  duplicateIdentifierMessage,
  INCOMPLETE_MESSAGE,
  NotSatisfiableError,
  referencedNotProvidedMessage,
} from './errors.ts';

export interface SolveOptions {
  /** The time on `clock` after which the solve stops between solver calls (SOLVER_INCOMPLETE). */
  readonly deadline?: number;
  /** What `deadline` is read on (default the toolkit's monotonic realClock). */
  readonly clock?: Clock;
  readonly signal?: AbortSignal;
}

/** Figures from the last solve, for benchmarks and logs. */
export interface SolveStats {
  variables: number;
  constraints: number;
  guesses: number;
  satCalls: number;
  /** CNF clauses given to MiniSat for the problem (before the search's level clauses). */
  clauses?: number;
  /** Milliseconds spent in `solve` (formula building, search, minimisation). */
  solveMs?: number;
}

// The project's typings (types/logic-solver.d.ts) omit the integer helpers used for AtMost(n > 1).
type Formula = ReturnType<typeof LogicSolver.not>;
type Bits = { readonly __bits: true };
type LogicLib = typeof LogicSolver & {
  sum(...f: unknown[]): Bits;
  constantBits(n: number): Bits;
  lessThanOrEqual(a: Bits, b: Bits): Formula;
  Clause: { prototype: object };
};
// Loaded on the first solve, not at start-up: the asm.js MiniSat costs ~20 MiB of RSS and most of a
// second to load (bench/footprint.ts), which an olm-classic without Subscriptions never needs.
let lib: LogicLib | undefined;
const logic = (): LogicLib => (lib ??= createRequire(import.meta.url)('logic-solver') as LogicLib);
type Solver = InstanceType<typeof LogicSolver.Solver>;
type Solution = NonNullable<ReturnType<Solver['solve']>>;
type F = Formula | string;

/** Solves `variables`; returns the installed ones in input order. Throws ClassicResolutionError. */
export function solve(variables: readonly Variable[], options: SolveOptions = {}, stats?: SolveStats): Variable[] {
  const problem = compile(variables);
  if (stats) {
    stats.variables = variables.length;
    stats.constraints = problem.applied.length;
    stats.guesses = 0;
    stats.satCalls = 0;
  }
  const t0 = performance.now();
  try {
    return guarded(problem, () => logic().disablingAssertions(() => run(problem, options, stats)));
  } finally {
    if (stats) stats.solveMs = performance.now() - t0;
  }
}

interface Problem {
  readonly variables: readonly Variable[];
  readonly index: ReadonlyMap<string, number>;
  readonly applied: readonly AppliedConstraint[];
  /** Per applied constraint: its clauses over variable indexes (`i + 1` = v<i>, `-(i + 1)` = ¬v<i>), or a formula (atMost(n > 1)). */
  readonly encoded: readonly (Clauses | F)[];
  /** Per applied constraint: an atMost(1) over the same variables as an earlier one (implied by it; the search solver skips it, `explain` keeps it). */
  readonly implied: readonly boolean[];
  /** Per variable: the candidate index lists of its dependency constraints (search order). */
  readonly orders: readonly (readonly (readonly number[])[])[];
  readonly anchors: readonly number[];
}

/** Clauses of one constraint: literal `±(i + 1)` is variable i, `±(AUX + k)` its k-th auxiliary. */
interface Clauses {
  readonly clauses: readonly (readonly number[])[];
  /** Number of auxiliary variables the clauses use (literals `±(AUX + k)`). */
  readonly aux: number;
}
/** Literals at or above AUX (in absolute value) name auxiliary variable `AUX + k` of the constraint. */
const AUX = 1 << 28;

const varName = (i: number): string => `v${i}`;
/** A variable's value in a model; variables that appear in no clause are false. */
const maps = new WeakMap<Solution, Record<string, boolean>>();
const holds = (model: Solution, name: string): boolean => {
  let map = maps.get(model);
  if (!map) maps.set(model, (map = model.getMap()));
  return map[name] === true;
};

function compile(variables: readonly Variable[]): Problem {
  const index = new Map<string, number>();
  variables.forEach((v, i) => {
    if (index.has(v.id)) throw new ClassicResolutionError('DUPLICATE_IDENTIFIER', duplicateIdentifierMessage(v.id));
    index.set(v.id, i);
  });
  const errors: string[] = [];
  const lit = (id: string): number | undefined => {
    const i = index.get(id);
    if (i === undefined) errors.push(referencedNotProvidedMessage(id));
    return i === undefined ? undefined : i + 1;
  };
  const applied: AppliedConstraint[] = [];
  const encoded: (Clauses | F)[] = [];
  const implied: boolean[] = [];
  const groups = new Set<string>();
  const orders: number[][][] = [];
  const anchors: number[] = [];
  variables.forEach((v, i) => {
    const order: number[][] = [];
    let anchored = false;
    for (const c of v.constraints) {
      const e = encodeClauses(c, i + 1, lit);
      if (e === undefined) continue;
      applied.push({ variable: v, constraint: c });
      encoded.push(e);
      let same = false;
      if (c.kind === 'atMost' && c.n === 1) {
        const key = c.ids.flatMap((id) => index.get(id) ?? []).sort((a, b) => a - b).join(',');
        same = groups.has(key);
        groups.add(key);
      }
      implied.push(same);
      if (c.kind === 'mandatory') anchored = true;
      if (c.kind === 'dependency' && c.ids.length > 0) order.push(c.ids.flatMap((id) => index.get(id) ?? []));
    }
    if (anchored) anchors.push(i);
    orders.push(order);
  });
  if (errors.length > 0) throw new ClassicResolutionError('SOLVER_INTERNAL', aggregateMessage(errors));
  return { variables, index, applied, encoded, implied, orders, anchors };
}

/** Up to this many operands, at-most-one is pairwise (n(n-1)/2 clauses); above, a sequential counter (3n-4 clauses, n-1 auxiliaries). */
const PAIRWISE_MAX = 6;

/** A constraint as CNF clauses (or, for atMost(n > 1), a logic-solver formula over `v<i>` names). */
function encodeClauses(c: Constraint, self: number, lit: (id: string) => number | undefined): Clauses | F | undefined {
  const defined = (ids: readonly string[]): number[] => ids.flatMap((id) => lit(id) ?? []);
  const plain = (clauses: number[][]): Clauses => ({ clauses, aux: 0 });
  switch (c.kind) {
    case 'mandatory':
      return plain([[self]]);
    case 'prohibited':
      return plain([[-self]]);
    case 'dependency':
      return plain([[-self, ...defined(c.ids)]]);
    case 'conflict': {
      const other = lit(c.id);
      return other === undefined ? undefined : plain([[-self, -other]]);
    }
    case 'atMost': {
      const xs = defined(c.ids);
      if (c.n >= xs.length) return plain([]);
      if (c.n <= 0) return plain(xs.map((x) => [-x]));
      if (c.n === 1) return atMostOne(xs);
      return logic().lessThanOrEqual(logic().sum(xs.map((x) => varName(x - 1))), logic().constantBits(c.n));
    }
  }
}

/** At most one of `xs`: pairwise for small groups, else Sinz's sequential counter (r_k = "one of x_0..x_k is true"). */
function atMostOne(xs: readonly number[]): Clauses {
  const n = xs.length;
  const out: number[][] = [];
  if (n <= PAIRWISE_MAX) {
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) out.push([-(xs[i] as number), -(xs[j] as number)]);
    return { clauses: out, aux: 0 };
  }
  const r = (k: number): number => AUX + k;
  out.push([-(xs[0] as number), r(0)]);
  for (let k = 1; k < n - 1; k++) {
    const x = xs[k] as number;
    out.push([-x, r(k)], [-r(k - 1), r(k)], [-x, -r(k - 1)]);
  }
  out.push([-(xs[n - 1] as number), -r(n - 2)]);
  return { clauses: out, aux: n - 1 };
}

const isClauses = (e: Clauses | F): e is Clauses => typeof e === 'object' && e !== null && 'aux' in e && 'clauses' in e;

// logic-solver's clause entry point below its formula layer: `_addClause(new Logic.Clause(terms))`
// with terms = signed variable numbers from `getVarNum` (what its formula generation ends in).
interface RawSolver {
  getVarNum(name: string): number;
  getVarName(num: number): string;
  _addClause(clause: unknown): void;
}
/** A Logic.Clause without the constructor's argument flattening (terms are already a flat array). */
const clause = (terms: number[]): unknown => Object.assign(Object.create(logic().Clause.prototype) as object, { terms });

/**
 * Adds the problem's clauses to `solver`: variable i is `v<i>`; constraint j's auxiliaries are
 * `a<j>_<k>`; `guard(j)` (a variable number or 0) is added negated to each clause of constraint j.
 * Without `guard`, at-most-one constraints implied by an earlier identical one are left out.
 */
function emit(solver: Solver, problem: Problem, guard?: (j: number) => number): number[] {
  const raw = solver as unknown as RawSolver;
  const nums = problem.variables.map((_, i) => raw.getVarNum(varName(i)));
  problem.encoded.forEach((e, j) => {
    if (!guard && problem.implied[j]) return;
    const g = guard ? guard(j) : 0;
    if (!isClauses(e)) {
      solver.require(g ? logic().implies(raw.getVarName(g), e) : e);
      return;
    }
    const aux: number[] = [];
    for (let k = 0; k < e.aux; k++) aux.push(raw.getVarNum(`a${j}_${k}`));
    for (const cl of e.clauses) {
      const terms = cl.map((l) => {
        const a = l < 0 ? -l : l;
        const v = a >= AUX ? (aux[a - AUX] as number) : (nums[a - 1] as number);
        return l < 0 ? -v : v;
      });
      if (g) terms.push(-g);
      raw._addClause(clause(terms));
    }
  });
  return nums;
}

/**
 * Runs `fn`, turning logic-solver's thrown strings (heap exhaustion, aborts) into a typed error.
 * Exported for tests.
 */
export function guarded<T>(problem: { readonly variables: readonly unknown[]; readonly applied: readonly unknown[] }, fn: () => T): T {
  // The asm.js MiniSat prints its abort reason through console.log ("MINISAT-out: …"); keep it
  // for the error instead of the process's stdout. Solving is synchronous, so the swap is local.
  const printed: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => {
    const line = args.map(String).join(' ');
    if (line.startsWith('MINISAT-')) printed.push(line.replace(/^MINISAT-(out|err): /, ''));
    else log(...args);
  };
  try {
    return fn();
  } catch (err) {
    if (err instanceof ClassicResolutionError) throw err;
    const text = printed[0] ?? errorMessage(err);
    const heap = /enlarge memory|out of memory|abort/i.test(text);
    throw new ClassicResolutionError(
      'SOLVER_RESOURCES',
      `${heap ? "SAT solver ran out of memory (logic-solver's fixed 64 MiB heap)" : 'SAT solver failed'} on a problem of ` +
        `${problem.variables.length} variables and ${problem.applied.length} constraints: ${(text.split(/\.\s/)[0] ?? '').trim()}`,
      { cause: err },
    );
  } finally {
    console.log = log;
  }
}

/** Before each solver call: SOLVER_INCOMPLETE once the deadline has passed or the signal aborted; else the call is counted. */
function budget(options: SolveOptions, stats: SolveStats | undefined): void {
  if (options.signal?.aborted || (options.deadline !== undefined && (options.clock ?? realClock).now() > options.deadline)) {
    throw new ClassicResolutionError('SOLVER_INCOMPLETE', INCOMPLETE_MESSAGE);
  }
  if (stats) stats.satCalls++;
}

interface Guess {
  readonly m: number; // -1: satisfied by an earlier guess, or candidates exhausted
  readonly index: number;
  children: number;
  readonly candidates: readonly number[];
  level?: string; // the level variable standing for all guesses up to this one, once one was needed
}

interface Choice {
  readonly index: number;
  readonly candidates: readonly number[];
}

/** The solve after compile: one model, then upstream's search and minimisation on the same solver. */
function run(problem: Problem, options: SolveOptions, stats: SolveStats | undefined): Variable[] {
  const solver: Solver = new (logic().Solver)();
  let model: Solution | undefined;
  let levels = 0;
  const nums = emit(solver, problem);
  const call = <T>(fn: () => T): T => {
    budget(options, stats);
    return fn();
  };

  /**
   * Upstream's preference search. Each guess is checked with a full solve under assumptions
   * (upstream uses unit propagation and a full solve at the end; both accept the same first
   * satisfiable sequence of guesses). A model that already satisfies a guess saves the solve.
   */
  function search(): Set<number> {
    const deque: Choice[] = problem.anchors.map((a) => ({ index: 0, candidates: [a] }));
    const guesses: Guess[] = [];
    const assumed = new Set<number>();
    let sat = true;
    for (;;) {
      if (!sat) {
        const g = guesses.pop();
        if (!g) break; // not reached: the problem was satisfiable before any guess
        if (g.m >= 0) {
          assumed.delete(g.m);
          sat = true; // back to the previous position, which was satisfiable
        }
        for (let k = 0; k < g.children; k++) deque.pop();
        deque.unshift({ index: g.m >= 0 ? g.index + 1 : g.index, candidates: g.candidates });
        continue;
      }
      const c = deque.shift();
      if (!c) break;
      let m = c.index < c.candidates.length ? (c.candidates[c.index] as number) : -1;
      if (c.candidates.some((x) => assumed.has(x))) m = -1;
      if (m < 0) {
        guesses.push({ m, index: c.index, children: 0, candidates: c.candidates });
        continue;
      }
      if (stats) stats.guesses++;
      const guess: Guess = { m, index: c.index, children: 0, candidates: c.candidates };
      guesses.push(guess);
      for (const order of problem.orders[m] ?? []) {
        guess.children++;
        deque.push({ index: 0, candidates: order });
      }
      assumed.add(m);
      if (model && holds(model, varName(m))) continue; // the current model already satisfies every guess
      // One level variable stands for every guess so far: it implies the previous level and the
      // guesses made since (created only when a solve is needed).
      let at = guesses.length - 1;
      while (at > 0 && (guesses[at - 1] as Guess).level === undefined) at--;
      const previous = at > 0 ? (guesses[at - 1] as Guess).level : undefined;
      const pending = guesses.slice(at).flatMap((g) => (g.m >= 0 ? [varName(g.m)] : []));
      const level = `l${levels++}`;
      solver.require(logic().implies(level, logic().and(previous === undefined ? pending : [previous, ...pending])));
      guess.level = level;
      const next = call(() => solver.solveAssuming(level));
      if (next) model = next;
      else sat = false;
    }
    return assumed;
  }

  /**
   * Upstream's minimisation: guessed variables stay installed, variables the last model leaves out
   * stay out, and the number of other installed variables is minimised.
   */
  function minimise(guessed: Set<number>): number[] {
    const last = model as Solution;
    const n = problem.variables.length;
    const extras: string[] = [];
    for (let i = 0; i < n; i++) if (!guessed.has(i) && holds(last, varName(i))) extras.push(varName(i));
    let best = last;
    if (extras.length > 0) {
      const raw = solver as unknown as RawSolver;
      for (let i = 0; i < n; i++) {
        if (guessed.has(i)) raw._addClause(clause([nums[i] as number]));
        else if (!holds(last, varName(i))) raw._addClause(clause([-(nums[i] as number)]));
      }
      best = call(() => solver.minimizeWeightedSum(last, extras, 1));
    }
    const out: number[] = [];
    for (let i = 0; i < n; i++) if (holds(best, varName(i))) out.push(i);
    return out;
  }

  if (stats) stats.clauses = (solver as unknown as { clauses: unknown[] }).clauses.length;
  model = call(() => solver.solve()) ?? undefined;
  if (!model) throw new NotSatisfiableError(explain(problem, options, stats));
  return minimise(search()).map((i) => problem.variables[i] as Variable);
}

/**
 * A minimal unsatisfiable subset of the constraints, by deletion with growing chunks. Each
 * constraint j gets a selector s_j (s_j → constraint j); e_k stands for "constraints k… are on"
 * (e_k → s_k ∧ e_{k+1}), so each test assumes one variable and adds no clauses per call.
 * Earlier constraints are tried for removal first, so of two constraints with the same meaning the
 * later one stays (upstream's constraint map also keeps the last of two equal literals).
 */
function explain(problem: Problem, options: SolveOptions, stats: SolveStats | undefined): AppliedConstraint[] {
  const solver = new (logic().Solver)();
  const n = problem.encoded.length;
  const sel = (j: number): string => `s${j}`;
  const on = (k: number): string => `e${k}`;
  const raw = solver as unknown as RawSolver;
  const selectors = problem.encoded.map((_, j) => raw.getVarNum(sel(j)));
  emit(solver, problem, (j) => selectors[j] as number);
  for (let k = 0; k < n; k++) solver.require(logic().implies(on(k), logic().and(sel(k), on(k + 1))));
  const keep: number[] = [];
  let i = 0;
  let chunk = 1;
  while (i < n) {
    const k = Math.min(chunk, n - i);
    budget(options, stats);
    if (solver.solveAssuming(on(i + k)) === null) {
      for (let j = i; j < i + k; j++) solver.forbid(sel(j)); // still unsatisfiable without them: drop
      i += k;
      chunk *= 2;
    } else if (k === 1) {
      solver.require(sel(i)); // needed
      keep.push(i);
      i += 1;
      chunk = 1;
    } else {
      chunk = Math.max(1, Math.floor(k / 2));
    }
  }
  return keep.map((j) => problem.applied[j] as AppliedConstraint);
}
