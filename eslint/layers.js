// ESLint rule `layers/one-way`: imports run one way, down the layers (ARCHITECTURE.md, "Layers"):
//
//   api ← internal/shared ← internal/{catalogd,operator-controller,classic,publish} ← internal/openshift ← internal/cli ← cmd
//
// A file may import its own layer and any layer below it, never one above; the four subsystems are siblings on one
// floor and never import each other (what two of them need lives in internal/shared). test/, bench/, demo/ and hack/ sit
// above cmd and may import anything; no layer imports them. Every folder under internal/ must be in a layer.
// Tests beside the code (`*.test.ts`) and test helpers (`testing.ts`) follow their folder's layer like the code,
// with one exception: they may import test/support/, the fixtures shared with the integration tests (tar and image
// builders), which would otherwise have to be copied into each folder. Type-only imports obey the same rule.
import { basename, dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The layers from the bottom up: a layer may import those on a lower floor and its own folder, nothing else. */
export const LAYERS = [
  { name: 'api', floor: 0 },
  { name: 'internal/shared', floor: 1 },
  { name: 'internal/catalogd', floor: 2 },
  { name: 'internal/operator-controller', floor: 2 },
  { name: 'internal/classic', floor: 2 },
  { name: 'internal/publish', floor: 2 },
  { name: 'internal/openshift', floor: 3 },
  { name: 'internal/cli', floor: 4 },
  { name: 'cmd', floor: 5 },
];
/** Above every layer: they may import anything, and no layer imports them. */
export const TOOLS = ['test', 'bench', 'demo', 'hack'];
const TEST_HELPERS = 'test/support/';

const ORDER = 'api ← internal/shared ← internal/{catalogd,operator-controller,classic,publish} ← internal/openshift ← internal/cli ← cmd';
const byName = new Map(LAYERS.map((l) => [l.name, l]));

/**
 * Where a repository-relative path sits: `{kind: 'layer', layer}`, `{kind: 'tool', name}`, `{kind: 'unplaced', name}`
 * (a folder under internal/ in no layer), or undefined outside them all (root files, eslint/, types/, testdata/).
 */
export function placeOf(rel) {
  const parts = rel.split(sep).join('/').split('/');
  if (parts[0] === 'internal') {
    const name = parts.length > 2 ? `internal/${parts[1]}` : 'internal';
    const layer = byName.get(name);
    return layer ? { kind: 'layer', layer } : { kind: 'unplaced', name };
  }
  if (parts.length < 2) return undefined;
  const layer = byName.get(parts[0]);
  if (layer) return { kind: 'layer', layer };
  if (TOOLS.includes(parts[0])) return { kind: 'tool', name: parts[0] };
  return undefined;
}

const isTestFile = (file) => file.endsWith('.test.ts') || basename(file) === 'testing.ts';

/** The problem with importing `target` from `importer` (absolute paths), or undefined when it runs down the layers. */
export function layerProblem(importer, target) {
  const from = placeOf(relative(root, importer));
  if (!from || from.kind === 'tool') return undefined;
  if (from.kind === 'unplaced') return `${from.name} is in no layer; add it to LAYERS in eslint/layers.js (${ORDER})`;
  const here = from.layer;
  const relTarget = relative(root, target).split(sep).join('/');
  const to = placeOf(relTarget);
  if (!to) return undefined;
  if (to.kind === 'unplaced') return `${here.name} imports ${to.name}, which is in no layer; add it to LAYERS in eslint/layers.js (${ORDER})`;
  if (to.kind === 'tool') {
    if (isTestFile(importer) && relTarget.startsWith(TEST_HELPERS)) return undefined;
    const allowed = isTestFile(importer) ? `tests beside the code may import only ${TEST_HELPERS}` : 'code must not depend on test/, bench/ or demo/';
    return `${here.name} imports ${to.name}, which sits above every layer; ${allowed}: move what it needs into ${here.name} or a layer below`;
  }
  const there = to.layer;
  if (there === here || there.floor < here.floor) return undefined;
  if (there.floor === here.floor) {
    return `${here.name} imports ${there.name}, its sibling on the same floor; siblings share only through a lower layer: move what both need into internal/shared`;
  }
  return `${here.name} imports ${there.name}, a layer above it (${ORDER}); move what it needs down into ${here.name} or a lower layer, or have ${there.name} pass it in`;
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'import only down the layers: api ← shared ← subsystems ← openshift ← cli ← cmd' },
    schema: [],
    messages: { against: 'against the layer order: {{problem}}' },
  },
  create(context) {
    const importer = context.filename;
    const check = (source) => {
      if (!source || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
      const problem = layerProblem(importer, resolve(dirname(importer), source.value));
      if (problem) context.report({ node: source, messageId: 'against', data: { problem } });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source.type === 'Literal' ? node.source : undefined),
    };
  },
};

export default { rules: { 'one-way': rule } };
