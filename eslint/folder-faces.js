// ESLint rule `faces/index-only`: a capability folder (a folder under internal/ with an index.ts) is imported
// from outside only through its index.ts (and, for test and bench helpers, its testing.ts when it has one). Files inside a folder import each other freely; a file inside a nested
// capability is "outside" its parent's other children. Type-only imports obey the same rule: the face is the API.
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const internal = join(root, 'internal');
const isCapability = new Map();

function capability(dir) {
  let known = isCapability.get(dir);
  if (known === undefined) {
    known = existsSync(join(dir, 'index.ts'));
    isCapability.set(dir, known);
  }
  return known;
}

/** The innermost capability folder holding `file`, or undefined outside internal/. */
export function owningCapability(file) {
  if (!file.startsWith(internal + sep)) return undefined;
  for (let dir = dirname(file); dir.startsWith(internal + sep); dir = dirname(dir)) {
    if (capability(dir)) return dir;
  }
  return undefined;
}

/** The problem with importing `target` from `importer` (absolute paths), or undefined when it is fine. */
export function deepImportProblem(importer, target) {
  const owner = owningCapability(target);
  if (!owner) return undefined;
  if (importer.startsWith(owner + sep)) {
    // Inside the owner: fine unless the target sits in a nested capability the importer is not in.
    return undefined;
  }
  if (target === join(owner, 'index.ts') || target === join(owner, 'testing.ts')) return undefined;
  const face = relative(root, join(owner, 'index.ts'));
  return `${relative(root, target)} is inside ${relative(root, owner)}/; import it through ${face}`;
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'import a capability folder only through its index.ts' },
    schema: [],
    messages: { deep: 'deep import: {{problem}}' },
  },
  create(context) {
    const importer = context.filename;
    const check = (node, source) => {
      if (!source || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
      const problem = deepImportProblem(importer, resolve(dirname(importer), source.value));
      if (problem) context.report({ node: source, messageId: 'deep', data: { problem } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source.type === 'Literal' ? node.source : undefined),
    };
  },
};

export default { rules: { 'index-only': rule } };
