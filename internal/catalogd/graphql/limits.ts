// Upstream's bounds on a query, checked on the parsed document before any catalog is touched:
// selection sets nested at most 10 deep (an operation's own set is depth 1; fields, inline
// fragments and fragment spreads each open the next level), at most 500 fields and 50 aliases
// over the whole document. A named fragment is walked once per operation that spreads it (a
// second spread of it in the same operation adds nothing); fragments never spread are not counted.
import { Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';

export const MAX_QUERY_DEPTH = 10;
export const MAX_QUERY_ALIASES = 50;
export const MAX_QUERY_FIELDS = 500;

/** The first bound the document breaks (upstream's message), or undefined. */
export function complexityError(doc: DocumentNode): string | undefined {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of doc.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  let fields = 0;
  let aliases = 0;
  let spread = new Set<string>();

  const walk = (set: SelectionSetNode | undefined, depth: number): string | undefined => {
    if (set === undefined) return undefined;
    if (depth > MAX_QUERY_DEPTH) return `query exceeds maximum depth of ${MAX_QUERY_DEPTH}`;
    for (const sel of set.selections) {
      let problem: string | undefined;
      if (sel.kind === Kind.FIELD) {
        if (++fields > MAX_QUERY_FIELDS) return `query exceeds maximum field count of ${MAX_QUERY_FIELDS}`;
        if (sel.alias !== undefined && sel.alias.value !== '' && ++aliases > MAX_QUERY_ALIASES) {
          return `query exceeds maximum alias count of ${MAX_QUERY_ALIASES}`;
        }
        problem = walk(sel.selectionSet, depth + 1);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        problem = walk(sel.selectionSet, depth + 1);
      } else {
        const name = sel.name.value;
        if (spread.has(name)) continue;
        spread.add(name);
        problem = walk(fragments.get(name)?.selectionSet, depth + 1);
      }
      if (problem !== undefined) return problem;
    }
    return undefined;
  };

  for (const def of doc.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    spread = new Set();
    const problem = walk(def.selectionSet, 1);
    if (problem !== undefined) return problem;
  }
  return undefined;
}
