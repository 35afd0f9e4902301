// `opm validate` over a loaded catalog: ConvertToModel's checks (first error wins) then the model
// error tree. The result carries opm's exact message plus, for conversion errors, the blob.

import { loadCatalog, type Catalog } from './load.ts';
import { FbcLoadError, FbcValidationError } from './messages.ts';
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

/**
 * What `opm validate <dir>` reports for a catalog directory: the first problem's message (a load
 * error naming the file and blob, or a validation error), or undefined when the catalog is valid.
 * Loads strictly, as opm's LoadFS does.
 */
export async function validateDirectory(dir: string): Promise<string | undefined> {
  try {
    return validate(await loadCatalog(dir, { strict: true })).errors[0]?.message;
  } catch (err) {
    if (err instanceof FbcLoadError || err instanceof FbcValidationError) return err.message;
    throw err;
  }
}
