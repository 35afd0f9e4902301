// The folder-face rules (eslint/folder-faces.js) fail lint on a deep import and on an index.ts that does more than
// re-export, and let the faces through; run with ESLint's own API on sources placed in the real tree, so the
// project's config and paths apply as in `make test`.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({ cwd: root });
const written: string[] = [];

async function lint(relativePath: string, source: string): Promise<string[]> {
  const file = `${root}${relativePath}`;
  await writeFile(file, source);
  written.push(file);
  const [result] = await eslint.lintFiles([file]);
  return (result?.messages ?? []).filter((m) => m.ruleId === 'faces/index-only').map((m) => m.message);
}

afterAll(async () => {
  await Promise.all(written.map((f) => rm(f, { force: true, recursive: true })));
});

describe('faces/index-only', () => {
  it('refuses a deep import from another folder, naming the file and the face to use', async () => {
    const messages = await lint(
      'cmd/faces-probe.test-tmp.ts',
      "import { LocalDirStore } from '../internal/catalogd/storage/localdir.ts';\nexport const s = LocalDirStore;\n",
    );
    expect(messages).toEqual([
      'deep import: internal/catalogd/storage/localdir.ts is inside internal/catalogd/storage/; import it through internal/catalogd/storage/index.ts',
    ]);
  });

  it('refuses a sibling capability’s inner file, dynamic imports and re-exports too', async () => {
    const messages = await lint(
      'internal/operator-controller/render/faces-probe.test-tmp.ts',
      [
        "export type { CatalogContentClient } from '../contentclient/types.ts';",
        "export const load = () => import('../../shared/image/apply.ts');",
      ].join('\n') + '\n',
    );
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(/contentclient\/types\.ts is inside internal\/operator-controller\/contentclient\//);
    expect(messages[1]).toMatch(/shared\/image\/apply\.ts is inside internal\/shared\/image\//);
  });

  it('lets through index.ts, testing.ts and files of the importer’s own folder', async () => {
    const messages = await lint(
      'internal/catalogd/server/faces-probe.test-tmp.ts',
      [
        "import { LocalDirStore } from '../storage/index.ts';",
        "import { writeSyntheticCatalog } from '../storage/testing.ts';",
        "import { answerPlainHttp } from './tls.ts';",
        'export const all = [LocalDirStore, writeSyntheticCatalog, answerPlainHttp];',
      ].join('\n') + '\n',
    );
    expect(messages).toEqual([]);
  });
});

describe('faces/reexports-only', () => {
  async function lintReexports(relativePath: string, source: string): Promise<string[]> {
    const file = `${root}${relativePath}`;
    await mkdir(`${root}internal/faces-probe-tmp`, { recursive: true });
    written.push(`${root}internal/faces-probe-tmp`);
    await writeFile(file, source);
    const [result] = await eslint.lintFiles([file]);
    return (result?.messages ?? []).filter((m) => m.ruleId === 'faces/reexports-only').map((m) => m.message);
  }

  it('refuses anything but re-exports in a capability’s index.ts, naming the file', async () => {
    const messages = await lintReexports(
      'internal/faces-probe-tmp/index.ts',
      [
        '// a comment is fine',
        "import { join } from 'node:path';",
        "export { x } from './x.ts';",
        'export const wired = join;',
        'export function setup(): void {}',
        'export interface Parts { a: string }',
      ].join('\n') + '\n',
    );
    expect(messages).toHaveLength(4);
    for (const m of messages) expect(m).toMatch(/^internal\/faces-probe-tmp\/index\.ts only re-exports/);
  });

  it('lets through export-from, export type-from and export * in index.ts, and anything in other files', async () => {
    expect(
      await lintReexports(
        'internal/faces-probe-tmp/index.ts',
        ["export { a, b as c } from './x.ts';", "export type { T } from './x.ts';", "export * from './y.ts';"].join('\n') + '\n',
      ),
    ).toEqual([]);
    expect(await lintReexports('internal/faces-probe-tmp/setup.ts', "import { join } from 'node:path';\nexport const wired = join;\n")).toEqual([]);
  });

  it('holds for every index.ts under internal/ and cmd/', async () => {
    const results = await new ESLint({ cwd: root, errorOnUnmatchedPattern: false }).lintFiles(['internal/**/index.ts', 'cmd/**/index.ts']);
    const problems = results.filter((r) => !r.filePath.includes('faces-probe-tmp')).flatMap((r) => r.messages.filter((m) => m.ruleId === 'faces/reexports-only').map((m) => `${r.filePath}:${m.line}`));
    expect(problems).toEqual([]);
  });
});
