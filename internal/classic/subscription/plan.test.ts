import { describe, expect, it } from 'vitest';
import type { RegistryV1 } from '../../shared/registryv1/index.ts';
import { bundleSteps, propertiesAnnotation, rbacObjects, subscriptionStep } from './index.ts';
import { bindingHash, inlineBundleSteps } from './plan.ts';

const rules = [
  { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] },
  { verbs: ['*'], nonResourceURLs: ['/metrics<&>'] },
];
const csv = (install: object) => ({
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'ClusterServiceVersion',
  metadata: { name: 'op.v1.0.0', namespace: 'ns1' },
  spec: { install: { strategy: 'deployment', spec: install } },
});
const names = (objs: { kind?: string; metadata: { name?: string } }[]): string[] => objs.map((o) => `${o.kind}/${o.metadata.name}`);

describe('rbacObjects (R/rbac.go)', () => {
  // Names and hash labels computed by Go's encoding/json + sha224 + big.Int.Text(62) over the same structs.
  it('names Roles/RoleBindings and ClusterRoles/Bindings as upstream’s generateName, with the content hash labels', () => {
    const objs = rbacObjects(csv({ permissions: [{ serviceAccountName: 'op-sa', rules }], clusterPermissions: [{ serviceAccountName: 'op-sa', rules }] }));
    expect(names(objs)).toEqual([
      'ServiceAccount/op-sa',
      'Role/op.v1.0.0-op-sa-3UpbQtKBwhNQDIN9TDVegH1uLaSJUGUm3vlBjc',
      'RoleBinding/op.v1.0.0-op-sa-3UpbQtKBwhNQDIN9TDVegH1uLaSJUGUm3vlBjc',
      'ClusterRole/op.v1.0.0-2xTQ1tk7Fwm1Et4WSegTzmr3d3hcj9YTSPeriq',
      'ClusterRoleBinding/op.v1.0.0-2xTQ1tk7Fwm1Et4WSegTzmr3d3hcj9YTSPeriq',
    ]);
    expect(objs[1]!.metadata.labels).toEqual({
      'olm.owner': 'op.v1.0.0',
      'olm.owner.namespace': 'ns1',
      'olm.owner.kind': 'ClusterServiceVersion',
      'olm.permissions.hash': '927Ls3LJVGNwH4jpvi1XZ8Gria78z0w2kA3m9e',
    });
    expect(objs[0]!.metadata).toMatchObject({ namespace: 'ns1', ownerReferences: [{ kind: 'ClusterServiceVersion', name: 'op.v1.0.0', blockOwnerDeletion: false, controller: false }] });
  });

  it('hashes a binding’s roleRef and subjects', () => {
    const objs = rbacObjects({ ...csv({ permissions: [{ serviceAccountName: 'op-sa', rules }] }) });
    const binding = objs.find((o) => o.kind === 'RoleBinding')!;
    expect(binding.metadata.labels?.['olm.permissions.hash']).toBe(bindingHash('Role', binding.metadata.name ?? '', { kind: 'ServiceAccount', name: 'op-sa', namespace: 'ns1' }));
    expect(bindingHash('Role', 'r1', { kind: 'ServiceAccount', name: 'op-sa', namespace: 'ns1' })).toBe('bozS5DFeVsGacKze9DIOQQ8Jq9rizv2Z02lp98');
    expect((binding as unknown as { subjects: unknown[] }).subjects).toEqual([{ kind: 'ServiceAccount', name: 'op-sa', namespace: 'ns1' }]);
  });

  it('leaves out the default ServiceAccount and refuses another install strategy', () => {
    expect(names(rbacObjects(csv({ permissions: [{ serviceAccountName: 'default', rules }] }))).map((n) => n.split('/')[0])).toEqual(['Role', 'RoleBinding']);
    expect(() => rbacObjects({ ...csv({}), spec: { install: { strategy: 'helm' } } } as never)).toThrow('could not assert strategy implementation as deployment for CSV op.v1.0.0');
  });
});

describe('steps', () => {
  const bundle: RegistryV1 = {
    packageName: 'op',
    csv: { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', metadata: { name: 'op.v1.0.0' }, spec: { replaces: 'x' } } as never,
    crds: [{ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'ws.x.io' } }],
    others: [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' } }],
  };
  const catalog = { name: 'cat', namespace: 'olm' };

  it('NewStepsFromBundle: the CSV in the namespace with replaces and the properties annotation, Secrets as BundleSecret', () => {
    const steps = bundleSteps(bundle, { namespace: 'ns1', replaces: 'op.v0.9.0', catalog, properties: [{ type: 'olm.package', value: '{"packageName":"op","version":"1.0.0"}' }] });
    expect(steps.map((s) => `${s.resource.group}/${s.resource.version}/${s.resource.kind}/${s.resource.name}`)).toEqual([
      'operators.coreos.com/v1alpha1/ClusterServiceVersion/op.v1.0.0',
      'apiextensions.k8s.io/v1/CustomResourceDefinition/ws.x.io',
      '/v1/BundleSecret/s',
      '/v1/Service/svc',
    ]);
    const manifest = JSON.parse(steps[0]!.resource.manifest!);
    expect(manifest.metadata).toEqual({ name: 'op.v1.0.0', namespace: 'ns1', annotations: { 'operatorframework.io/properties': '{"properties":[{"type":"olm.package","value":{"packageName":"op","version":"1.0.0"}}]}' } });
    expect(manifest.spec.replaces).toBe('op.v0.9.0');
    expect(steps.every((s) => s.status === 'Unknown' && s.resolving === 'op.v1.0.0' && s.resource.sourceName === 'cat' && s.resource.sourceNamespace === 'olm')).toBe(true);
    expect(JSON.parse(bundleSteps(bundle, { namespace: 'ns1', replaces: '', catalog, properties: [] })[0]!.resource.manifest!).spec).toEqual({});
  });

  it('refuses a bundle CSV without apiVersion or kind (upstream’s fatal errors)', () => {
    expect(() => bundleSteps({ ...bundle, csv: { ...bundle.csv, apiVersion: '' } as never }, { namespace: 'n', replaces: '', catalog, properties: [] })).toThrow('bundle CSV op.v1.0.0 missing APIVersion');
    expect(() => bundleSteps({ ...bundle, csv: { ...bundle.csv, kind: '' } as never }, { namespace: 'n', replaces: '', catalog, properties: [] })).toThrow('bundle CSV op.v1.0.0 missing Kind');
  });

  it('propertiesAnnotation is {} without properties', () => {
    expect(propertiesAnnotation([])).toBe('{}');
  });

  it('a dependency Subscription step is named <package>-<channel>-<catalog>-<namespace>', () => {
    const s = subscriptionStep('ns1', { package: 'dep', channel: 'stable', catalog, startingCSV: 'dep.v1' });
    expect(s.resource).toMatchObject({ kind: 'Subscription', group: 'operators.coreos.com', version: 'v1alpha1', name: 'dep-stable-cat-olm' });
    expect(s.resolving).toBe('dep.v1');
  });
});

describe('inlineBundleSteps (R/steps.go NewStepResourceFromBundle over a bundle without an image)', () => {
  const catalog = { name: 'cat', namespace: 'olm' };
  const options = { namespace: 'ns1', replaces: 'op.v0.9.0', catalog, properties: [{ type: 'olm.package', value: '{"packageName":"op","version":"1.0.0"}' }] };
  const theCsv = { ...csv({ clusterPermissions: [{ serviceAccountName: 'op-sa', rules }] }), metadata: { name: 'op.v1.0.0' } };
  const crd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' } };
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } };

  it('the CSV from csvJson, the other objects in order (the CSV object skipped), then the CSV’s RBAC; each resolving the bundle name', () => {
    const steps = inlineBundleSteps('op.v1.0.0', { csvJson: JSON.stringify(theCsv), objects: [JSON.stringify(secret), JSON.stringify(theCsv), JSON.stringify(crd)] }, options);
    expect(steps.map((s) => `${s.resource.kind}/${s.resource.name}`)).toEqual([
      'ClusterServiceVersion/op.v1.0.0',
      'BundleSecret/s',
      'CustomResourceDefinition/widgets.example.com',
      'ServiceAccount/op-sa',
      'ClusterRole/op.v1.0.0-2xTQ1tk7Fwm1Et4WSegTzmr3d3hcj9YTSPeriq',
      'ClusterRoleBinding/op.v1.0.0-2xTQ1tk7Fwm1Et4WSegTzmr3d3hcj9YTSPeriq',
    ]);
    expect(new Set(steps.map((s) => s.resolving))).toEqual(new Set(['op.v1.0.0']));
    expect(steps.every((s) => s.status === 'Unknown' && s.resource.sourceName === 'cat' && s.resource.sourceNamespace === 'olm')).toBe(true);
    const installed = JSON.parse(steps[0]!.resource.manifest!) as { metadata: { namespace: string; annotations: Record<string, string> }; spec: { replaces: string } };
    expect(installed.metadata.namespace).toBe('ns1');
    expect(installed.spec.replaces).toBe('op.v0.9.0');
    expect(installed.metadata.annotations['operatorframework.io/properties']).toBe(propertiesAnnotation(options.properties));
  });

  it('fails as upstream: a CSV that is not JSON, one without apiVersion, an object without kind', () => {
    expect(() => inlineBundleSteps('op.v1.0.0', { csvJson: '', objects: [] }, options)).toThrow('unexpected end of JSON input');
    expect(() => inlineBundleSteps('op.v1.0.0', { csvJson: '{"kind":"ClusterServiceVersion","metadata":{"name":"x"}}', objects: [] }, options)).toThrow('bundle CSV x missing APIVersion');
    expect(() => inlineBundleSteps('op.v1.0.0', { csvJson: JSON.stringify(theCsv), objects: ['{"apiVersion":"v1"}'] }, options)).toThrow(`Object 'Kind' is missing in '{"apiVersion":"v1"}'`);
  });
});
