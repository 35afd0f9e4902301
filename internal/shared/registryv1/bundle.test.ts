import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BundleLoadError, loadRegistryV1 } from './bundle.ts';

const root = mkdtempSync(join(tmpdir(), 'registryv1-bundle-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
function bundleDir(files: Record<string, string>): string {
  const dir = join(root, String(n++));
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), content);
  }
  return dir;
}

const ANNOTATIONS = 'annotations:\n  operators.operatorframework.io.bundle.package.v1: pkg\n';
const CSV = 'apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: pkg.v1.0.0\n';

describe('loadRegistryV1', () => {
  it('sorts manifests into the CSV, CRDs and others, flattening lists and skipping empty documents; JSON files too', async () => {
    const dir = bundleDir({
      'metadata/annotations.yaml': ANNOTATIONS,
      'manifests/a.yaml': `${CSV}---\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: x.io\n`,
      'manifests/b.json': '{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c1"}},{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s1"}}]}',
    });
    const rv1 = await loadRegistryV1(dir);
    expect(rv1.packageName).toBe('pkg');
    expect(rv1.csv.metadata.name).toBe('pkg.v1.0.0');
    expect(rv1.crds.map((c) => c.metadata.name)).toEqual(['x.io']);
    expect(rv1.others.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['ConfigMap/c1', 'Secret/s1']);
  });

  it('an empty package annotation is kept empty (the package-name check reports it)', async () => {
    const rv1 = await loadRegistryV1(bundleDir({ 'metadata/annotations.yaml': 'annotations: {}\n', 'manifests/csv.yaml': CSV }));
    expect(rv1.packageName).toBe('');
  });

  it('appends metadata/properties.yaml to the CSV olm.properties annotation as Go encodes it', async () => {
    const rv1 = await loadRegistryV1(
      bundleDir({
        'metadata/annotations.yaml': ANNOTATIONS,
        'metadata/properties.yaml': 'properties:\n- type: olm.maxOpenShiftVersion\n  value: "4.16"\n- type: custom\n  value: {z: 1, a: "<b>"}\n',
        'manifests/csv.yaml': `${CSV}  annotations:\n    olm.properties: '[{"type":"first","value":{"y":true,"b":null}}]'\n`,
      }),
    );
    expect(rv1.csv.metadata.annotations?.['olm.properties']).toBe(
      '[{"type":"first","value":{"y":true,"b":null}},{"type":"olm.maxOpenShiftVersion","value":"4.16"},{"type":"custom","value":{"a":"\\u003cb\\u003e","z":1}}]',
    );
  });

  it.each<{ name: string; files: Record<string, string>; want: string }>([
    { name: 'no annotations file', files: { 'manifests/csv.yaml': CSV }, want: 'open metadata/annotations.yaml: no such file or directory' },
    { name: 'no manifests directory', files: { 'metadata/annotations.yaml': ANNOTATIONS }, want: 'stat manifests: no such file or directory' },
    {
      name: 'a subdirectory in manifests',
      files: { 'metadata/annotations.yaml': ANNOTATIONS, 'manifests/csv.yaml': CSV, 'manifests/sub/x.yaml': CSV },
      want: 'subdirectories are not allowed within the "manifests" directory of the bundle image filesystem: found "manifests/sub"',
    },
    {
      name: 'no CSV',
      files: { 'metadata/annotations.yaml': ANNOTATIONS, 'manifests/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n' },
      want: 'no ClusterServiceVersion found in "manifests"',
    },
    {
      name: 'a document without kind',
      files: { 'metadata/annotations.yaml': ANNOTATIONS, 'manifests/csv.yaml': `${CSV}---\nmetadata:\n  name: x\napiVersion: v1\n` },
      want: 'error parsing objects in "manifests/csv.yaml": Object \'Kind\' is missing in \'{"apiVersion":"v1","metadata":{"name":"x"}}\'',
    },
  ])('fails with upstream wording: $name', async ({ files, want }) => {
    const err = await loadRegistryV1(bundleDir(files)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BundleLoadError);
    expect((err as Error).message).toBe(want);
  });
});
