// opm's validation error tree (alpha/model/error.go): a node prints `message:` followed by its
// children, each introduced by `├── ` (or `└── ` for the last) with continuation lines indented
// by `│   ` (or four spaces); a node without children prints just its message; the whole text is
// trimmed. A node that is already being printed is skipped (cycle guard, as upstream).

import type { BlobRef, ErrorTree } from './messages.ts';
import { oneLine } from '../toolkit/index.ts';

export interface TreeBuilder {
  /** Adds a leaf error. */
  add(message: string): void;
  /** Adds a sub-tree if it has any errors. */
  addTree(child: TreeBuilder): void;
  /** The node, or undefined when it has no errors (Go's orNil). */
  build(): ErrorTree | undefined;
}

export function newTree(message: string, ref?: BlobRef): TreeBuilder {
  const children: (ErrorTree | string)[] = [];
  return {
    add: (m) => void children.push(m),
    addTree: (child) => {
      const built = child.build();
      if (built !== undefined) children.push(built);
    },
    build: () => (children.length === 0 ? undefined : ref ? { message, children, ref } : { message, children }),
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

function renderLine(node: ErrorTree | string, visiting: Set<ErrorTree>): string {
  if (typeof node === 'string') return oneLine(node);
  if (node.children.length === 0) return oneLine(node.message);
  visiting.add(node);
  const children = node.children.filter((c) => typeof c === 'string' || !visiting.has(c)).map((c) => renderLine(c, visiting));
  visiting.delete(node);
  const body = children.length === 1 ? (children[0] ?? '') : `[${children.join('; ')}]`;
  return `${oneLine(node.message)}: ${body}`;
}

/**
 * The same tree in one line, for a status message: a node's only child follows `message: `, several are
 * `[a; b]` (`invalid index: invalid package "foo": [default channel must be set; package must contain at least one channel]`).
 */
export function renderTreeLine(tree: ErrorTree): string {
  return renderLine(tree, new Set());
}
