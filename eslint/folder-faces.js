// ESLint rule `faces/index-only`: a capability folder (a folder under internal/ with an index.ts) is imported
// from outside only through its index.ts (and, for test and bench helpers, its testing.ts when it has one). Files inside a folder import each other freely; a file inside a nested
// capability is "outside" its parent's other children. Type-only imports obey the same rule: the face is the API.
// Rule `faces/reexports-only` (below): that index.ts holds nothing but re-exports.
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

// ESLint rule `faces/reexports-only`: an index.ts under internal/ or cmd/ (a capability's face) holds only
// `export { … } from './x.ts'`, `export type { … } from …` and `export * from …`. Wiring (informers, controllers,
// ManagerParts) lives in the folder's setup.ts, declarations in their own files; the face names them.
const reexportsOnly = {
  meta: {
    type: 'problem',
    docs: { description: "a folder's index.ts only re-exports" },
    schema: [],
    messages: { statement: '{{file}} only re-exports (`export { … } from …`); move this statement to a file beside it (wiring: setup.ts)' },
  },
  create(context) {
    const file = context.filename;
    if (!file.endsWith(`${sep}index.ts`) || !(file.startsWith(internal + sep) || file.startsWith(join(root, 'cmd') + sep))) return {};
    return {
      Program: (program) => {
        for (const node of program.body) {
          const reexport = (node.type === 'ExportNamedDeclaration' && node.source && !node.declaration) || node.type === 'ExportAllDeclaration';
          if (!reexport) context.report({ node, messageId: 'statement', data: { file: relative(root, file) } });
        }
      },
    };
  },
};

export default { rules: { 'index-only': rule, 'reexports-only': reexportsOnly } };
