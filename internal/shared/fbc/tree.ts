// opm's validation error tree (alpha/model/error.go): a node prints `message:` followed by its
// children, each introduced by `├── ` (or `└── ` for the last) with continuation lines indented
// by `│   ` (or four spaces); a node without children prints just its message; the whole text is
// trimmed. A node that is already being printed is skipped (cycle guard, as upstream).

import type { ErrorTree } from './messages.ts';

export interface TreeBuilder {
  /** Adds a leaf error. */
  add(message: string): void;
  /** Adds a sub-tree if it has any errors. */
  addTree(child: TreeBuilder): void;
  /** The node, or undefined when it has no errors (Go's orNil). */
  build(): ErrorTree | undefined;
}

export function newTree(message: string): TreeBuilder {
  const children: (ErrorTree | string)[] = [];
  return {
    add: (m) => void children.push(m),
    addTree: (child) => {
      const built = child.build();
      if (built !== undefined) children.push(built);
    },
    build: () => (children.length === 0 ? undefined : { message, children }),
  };
}

function render(node: ErrorTree | string, visiting: Set<ErrorTree>): string {
  if (typeof node === 'string') return node;
  if (node.children.length === 0) return node.message;
  visiting.add(node);
  const children = node.children.filter((c) => typeof c === 'string' || !visiting.has(c));
  let out = `${node.message}:`;
  children.forEach((child, i) => {
    const last = i === children.length - 1;
    const lines = render(child, visiting).split('\n');
    out += `\n${last ? '└── ' : '├── '}${lines[0] ?? ''}`;
    for (const line of lines.slice(1)) out += `\n${last ? '    ' : '│   '}${line}`;
  });
  visiting.delete(node);
  return out;
}

/** The text opm prints for an error tree. */
export function renderTree(tree: ErrorTree): string {
  return render(tree, new Set()).trim();
}
