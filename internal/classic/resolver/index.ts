// Public surface of internal/classic/resolver: OLM classic's SAT resolver.
export { conflict, constraintString, dependency, mandatory, variable } from './constraints.ts';
export type { SolveStats } from './solver.ts';
export { isClassicResolutionError, isNotSatisfiable, NotSatisfiableError } from './errors.ts';
export type { CatalogKey, Entry, Property } from './entries.ts';
export { makeEntry } from './entries.ts';
export type { Catalog, ResolvedEntry, ResolveInput, Subscription } from './resolver.ts';
export { loadCelFor, resolve } from './resolver.ts';
export type { ClassicResolutionMetrics } from './metrics.ts';
export { createClassicResolutionMetrics } from './metrics.ts';
export { parseConstraint } from './predicates.ts';
