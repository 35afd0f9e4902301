// Public surface of internal/classic/resolver: OLM classic's SAT resolver.
export type { AppliedConstraint, Constraint, Variable } from './constraints.ts';
export { atMost, conflict, constraintString, dependency, mandatory, pretty, prohibited, variable } from './constraints.ts';
export type { SearchPosition, SolveOptions, SolveStats } from './solver.ts';
export { solve } from './solver.ts';
export type { ClassicErrorCode } from './errors.ts';
export { ClassicResolutionError, isClassicResolutionError, isNotSatisfiable, NotSatisfiableError } from './errors.ts';
export type { CatalogKey, Entry, EntryInput, Property } from './entries.ts';
export { makeEntry, sortChannel } from './entries.ts';
export type { Catalog, ResolvedEntry, ResolveInput, ResolverOptions, Subscription } from './resolver.ts';
export { loadCelFor, resolve } from './resolver.ts';
export type { ClassicResolutionMetrics, ClassicResolutionOutcome } from './metrics.ts';
export { CLASSIC_RESOLUTION_DURATION_METRIC, createClassicResolutionMetrics, noopClassicResolutionMetrics } from './metrics.ts';
export { MAX_CONSTRAINT_SIZE, parseConstraint, predicateForProperty } from './predicates.ts';
