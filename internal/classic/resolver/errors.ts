// Every error the classic solver and resolver raise. Texts are upstream's (OLM R/solver/solve.go,
// lit_mapping.go, R/resolver.go, operator-framework/api pkg/constraints) where upstream has one;
// the others name the offending value. Match on `code`, show `message`.
import { goQuote } from '../../shared/gocompat/index.ts';
import { appliedString, type AppliedConstraint } from './constraints.ts';

export type ClassicErrorCode =
  | 'NOT_SATISFIABLE'
  | 'DUPLICATE_IDENTIFIER'
  | 'SOLVER_INTERNAL'
  | 'SOLVER_RESOURCES'
  | 'SOLVER_INCOMPLETE'
  | 'INVALID_PROPERTY'
  | 'RESOLUTION';

export class ClassicResolutionError extends Error {
  override readonly name: string = 'ClassicResolutionError';
  readonly code: ClassicErrorCode;
  constructor(code: ClassicErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

/** Byte-wise (UTF-8) string order, as Go's `<` on strings. */
export const compareBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * `constraints not satisfiable: <c1>, <c2>, …` — the constraints of an unsatisfiable core, sorted by
 * their text (byte order), as upstream sorts them.
 */
export class NotSatisfiableError extends ClassicResolutionError {
  override readonly name = 'NotSatisfiableError';
  readonly constraints: readonly AppliedConstraint[];
  constructor(constraints: readonly AppliedConstraint[]) {
    const sorted = [...constraints].sort((a, b) => compareBytes(appliedString(a), appliedString(b)));
    super('NOT_SATISFIABLE', notSatisfiableMessage(sorted));
    this.constraints = sorted;
  }
}

export function notSatisfiableMessage(constraints: readonly AppliedConstraint[]): string {
  const base = 'constraints not satisfiable';
  return constraints.length === 0 ? base : `${base}: ${constraints.map(appliedString).join(', ')}`;
}

export const duplicateIdentifierMessage = (id: string): string => `duplicate identifier ${goQuote(id)} in input`;
export const referencedNotProvidedMessage = (id: string): string => `variable ${goQuote(id)} referenced but not provided`;
export const aggregateMessage = (errs: readonly string[]): string => `${errs.length} errors encountered: ${errs.join(', ')}`;
/** Upstream's ErrIncomplete text: here raised when the deadline or abort signal fires between solver calls. */
export const INCOMPLETE_MESSAGE = 'cancelled before a solution could be found';

export const isNotSatisfiable = (e: unknown): e is NotSatisfiableError => e instanceof NotSatisfiableError;
export const isClassicResolutionError = (e: unknown): e is ClassicResolutionError => e instanceof ClassicResolutionError;
