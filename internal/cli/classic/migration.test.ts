import { describe, expect, it } from 'vitest';
import type { ClusterServiceVersion, InstallPlan, OperatorGroup, Subscription } from '../../../api/operators/index.ts';
import type { ClusterExtension, ClusterObjectSet } from '../../../api/v1/index.ts';
import { checkRow, classify, csvProperties, exitCode, installModeOf, type MigrationCheck, type MigrationFacts } from './migration.ts';

const NS = 'ops';
const sub = (over: Partial<Subscription['metadata']> = {}, status: Subscription['status'] = { installedCSV: 'foo.v1.0.0', state: 'AtLatestKnown', lastUpdated: '' }): Subscription => ({
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'Subscription',
  metadata: { name: 'foo', namespace: NS, ...over },
  spec: { name: 'foo', source: 'cat', sourceNamespace: 'olm', channel: 'stable' },
  status,
});
const csv = (spec: Partial<ClusterServiceVersion['spec']> = {}, meta: Partial<ClusterServiceVersion['metadata']> = {}, phase = 'Succeeded'): ClusterServiceVersion => ({
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'ClusterServiceVersion',
  metadata: { name: 'foo.v1.0.0', namespace: NS, ...meta },
  spec: { displayName: 'Foo', version: '1.0.0', install: { strategy: 'deployment' }, customresourcedefinitions: { owned: [{ name: 'widgets.foo.io', version: 'v1', kind: 'Widget' }] }, ...spec },
  status: { phase, reason: phase === 'Succeeded' ? 'InstallSucceeded' : 'ComponentUnhealthy' },
});
const og = (spec: OperatorGroup['spec'] = {}, namespaces = ['']): OperatorGroup => ({ apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup', metadata: { name: 'og', namespace: NS }, spec, status: { lastUpdated: '', namespaces } });

function facts(over: Partial<MigrationFacts> = {}): MigrationFacts {
  const s = over.sub ?? sub();
  return {
    sub: s,
    csv: csv(),
    operatorGroups: [og()],
    plans: [],
    subscriptions: [s],
    csvs: [],
    extensions: [],
    objectSets: [],
    catalogBundles: [{ catalog: 'v1-catalog', name: 'foo.v1.0.0', version: '1.0.0' }],
    catalogs: ['v1-catalog'],
    singleOwnNamespace: false,
    certificateProvider: { name: 'cert-manager', served: false },
    ...over,
  };
}

describe('migrate check verdicts', () => {
  it('eligible: AllNamespaces, no dependencies, the same bundle in a serving ClusterCatalog', () => {
    const c = classify(facts());
    expect(c).toMatchObject({ name: 'foo', namespace: NS, package: 'foo', csv: 'foo.v1.0.0', version: '1.0.0', verdict: 'eligible', installMode: 'AllNamespaces' });
    expect(c.reason).toBe('AllNamespaces; bundle foo.v1.0.0 in ClusterCatalog "v1-catalog"');
    expect(c.catalogBundle).toEqual({ catalog: 'v1-catalog', name: 'foo.v1.0.0', version: '1.0.0' });
    // a bundle of the same version under another name still resolves
    expect(classify(facts({ catalogBundles: [{ catalog: 'c', name: 'foo-renamed', version: '1.0.0' }] })).verdict).toBe('eligible');
  });

  it('OwnNamespace and SingleNamespace need SingleOwnNamespaceInstallSupport; MultiNamespace never moves', () => {
    const own = facts({ operatorGroups: [og({ targetNamespaces: [NS] }, [NS])] });
    expect(classify(own)).toMatchObject({
      verdict: 'ineligible',
      installMode: 'OwnNamespace',
      reason: 'installed OwnNamespace (OperatorGroup "og" targets "ops"); OLM v1 needs AllNamespaces unless operator-controller runs with SingleOwnNamespaceInstallSupport',
    });
    expect(classify({ ...own, singleOwnNamespace: true })).toMatchObject({ verdict: 'eligible', reason: 'OwnNamespace; bundle foo.v1.0.0 in ClusterCatalog "v1-catalog"' });
    expect(classify(facts({ operatorGroups: [og({ targetNamespaces: ['other'] }, ['other'])] })).reason).toMatch(/^installed SingleNamespace \(OperatorGroup "og" targets "other"\)/);
    expect(classify(facts({ operatorGroups: [og({ targetNamespaces: ['a', 'b'] }, ['a', 'b'])], singleOwnNamespace: true })).reason).toBe(
      'installed MultiNamespace (OperatorGroup "og" targets a, b); OLM v1 has no MultiNamespace install mode',
    );
    expect(installModeOf(og({}, ['']), NS).mode).toBe('AllNamespaces');
  });

  it('the OperatorGroup: none, several, a scoped service account, a label selector, UnsafeFailForward', () => {
    expect(classify(facts({ operatorGroups: [] })).reason).toBe('no OperatorGroup in namespace "ops"');
    expect(classify(facts({ operatorGroups: [og(), { ...og(), metadata: { name: 'og2', namespace: NS } }] })).reason).toBe('2 OperatorGroups in namespace "ops" (og, og2)');
    expect(classify(facts({ operatorGroups: [og({ serviceAccountName: 'installer' })] })).reason).toBe('OperatorGroup "og" installs as ServiceAccount "installer"; OLM v1 has no scoped install account');
    expect(classify(facts({ operatorGroups: [og({ selector: { matchLabels: { team: 'a' } } })] })).reason).toMatch(/selects its namespaces by label/);
    expect(classify(facts({ operatorGroups: [og({ upgradeStrategy: 'TechPreviewUnsafeFailForward' })] })).reason).toMatch(/upgradeStrategy TechPreviewUnsafeFailForward/);
  });

  it('declared dependencies: bundle properties (both annotation shapes) and required CRDs / APIServices', () => {
    const props = JSON.stringify({
      properties: [
        { type: 'olm.package', value: { packageName: 'foo', version: '1.0.0' } },
        { type: 'olm.package.required', value: { packageName: 'bar', versionRange: '>=1.0.0' } },
        { type: 'olm.gvk.required', value: { group: 'bar.io', version: 'v1', kind: 'Bar' } },
      ],
    });
    const c = classify(facts({ csv: csv({}, { annotations: { 'operatorframework.io/properties': props } }) }));
    expect(c.verdict).toBe('ineligible');
    expect(c.reasons).toEqual(['depends on package "bar" >=1.0.0 (olm.package.required)', 'depends on bar.io/v1 Bar (olm.gvk.required)']);
    expect(checkRow(c)).toEqual(['foo', NS, 'foo', '1.0.0', 'ineligible', 'depends on package "bar" >=1.0.0 (olm.package.required) (+1 more)']);
    expect(csvProperties(csv({}, { annotations: { 'operatorframework.io/properties': '[{"type":"olm.constraint","value":{}}]' } }))).toHaveLength(1);
    const required = classify(facts({ csv: csv({ customresourcedefinitions: { required: [{ name: 'bars.bar.io', version: 'v1', kind: 'Bar' }] } }) }));
    expect(required.reason).toBe('requires CRD bars.bar.io (spec.customresourcedefinitions.required)');
  });

  it('depended on: resolution made the Subscription for another operator, or another CSV requires its CRD or package', () => {
    expect(classify(facts({ sub: sub({ annotations: { 'olm.generated-by': 'install-abc' } }) })).reason).toBe('installed as a dependency of another operator (olm.generated-by: install-abc)');
    const needsWidgets = csv({ customresourcedefinitions: { required: [{ name: 'widgets.foo.io', version: 'v1', kind: 'Widget' }] } }, { name: 'app.v2', namespace: 'apps' });
    expect(classify(facts({ csvs: [needsWidgets] })).reason).toBe('depended on by apps/app.v2 (requires CRD widgets.foo.io)');
    const needsPkg = csv({}, { name: 'app.v3', namespace: 'apps', annotations: { 'operatorframework.io/properties': '{"properties":[{"type":"olm.package.required","value":{"packageName":"foo","versionRange":">=1"}}]}' } });
    expect(classify(facts({ csvs: [needsPkg] })).reason).toBe('depended on by apps/app.v3 (olm.package.required "foo")');
    // a copy of itself elsewhere is no dependent
    const copy = csv({ customresourcedefinitions: { required: [{ name: 'widgets.foo.io', version: 'v1', kind: 'Widget' }] } }, { name: 'x', namespace: 'other', labels: { 'olm.copiedFrom': NS } });
    expect(classify(facts({ csvs: [copy] })).verdict).toBe('eligible');
  });

  it('OperatorConditions in use, owned APIServices, webhooks without a certificate provider', () => {
    const oc = { apiVersion: 'operators.coreos.com/v2', kind: 'OperatorCondition', metadata: { name: 'foo.v1.0.0', namespace: NS }, spec: { conditions: [{ type: 'Upgradeable', status: 'False' as const, reason: 'r', message: 'm', lastTransitionTime: '' }] } };
    expect(classify(facts({ operatorCondition: oc })).reason).toBe('uses the OperatorCondition API (OperatorCondition "foo.v1.0.0" has conditions); OLM v1 does not support it');
    expect(classify(facts({ operatorCondition: { ...oc, spec: {} } })).verdict).toBe('eligible');
    const api = csv({ apiservicedefinitions: { owned: [{ name: 'x', group: 'metrics.foo.io', version: 'v1', kind: 'M' }] } });
    expect(classify(facts({ csv: api })).reason).toBe('owns APIService v1.metrics.foo.io; OLM v1 does not install APIServices');
    const hooks = csv({ webhookdefinitions: [{ type: 'ValidatingAdmissionWebhook', generateName: 'v.foo.io', deploymentName: 'd', sideEffects: 'None', admissionReviewVersions: ['v1'] }] as ClusterServiceVersion['spec']['webhookdefinitions'] });
    expect(classify(facts({ csv: hooks })).reason).toBe('has 1 webhook(s); OLM v1\'s certificate provider "cert-manager" needs cert-manager.io/v1, which the cluster does not serve');
    expect(classify(facts({ csv: hooks, certificateProvider: undefined })).reason).toBe(
      'has 1 webhook(s); OLM v1 needs a certificate provider for them and operator-controller has none (WebhookProvider gates off)',
    );
    expect(classify(facts({ csv: hooks, certificateProvider: { name: 'cert-manager', served: true } })).verdict).toBe('eligible');
    expect(classify(facts({ csv: hooks, certificateProvider: { name: 'openshift-serviceca', served: true } })).verdict).toBe('eligible');
  });

  it('the catalog: the package in no serving ClusterCatalog, or no bundle of the installed version', () => {
    expect(classify(facts({ catalogBundles: [] })).reason).toBe('package "foo" is in no serving ClusterCatalog');
    expect(classify(facts({ catalogBundles: [], catalogs: [] })).reason).toBe('package "foo" is in no ClusterCatalog (none is serving)');
    expect(classify(facts({ catalogBundles: [{ catalog: 'a', name: 'foo.v2.0.0', version: '2.0.0' }, { catalog: 'b', name: 'foo.v2.0.0', version: '2.0.0' }] })).reason).toBe(
      'no bundle of package "foo" at version 1.0.0 in ClusterCatalog a, b',
    );
  });

  it('the install: no installed CSV, a CSV not Succeeded, a copied CSV, an InstallPlan awaiting Manual approval', () => {
    expect(classify(facts({ sub: sub({}, { state: 'UpgradePending', lastUpdated: '' }), csv: undefined })).reason).toBe('no installed CSV (Subscription state UpgradePending)');
    expect(classify(facts({ csv: undefined })).reason).toBe('installed CSV "foo.v1.0.0" not found in namespace "ops"');
    expect(classify(facts({ sub: sub({}, { installedCSV: 'foo.v1.0.0', state: 'UpgradeFailed', lastUpdated: '' }) })).reason).toBe(
      'Subscription state is UpgradeFailed; it must be AtLatestKnown or UpgradePending',
    );
    expect(classify(facts({ csv: csv({}, {}, 'Failed') })).reason).toBe('CSV "foo.v1.0.0" is Failed (ComponentUnhealthy), not Succeeded');
    const copied = csv({}, { labels: { 'olm.copiedFrom': 'elsewhere' } });
    expect(classify(facts({ csv: copied })).reason).toMatch(/^CSV "foo.v1.0.0" is a copied CSV \(from elsewhere\)/);
    const plan: InstallPlan = {
      apiVersion: 'operators.coreos.com/v1alpha1',
      kind: 'InstallPlan',
      metadata: { name: 'install-x', namespace: NS },
      spec: { approval: 'Manual', approved: false, clusterServiceVersionNames: ['foo.v1.1.0'] },
      status: { phase: 'RequiresApproval', catalogSources: [] },
    } as InstallPlan;
    const pending = sub({}, { installedCSV: 'foo.v1.0.0', state: 'UpgradePending', installPlanRef: { name: 'install-x', namespace: NS }, lastUpdated: '' } as Subscription['status']);
    expect(classify(facts({ sub: pending, plans: [plan] })).reason).toBe('InstallPlan "install-x" awaits Manual approval (foo.v1.1.0); approve it or wait until it is gone first');
  });

  it('conflicting: a ClusterExtension installs the package, or another Subscription subscribes to it', () => {
    const ext = { metadata: { name: 'foo-ext' }, spec: { namespace: 'x', source: { sourceType: 'Catalog', catalog: { packageName: 'foo' } } } } as ClusterExtension;
    expect(classify(facts({ extensions: [ext] }))).toMatchObject({ verdict: 'conflicting', reason: 'ClusterExtension "foo-ext" already installs package "foo"' });
    const other = sub({ namespace: 'team-b' });
    expect(classify(facts({ subscriptions: [sub(), other] })).reason).toBe('Subscription team-b/foo also subscribes to package "foo"; OLM v1 installs a package once per cluster');
  });

  it('already-migrated: a ClusterObjectSet migrated from it holds the same package and bundle', () => {
    const cos = (owner?: string): ClusterObjectSet => ({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterObjectSet',
      metadata: {
        name: 'foo-1',
        labels: { 'olm.operatorframework.io/owner-name': 'foo' },
        annotations: { 'olm.operatorframework.io/migrated-from-subscription': 'true', 'olm.operatorframework.io/package-name': 'foo', 'olm.operatorframework.io/bundle-name': 'foo.v1.0.0' },
        ...(owner && { ownerReferences: [{ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', name: owner, uid: 'u', controller: true }] }),
      },
    });
    expect(classify(facts({ objectSets: [cos()] })).reason).toBe('ClusterObjectSet "foo-1" (olm.operatorframework.io/migrated-from-subscription) holds it; ClusterExtension "foo" not created yet');
    const ext = { metadata: { name: 'foo' }, spec: { namespace: 'x', source: { sourceType: 'Catalog', catalog: { packageName: 'foo' } } } } as ClusterExtension;
    expect(classify(facts({ objectSets: [cos('foo')], extensions: [ext] }))).toMatchObject({
      verdict: 'already-migrated',
      reason: 'ClusterObjectSet "foo-1" (olm.operatorframework.io/migrated-from-subscription) holds it, adopted by ClusterExtension "foo"',
    });
  });

  it('exit code by the worst verdict: 0 for eligible and already-migrated, 1 otherwise', () => {
    const of = (...verdicts: MigrationCheck['verdict'][]): MigrationCheck[] => verdicts.map((verdict) => ({ name: '', namespace: '', package: '', csv: '', version: '', verdict, reason: '', reasons: [] }));
    expect(exitCode(of())).toBe(0);
    expect(exitCode(of('eligible', 'already-migrated'))).toBe(0);
    expect(exitCode(of('eligible', 'ineligible'))).toBe(1);
    expect(exitCode(of('conflicting'))).toBe(1);
  });
});
