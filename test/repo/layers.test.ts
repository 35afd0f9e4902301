// The layer rule (eslint/layers.js) fails lint on an import against the layer order and lets downward imports
// through; run with ESLint's own API on sources placed in the real tree, so the project's config and paths apply as
// in `make test`, and over its pure `layerProblem` for the cases a probe file cannot stand for (tests beside code).
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a JavaScript module without types, as eslint.config.js loads it
import { layerProblem } from '../../eslint/layers.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({ cwd: root });
const written: string[] = [];
const ORDER = 'api ← internal/shared ← internal/{catalogd,operator-controller,classic,publish} ← internal/openshift ← internal/cli ← cmd';

async function lint(relativePath: string, source: string): Promise<string[]> {
  const file = `${root}${relativePath}`;
  await writeFile(file, source);
  written.push(file);
  const [result] = await eslint.lintFiles([file]);
  return (result?.messages ?? []).filter((m) => m.ruleId === 'layers/one-way').map((m) => m.message);
}

const problem = (importer: string, target: string): string | undefined => layerProblem(join(root, importer), join(root, target)) as string | undefined;

afterAll(async () => {
  await Promise.all(written.map((f) => rm(f, { force: true })));
});

describe('layers/one-way', () => {
  it('refuses an import of a sibling on the same floor, naming both and where the shared code goes', async () => {
    const messages = await lint(
      'internal/classic/layers-probe.test-tmp.ts',
      "import { renderBundle } from '../operator-controller/render/index.ts';\nexport const r = renderBundle;\n",
    );
    expect(messages).toEqual([
      'against the layer order: internal/classic imports internal/operator-controller, its sibling on the same floor; siblings share only through a lower layer: move what both need into internal/shared',
    ]);
  });

  it('refuses an import of a higher layer, type-only, dynamic and re-exports too', async () => {
    const messages = await lint(
      'internal/shared/layers-probe.test-tmp.ts',
      [
        "import type { CliCommand } from '../cli/index.ts';",
        "export type { ClusterOperatorSetup } from '../openshift/index.ts';",
        "export const load = () => import('../catalogd/index.ts');",
        'export type C = CliCommand;',
      ].join('\n') + '\n',
    );
    expect(messages).toEqual([
      `against the layer order: internal/shared imports internal/cli, a layer above it (${ORDER}); move what it needs down into internal/shared or a lower layer, or have internal/cli pass it in`,
      `against the layer order: internal/shared imports internal/openshift, a layer above it (${ORDER}); move what it needs down into internal/shared or a lower layer, or have internal/openshift pass it in`,
      `against the layer order: internal/shared imports internal/catalogd, a layer above it (${ORDER}); move what it needs down into internal/shared or a lower layer, or have internal/catalogd pass it in`,
    ]);
  });

  it('refuses api importing anything above it, and cmd importing test/', async () => {
    expect(await lint('api/layers-probe.test-tmp.ts', "export { GO_YAML_SCHEMA } from '../internal/shared/fbc/index.ts';\n")).toEqual([
      `against the layer order: api imports internal/shared, a layer above it (${ORDER}); move what it needs down into api or a lower layer, or have internal/shared pass it in`,
    ]);
    expect(await lint('cmd/layers-probe.test-tmp.ts', "export { registry } from '../test/support/env.ts';\n")).toEqual([
      'against the layer order: cmd imports test, which sits above every layer; code must not depend on test/, bench/ or demo/: move what it needs into cmd or a layer below',
    ]);
  });

  it('lets through imports down the layers and inside a layer', async () => {
    const messages = await lint(
      'internal/cli/layers-probe.test-tmp.ts',
      [
        "import type { KubeObject } from '../../api/meta/v1.ts';",
        "import { GO_YAML_SCHEMA } from '../shared/fbc/index.ts';",
        "import { renderBundle } from '../operator-controller/render/index.ts';",
        "import { bundleImage } from '../publish/index.ts';",
        "import { runCaptured } from './index.ts';",
        "export const load = () => import('../openshift/index.ts');",
        'export type K = KubeObject;',
        'export const all = [GO_YAML_SCHEMA, renderBundle, bundleImage, runCaptured];',
      ].join('\n') + '\n',
    );
    expect(messages).toEqual([]);
  });

  it('lets test/, bench/ and demo/ import anything', async () => {
    const messages = await lint(
      'bench/layers-probe.test-tmp.ts',
      [
        "import { runCaptured } from '../internal/cli/index.ts';",
        "import { registry } from '../test/support/env.ts';",
        'export const all = [runCaptured, registry];',
      ].join('\n') + '\n',
    );
    expect(messages).toEqual([]);
    expect(problem('test/integration/x.test.ts', 'bench/production.ts')).toBeUndefined();
    expect(problem('demo/x.ts', 'cmd/bundle.ts')).toBeUndefined();
  });

  it('holds tests beside the code to their folder’s layer, except for the fixtures of test/support/', () => {
    expect(problem('internal/shared/image/tar.test.ts', 'test/support/images.ts')).toBeUndefined();
    expect(problem('internal/classic/csv/testing.ts', 'test/support/kube.ts')).toBeUndefined();
    expect(problem('internal/shared/image/tar.test.ts', 'internal/classic/csv/index.ts')).toBe(
      `internal/shared imports internal/classic, a layer above it (${ORDER}); move what it needs down into internal/shared or a lower layer, or have internal/classic pass it in`,
    );
    expect(problem('internal/publish/publish.test.ts', 'internal/operator-controller/render/index.ts')).toMatch(/^internal\/publish imports internal\/operator-controller, its sibling/);
    expect(problem('internal/shared/image/apply.test.ts', 'bench/production.ts')).toBe(
      'internal/shared imports bench, which sits above every layer; tests beside the code may import only test/support/: move what it needs into internal/shared or a layer below',
    );
    expect(problem('internal/shared/image/apply.ts', 'test/support/images.ts')).toBe(
      'internal/shared imports test, which sits above every layer; code must not depend on test/, bench/ or demo/: move what it needs into internal/shared or a layer below',
    );
  });

  it('requires every folder under internal/ to sit in a layer', () => {
    expect(problem('internal/newthing/index.ts', 'internal/shared/kube/index.ts')).toBe(
      `internal/newthing is in no layer; add it to LAYERS in eslint/layers.js (${ORDER})`,
    );
    expect(problem('internal/cli/index.ts', 'internal/newthing/index.ts')).toBe(
      `internal/cli imports internal/newthing, which is in no layer; add it to LAYERS in eslint/layers.js (${ORDER})`,
    );
  });

  it('has no opinion on files outside the layers (root config, eslint/, types/)', () => {
    expect(problem('vitest.config.ts', 'internal/cli/index.ts')).toBeUndefined();
    expect(problem('internal/shared/image/apply.ts', 'types/undici-core.d.ts')).toBeUndefined();
  });
});
