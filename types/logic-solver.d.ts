// Typings for logic-solver 2.0.1 (no @types package exists).
/* eslint-disable @typescript-eslint/no-unused-vars -- ambient declarations describe the module shape */
declare module 'logic-solver' {
  type Term = string | number;
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Formula {}
  type F = Term | Formula | (Term | Formula)[];
  class Solution {
    getTrueVars(): string[];
    getMap(): Record<string, boolean>;
    evaluate(f: F): boolean;
    getFormula(): Formula;
    getWeightedSum(f: F[], w: number | number[]): number;
    ignoreUnknownVariables(): void;
  }
  class Solver {
    require(...a: F[]): void;
    forbid(...a: F[]): void;
    solve(): Solution | null;
    solveAssuming(f: F): Solution | null;
    minimizeWeightedSum(s: Solution, f: F[], w: number | number[]): Solution;
    maximizeWeightedSum(s: Solution, f: F[], w: number | number[]): Solution;
  }
  const Logic: {
    Solver: typeof Solver;
    TRUE: Term;
    FALSE: Term;
    not(f: F): Formula;
    or(...f: F[]): Formula;
    and(...f: F[]): Formula;
    xor(...f: F[]): Formula;
    implies(a: F, b: F): Formula;
    equiv(a: F, b: F): Formula;
    exactlyOne(...f: F[]): Formula;
    atMostOne(...f: F[]): Formula;
    disablingAssertions<T>(fn: () => T): T;
  };
  export = Logic;
}
