// `opm validate` over a loaded catalog: ConvertToModel's checks (first error wins) then the model
// error tree. The result carries opm's exact message plus, for conversion errors, the blob.

import type { Catalog } from './load.ts';
import { FbcValidationError } from './messages.ts';
import { convertToModel, type Model } from './model.ts';

export interface ValidationResult {
  /** Empty when valid; otherwise one error, as opm reports only the first. */
  readonly errors: readonly FbcValidationError[];
  /** The converted model when valid. */
  readonly model: Model | undefined;
}

/** Validates a loaded catalog and returns the model when valid. */
export function validate(c: Pick<Catalog, 'config'>): ValidationResult {
  try {
    return { errors: [], model: convertToModel(c.config) };
  } catch (e) {
    if (e instanceof FbcValidationError) return { errors: [e], model: undefined };
    throw e;
  }
}

/** opm's validation errors for a loaded catalog (empty when valid). */
export function validateCatalog(c: Pick<Catalog, 'config'>): FbcValidationError[] {
  return [...validate(c).errors];
}
