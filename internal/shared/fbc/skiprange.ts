// The single seam between FBC validation and a blang/semver range engine. Today it uses the
// private copy in ./blang.ts; when internal/shared/semver's blang ParseRange is settled, swap the
// body for it (it must return blang's error text, e.g. `Could not parse Range ">1.00.1": …`).

import { isValidBlangRange as privateBlangRangeCheck } from './blang.ts';

/** blang/semver v4 ParseRange validity: the error text, or undefined when `s` parses. */
export function isValidBlangRange(s: string): string | undefined {
  return privateBlangRangeCheck(s);
}
