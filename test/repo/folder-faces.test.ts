// The folder-face rule (eslint/folder-faces.js) fails lint on a deep import and lets the faces through; run with
// ESLint's own API on sources placed in the real tree, so the project's config and paths apply as in `make test`.
import { rm, writeFile } from 'node:fs/promises';
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
  await Promise.all(written.map((f) => rm(f, { force: true })));
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
