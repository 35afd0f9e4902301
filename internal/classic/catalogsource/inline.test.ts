// A bundle's manifests as the registry API serves them (operator-registry: alpha/declcfg/load.go readBundleObjects,
// pkg/api/model_to_api.go ConvertModelBundleToAPIBundle and convertModelPropertiesToAPIProperties).
import { describe, expect, it } from 'vitest';
import type { ContentBundle } from './content.ts';
import { bundleCsvJson, bundleManifests, servedProperties } from './inline.ts';

const object = (text: string): { type: string; value: string } => ({ type: 'olm.bundle.object', value: JSON.stringify({ data: Buffer.from(text).toString('base64') }) });
const bundle = (properties: ContentBundle['properties'], extra: Partial<ContentBundle> = {}): ContentBundle => ({
  name: 'op.v1.0.0',
  package: 'op',
  image: '',
  version: '1.0.0',
  properties: [{ type: 'olm.package', value: '{"packageName":"op","version":"1.0.0"}' }, ...properties],
  ...extra,
});

describe('bundleManifests', () => {
  it('every olm.bundle.object as JSON in property order (YAML converted); the CSV the first of kind ClusterServiceVersion', () => {
    const m = bundleManifests(
      bundle([
        object('kind: CustomResourceDefinition\napiVersion: apiextensions.k8s.io/v1\nmetadata:\n  name: a.example.com\n'),
        object('{"kind":"ClusterServiceVersion","apiVersion":"operators.coreos.com/v1alpha1","metadata":{"name":"op.v1.0.0"}}'),
        object('{"kind":"ClusterServiceVersion","metadata":{"name":"second"}}'),
      ]),
      undefined,
    );
    expect(m.objects.map((o) => JSON.parse(o) as { kind: string })).toEqual([
      { kind: 'CustomResourceDefinition', apiVersion: 'apiextensions.k8s.io/v1', metadata: { name: 'a.example.com' } },
      { kind: 'ClusterServiceVersion', apiVersion: 'operators.coreos.com/v1alpha1', metadata: { name: 'op.v1.0.0' } },
      { kind: 'ClusterServiceVersion', metadata: { name: 'second' } },
    ]);
    expect(JSON.parse(m.csvJson)).toMatchObject({ metadata: { name: 'op.v1.0.0' } });
    expect(bundleCsvJson(bundle([object('{"kind":"ConfigMap"}'), object(m.csvJson), object('not: [valid')]), undefined)).toBe(m.csvJson);
  });

  it('without a CSV object, the one built from a single olm.csv.metadata, which is then the only object', () => {
    const m = bundleManifests(bundle([{ type: 'olm.csv.metadata', value: '{"displayName":"Op"}' }]), { name: 'op', defaultChannel: 'a', channels: [], description: 'pkg text' });
    expect(JSON.parse(m.csvJson)).toMatchObject({
      kind: 'ClusterServiceVersion',
      apiVersion: 'operators.coreos.com/v1alpha1',
      metadata: { name: 'op.v1.0.0' },
      spec: { displayName: 'Op', description: 'pkg text', install: { strategy: 'deployment' }, version: '1.0.0' },
    });
    expect(m.objects).toEqual([m.csvJson]);
  });

  it('a bundle with neither has no CSV and no objects', () => {
    expect(bundleManifests(bundle([]), undefined)).toEqual({ csvJson: '', objects: [] });
  });

  it('a bundle a registry server served keeps the server’s csvJson and objects', () => {
    const b = bundle([object('{"kind":"ConfigMap"}')], { csvJson: '{"kind":"ClusterServiceVersion"}', objects: ['{"kind":"Secret"}'] });
    expect(bundleManifests(b, undefined)).toEqual({ csvJson: '{"kind":"ClusterServiceVersion"}', objects: ['{"kind":"Secret"}'] });
  });
});

describe('servedProperties', () => {
  it('drops olm.bundle.object and olm.csv.metadata, keeps the rest in order', () => {
    const props = [{ type: 'olm.gvk', value: '{}' }, object('{}'), { type: 'olm.csv.metadata', value: '{}' }, { type: 'olm.package', value: '{}' }];
    expect(servedProperties(props).map((p) => p.type)).toEqual(['olm.gvk', 'olm.package']);
  });
});
