// The one rule for "did it change" (apimachinery's equality.Semantic.DeepEqual on JSON values): deep equality
// independent of key order, where a field that is `undefined` counts as absent — so a status built field by field
// equals the same status read back from the API server.
import { isObject } from '../toolkit/index.ts';

/** Whether two JSON values are equal, independent of key order; `undefined` fields count as absent. */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!semanticEqual(a[i], b[i])) return false;
    return true;
  }
  if (!isObject(a) || !isObject(b)) return false;
  let defined = 0;
  for (const k in a) {
    const x = a[k];
    if (x === undefined) continue;
    defined++;
    if (!semanticEqual(x, b[k])) return false;
  }
  for (const k in b) if (b[k] !== undefined) defined--;
  return defined === 0;
}
