// The solver's input: variables (one boolean each, true = installed/selected) and the constraints
// upstream's solver knows (OLM R/solver/constraints.go), as plain data. `String(subject)` texts are
// upstream's; `pretty(c, msg)` replaces the text, as upstream's PrettyConstraint does.

export type Constraint =
  | { readonly kind: 'mandatory'; readonly message?: string }
  | { readonly kind: 'prohibited'; readonly message?: string }
  /** At least one of `ids` when the subject is selected; earlier ids are preferred. */
  | { readonly kind: 'dependency'; readonly ids: readonly string[]; readonly message?: string }
  | { readonly kind: 'conflict'; readonly id: string; readonly message?: string }
  /** At most `n` of `ids` (the subject itself is not involved). */
  | { readonly kind: 'atMost'; readonly n: number; readonly ids: readonly string[]; readonly message?: string };

export interface Variable {
  readonly id: string;
  readonly constraints: readonly Constraint[];
}

export const mandatory = (): Constraint => ({ kind: 'mandatory' });
export const prohibited = (): Constraint => ({ kind: 'prohibited' });
export const dependency = (...ids: string[]): Constraint => ({ kind: 'dependency', ids });
export const conflict = (id: string): Constraint => ({ kind: 'conflict', id });
export const atMost = (n: number, ...ids: string[]): Constraint => ({ kind: 'atMost', n, ids });
/** Same constraint, but `constraintString` returns `message` (upstream's PrettyConstraint). */
export const pretty = (c: Constraint, message: string): Constraint => ({ ...c, message });
export const variable = (id: string, ...constraints: Constraint[]): Variable => ({ id, constraints });

/** Upstream's `Constraint.String(subject)`. */
export function constraintString(c: Constraint, subject: string): string {
  if (c.message !== undefined) return c.message;
  switch (c.kind) {
    case 'mandatory':
      return `${subject} is mandatory`;
    case 'prohibited':
      return `${subject} is prohibited`;
    case 'dependency':
      return c.ids.length === 0
        ? `${subject} has a dependency without any candidates to satisfy it`
        : `${subject} requires at least one of ${c.ids.join(', ')}`;
    case 'conflict':
      return `${subject} conflicts with ${c.id}`;
    case 'atMost':
      return `${subject} permits at most ${c.n} of ${c.ids.join(', ')}`;
  }
}

/** A constraint together with the variable it was declared on (upstream's AppliedConstraint). */
export interface AppliedConstraint {
  readonly variable: Variable;
  readonly constraint: Constraint;
}

export const appliedString = (a: AppliedConstraint): string => constraintString(a.constraint, a.variable.id);
