// `opm validate` over a loaded catalog: ConvertToModel's checks (first error wins) then the model
// error tree. The result carries opm's exact message plus, for conversion errors, the blob.

import { loadCatalog, type Catalog } from './load.ts';
import { FbcLoadError, FbcValidationError, describeRef } from './messages.ts';
import { convertToModel, type Model } from './model.ts';
import { oneLine } from '../toolkit/index.ts';
import { renderTreeLine } from './tree.ts';

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

/**
 * A catalog's problem in one line, for a status: the blob it is about (file, document, line — a load error
 * names them already; a validation error where opm's rule is about one package, channel or bundle), then opm's
 * message, its `invalid index` tree in one line (`renderTreeLine`).
 */
export function describeProblem(err: FbcLoadError | FbcValidationError): string {
  if (err instanceof FbcLoadError) return oneLine(err.message);
  const text = err.tree ? renderTreeLine(err.tree) : oneLine(err.message);
  return err.ref ? `${describeRef(err.ref)}: ${text}` : text;
}

/** `validate`'s first problem as `describeProblem` puts it, or undefined when the catalog is valid. */
export function catalogProblem(c: Pick<Catalog, 'config'>): string | undefined {
  const err = validate(c).errors[0];
  return err && describeProblem(err);
}
