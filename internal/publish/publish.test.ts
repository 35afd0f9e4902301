import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateDirectory } from '../shared/fbc/index.ts';
import { bundleImage, catalogImage, PublishContentError } from './index.ts';

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'publish-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function tree(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(tmp, name);
  await mkdir(dir, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

const ANNOTATIONS = `annotations:
  operators.operatorframework.io.bundle.mediatype.v1: registry+v1
  operators.operatorframework.io.bundle.manifests.v1: manifests/
  operators.operatorframework.io.bundle.metadata.v1: metadata/
  operators.operatorframework.io.bundle.package.v1: demo
  operators.operatorframework.io.bundle.channels.v1: stable,fast
  operators.operatorframework.io.bundle.channel.default.v1: stable
  com.example.extra: "yes"
`;

const CATALOG = `schema: olm.package
name: demo
defaultChannel: stable
---
schema: olm.channel
package: demo
name: stable
entries:
  - name: demo.v0.1.0
---
schema: olm.bundle
name: demo.v0.1.0
package: demo
image: quay.io/example/demo-bundle:v0.1.0
properties:
  - type: olm.package
    value: {packageName: demo, version: 0.1.0}
`;

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

describe('catalogImage', () => {
  it('puts a valid catalog under /configs with the configs label', async () => {
    const dir = await tree('catalog', { 'demo/catalog.yaml': CATALOG });
    expect(await catalogImage(dir)).toEqual({
      layers: [{ dir, prefix: '/configs' }],
      labels: { 'operators.operatorframework.io.index.configs.v1': '/configs' },
    });
  });

  it('refuses an invalid catalog with opm validate’s message, and a missing directory', async () => {
    const dir = await tree('bad-catalog', { 'a.json': '{"schema":"olm.package","name":"foo"}\n{"schema":"olm.package","name":"foo"}\n' });
    const err = await failure(catalogImage(dir));
    expect(err).toBeInstanceOf(PublishContentError);
    expect(err.message).toBe('duplicate package "foo"');
    expect(err.message).toBe(await validateDirectory(dir));
    expect((await failure(catalogImage(join(tmp, 'nope')))).message).toBe(`${join(tmp, 'nope')} is not a directory`);
  });
});

describe('bundleImage', () => {
  it('takes manifests/ and metadata/ and turns every annotation into a label', async () => {
    const dir = await tree('bundle', { 'manifests/csv.yaml': 'kind: ClusterServiceVersion\n', 'metadata/annotations.yaml': ANNOTATIONS, 'bundle.Dockerfile': 'FROM scratch\n' });
    expect(await bundleImage(dir)).toEqual({
      layers: [{ dir, include: ['manifests', 'metadata'] }],
      labels: {
        'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
        'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
        'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
        'operators.operatorframework.io.bundle.package.v1': 'demo',
        'operators.operatorframework.io.bundle.channels.v1': 'stable,fast',
        'operators.operatorframework.io.bundle.channel.default.v1': 'stable',
        'com.example.extra': 'yes',
      },
    });
  });

  it.each([
    ['no annotations', { 'manifests/csv.yaml': 'x' }, 'is not a registry+v1 bundle: it has no metadata/annotations.yaml'],
    ['no manifests', { 'metadata/annotations.yaml': ANNOTATIONS }, 'is not a registry+v1 bundle: it has no manifests/ directory'],
    [
      'another media type',
      { 'manifests/a.yaml': 'x', 'metadata/annotations.yaml': ANNOTATIONS.replace('registry+v1', 'plain+v0') },
      'is not a registry+v1 bundle: metadata/annotations.yaml sets operators.operatorframework.io.bundle.mediatype.v1 to "plain+v0"',
    ],
    [
      'no package',
      { 'manifests/a.yaml': 'x', 'metadata/annotations.yaml': 'annotations:\n  a: b\n' },
      'is not a registry+v1 bundle: metadata/annotations.yaml has no operators.operatorframework.io.bundle.package.v1 annotation',
    ],
  ])('refuses a directory with %s in one line', async (name, files, why) => {
    const dir = await tree(`bundle-${name.replaceAll(' ', '-')}`, files);
    const err = await failure(bundleImage(dir));
    expect(err).toBeInstanceOf(PublishContentError);
    expect(err.message).toBe(`${dir} ${why}`);
  });

  it('names annotations.yaml when it does not parse', async () => {
    const dir = await tree('bundle-bad-yaml', { 'manifests/a.yaml': 'x', 'metadata/annotations.yaml': 'annotations: [\n' });
    const err = await failure(bundleImage(dir));
    expect(err.message).toMatch(new RegExp(`^${join(dir, 'metadata/annotations.yaml').replaceAll('.', '\\.')}: `));
    expect(err.message).not.toContain('\n');
  });
});
