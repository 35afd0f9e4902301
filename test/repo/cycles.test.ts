// No import cycles: the files of api/, internal/ and cmd/ (tests beside the code left out) import each other in one
// direction only, counting type-only imports and `await import()` too, so the import map draws as floors. The same
// holds for folders (a capability under internal/, e.g. internal/shared/kube): two folders never import each
// other, whichever files carry the imports. A folder here is a capability as eslint's faces rules see it: the innermost
// folder with an index.ts (internal/cli/classic is part of internal/cli). Imports are read with TypeScript's own pre-processor, which sees every
// static, type-only and dynamic import with a literal specifier.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const TREES = ['api', 'internal', 'cmd'];

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await sources(path)));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Repository-relative file → the repository-relative files it imports (relative specifiers only). */
async function importGraph(): Promise<Map<string, Set<string>>> {
  const files = (await Promise.all(TREES.map((t) => sources(join(root, t))))).flat();
  const known = new Set(files.map((f) => relative(root, f)));
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const info = ts.preProcessFile(await readFile(file, 'utf8'), true, true);
    const targets = new Set<string>();
    for (const i of info.importedFiles) {
      if (!i.fileName.startsWith('.')) continue;
      const target = relative(root, resolve(dirname(file), i.fileName));
      if (known.has(target)) targets.add(target);
    }
    graph.set(relative(root, file), targets);
  }
  return graph;
}

/** The strongly connected components of more than one node (Tarjan), each sorted; a self-import counts too. */
function cycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1 || graph.get(v)?.has(v)) found.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/** A file's folder: under internal/ its capability (the innermost folder with an index.ts), else api/<group>, cmd/<binary>. */
function folderOf(file: string): string {
  const parts = file.split('/').slice(0, -1);
  if (parts[0] !== 'internal') return parts.slice(0, 2).join('/');
  for (let n = parts.length; n > 1; n--) if (existsSync(join(root, ...parts.slice(0, n), 'index.ts'))) return parts.slice(0, n).join('/');
  return parts.join('/');
}

describe('the import map', () => {
  it('has no file-level import cycle', async () => {
    expect(cycles(await importGraph())).toEqual([]);
  });

  it('has no folder-level import cycle', async () => {
    const folders = new Map<string, Set<string>>();
    for (const [file, targets] of await importGraph()) {
      const from = folderOf(file);
      const set = folders.get(from) ?? new Set<string>();
      for (const t of targets) if (folderOf(t) !== from) set.add(folderOf(t));
      folders.set(from, set);
    }
    expect(cycles(folders)).toEqual([]);
  });

  it('finds a cycle when there is one (the check itself)', () => {
    const graph = new Map([
      ['a.ts', new Set(['b.ts'])],
      ['b.ts', new Set(['c.ts'])],
      ['c.ts', new Set(['a.ts'])],
      ['d.ts', new Set(['a.ts'])],
      ['e.ts', new Set(['e.ts'])],
    ]);
    expect(cycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  });
});
