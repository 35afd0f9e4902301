// The single seam between FBC validation and the blang/semver range engine of internal/shared/semver: opm checks
// `olm.skipRange` with blang's ParseRange and prints its error text (e.g. `Could not parse Range ">1.00.1": …`).
import { BlangError, parseBlangRange } from '../semver/index.ts';

/** blang/semver v4 ParseRange validity: the error text, or undefined when `s` parses. */
export function isValidBlangRange(s: string): string | undefined {
  try {
    parseBlangRange(s);
    return undefined;
  } catch (err) {
    if (err instanceof BlangError) return err.message;
    throw err;
  }
}
