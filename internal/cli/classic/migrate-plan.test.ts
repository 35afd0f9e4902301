import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { ClusterServiceVersion, InstallPlan, OperatorGroup, Subscription } from '../../../api/operators/index.ts';
import { classicLabels, ownedObjects, ownershipChange, planMigration, revisionMarks, revisionObject, subscriptionPlans, type MigrationInput } from './migrate-plan.ts';

const NS = 'ops';
const sub: Subscription = {
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'Subscription',
  metadata: { name: 'foo-sub', namespace: NS, uid: 'sub-uid' },
  spec: { name: 'foo', source: 'cat', sourceNamespace: 'olm', channel: 'stable' },
  status: { installedCSV: 'foo.v1.0.0', state: 'AtLatestKnown', lastUpdated: '' },
};
const csv: ClusterServiceVersion = {
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'ClusterServiceVersion',
  metadata: { name: 'foo.v1.0.0', namespace: NS, uid: 'csv-uid' },
  spec: { displayName: 'Foo', version: '1.0.0', install: { strategy: 'deployment' }, customresourcedefinitions: { owned: [{ name: 'widgets.foo.io', version: 'v1', kind: 'Widget' }] } },
  status: { phase: 'Succeeded' },
};
const csvRef = { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', name: 'foo.v1.0.0', uid: 'csv-uid', controller: false, blockOwnerDeletion: false };
const ownerLabels = { 'olm.owner': 'foo.v1.0.0', 'olm.owner.kind': 'ClusterServiceVersion', 'olm.owner.namespace': NS };

const deployment: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'foo-controller',
    namespace: NS,
    uid: 'dep-uid',
    resourceVersion: '42',
    generation: 3,
    creationTimestamp: '2026-01-01T00:00:00Z',
    labels: { ...ownerLabels, 'olm.deployment-spec-hash': 'abc', app: 'foo' },
    annotations: { 'deployment.kubernetes.io/revision': '1', 'kubectl.kubernetes.io/last-applied-configuration': '{}', keep: 'me' },
    ownerReferences: [csvRef],
    managedFields: [],
  },
  spec: { replicas: 1 },
  status: { readyReplicas: 1 },
} as KubeObject;
const sa: KubeObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'foo', namespace: NS, ownerReferences: [csvRef], labels: ownerLabels }, secrets: [{ name: 'foo-token' }] } as KubeObject;
const clusterRole: KubeObject = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'foo.v1.0.0-abc', labels: ownerLabels }, rules: [] } as KubeObject;
const otherRole: KubeObject = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'og-admin', labels: { 'olm.owner': 'og', 'olm.owner.kind': 'OperatorGroup', 'olm.owner.namespace': NS } } } as KubeObject;
const unrelated: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: NS } };
const otherNs: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'elsewhere', ownerReferences: [csvRef] } };
const crd: KubeObject = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.foo.io' }, spec: { group: 'foo.io' }, status: { acceptedNames: {} } } as KubeObject;
const otherCrd: KubeObject = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.bar.io' } };
const og: OperatorGroup = { apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup', metadata: { name: 'og', namespace: NS }, spec: {}, status: { lastUpdated: '', namespaces: [''] } };
const plan = (name: string, over: Partial<InstallPlan['metadata']>, csvs: string[] = []): InstallPlan =>
  ({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'InstallPlan', metadata: { name, namespace: NS, ...over }, spec: { clusterServiceVersionNames: csvs, approval: 'Automatic', approved: true } }) as InstallPlan;

const input = (over: Partial<MigrationInput> = {}): MigrationInput => ({
  sub,
  csv,
  copies: [{ ...csv, metadata: { name: 'foo.v1.0.0', namespace: 'other', labels: { 'olm.copiedFrom': NS } }, status: { phase: 'Succeeded', reason: 'Copied' } } as ClusterServiceVersion],
  plans: [plan('install-abc', {}, ['foo.v1.0.0'])],
  operatorGroup: og,
  operatorGroupEmptyAfter: true,
  owned: ownedObjects(csv, [deployment, sa, clusterRole, otherRole, unrelated, otherNs], [crd, otherCrd]),
  bundle: { catalog: 'v1-cat', name: 'foo.v1.0.0', version: '1.0.0', image: 'reg/foo-bundle@sha256:1' },
  installMode: 'AllNamespaces',
  extension: 'foo',
  ...over,
});

describe('which objects the CSV owns', () => {
  it('namespaced ones by owner reference in its namespace, cluster-scoped ones by olm.owner labels, its CRDs by name', () => {
    expect(input().owned.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'ClusterRole/foo.v1.0.0-abc',
      'CustomResourceDefinition/widgets.foo.io',
      'Deployment/foo-controller',
      'ServiceAccount/foo',
    ]);
  });

  it("the webhook configurations of its webhookdefinitions (labelled as the CSV's): backed up, in revision 1, their labels moved like any cluster-scoped object's", () => {
    const hook = { 'olm.webhook-description-generate-name': 'vfoo.example.com' };
    const vwc: KubeObject = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'vfoo.example.com-x7k2q', labels: { ...ownerLabels, ...hook } }, webhooks: [{ name: 'vfoo.example.com', clientConfig: { caBundle: 'Q0E=' } }] } as KubeObject;
    const mwc: KubeObject = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'mfoo.example.com-p9z1a', labels: { ...ownerLabels, ...hook } } };
    const others: KubeObject = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'bar', labels: { ...ownerLabels, 'olm.owner': 'bar.v1' } } };
    const m = input({ owned: ownedObjects(csv, [deployment, vwc, mwc, others], [crd]) });
    expect(m.owned.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'CustomResourceDefinition/widgets.foo.io',
      'Deployment/foo-controller',
      'MutatingWebhookConfiguration/mfoo.example.com-p9z1a',
      'ValidatingWebhookConfiguration/vfoo.example.com-x7k2q',
    ]);
    const p = planMigration(m);
    expect(p.backup.map((o) => o.kind)).toEqual(expect.arrayContaining(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']));
    const listed = p.objectSet.spec!.phases!.flatMap((ph) => ph.objects!.map((o) => o.object!));
    expect(listed.find((o) => o.kind === 'ValidatingWebhookConfiguration')).toMatchObject({ metadata: { name: 'vfoo.example.com-x7k2q', labels: hook }, webhooks: [{ clientConfig: { caBundle: 'Q0E=' } }] });
    expect(listed.find((o) => o.kind === 'ValidatingWebhookConfiguration')!.metadata.labels).not.toHaveProperty('olm.owner');
    expect(p.ownership(vwc)?.patch).toEqual({ metadata: { labels: { 'olm.owner': null, 'olm.owner.kind': null, 'olm.owner.namespace': null } } });
  });

  it("the Subscription's InstallPlans: owned by it, or installing its CSV", () => {
    const plans = [
      plan('a', { ownerReferences: [{ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription', name: 'foo-sub', uid: 'sub-uid' }] }),
      plan('b', {}, ['foo.v1.0.0']),
      plan('c', {}, ['bar.v1']),
    ];
    expect(subscriptionPlans(sub, 'foo.v1.0.0', plans).map((p) => p.metadata.name)).toEqual(['a', 'b']);
  });
});

describe('revision 1', () => {
  const p = planMigration(input());
  it('is a ClusterObjectSet annotated migrated-from-subscription, with the bundle annotations the adoption rule reads, collision protection None', () => {
    expect(p.objectSet.metadata).toEqual({
      name: 'foo-1',
      labels: { 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'foo' },
      annotations: {
        'olm.operatorframework.io/package-name': 'foo',
        'olm.operatorframework.io/bundle-name': 'foo.v1.0.0',
        'olm.operatorframework.io/bundle-version': '1.0.0',
        'olm.operatorframework.io/bundle-reference': 'reg/foo-bundle@sha256:1',
        'olm.operatorframework.io/migrated-from-subscription': 'ops/foo-sub',
      },
    });
    expect(p.objectSet.spec).toMatchObject({ lifecycleState: 'Active', revision: 1, collisionProtection: 'None' });
    expect(p.objectSet.metadata.ownerReferences).toBeUndefined();
  });

  it("lists the CSV's objects in operator-controller's phases", () => {
    expect(p.objectSet.spec!.phases!.map((ph) => [ph.name, ph.objects!.map((o) => `${o.object!.kind}/${o.object!.metadata.name}`)])).toEqual([
      ['identity', ['ServiceAccount/foo']],
      ['crds', ['CustomResourceDefinition/widgets.foo.io']],
      ['roles', ['ClusterRole/foo.v1.0.0-abc']],
      ['deploy', ['Deployment/foo-controller']],
    ]);
  });

  it('each object as it is, without server fields, status, classic ownership or other writers\' annotations', () => {
    expect(revisionObject(deployment, 'foo', { package: 'foo', version: '1.0.0' })).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'foo-controller',
        namespace: NS,
        labels: { 'olm.deployment-spec-hash': 'abc', app: 'foo', 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'foo' },
        annotations: { keep: 'me', 'olm.operatorframework.io/bundle-version': '1.0.0', 'olm.operatorframework.io/package-name': 'foo' },
      },
      spec: { replicas: 1 },
    });
    expect(revisionObject(sa, 'foo', { package: 'foo', version: '1.0.0' })).not.toHaveProperty('secrets');
    expect(revisionObject(crd, 'foo', { package: 'foo', version: '1.0.0' })).not.toHaveProperty('status');
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'foo-service', namespace: NS }, spec: { clusterIP: '10.0.0.7', clusterIPs: ['10.0.0.7'], ports: [{ port: 443 }], selector: { app: 'foo' } } } as KubeObject;
    expect(revisionObject(svc, 'foo', { package: 'foo', version: '1.0.0' })['spec']).toEqual({ ports: [{ port: 443 }], selector: { app: 'foo' } });
  });
});

describe('the ClusterExtension', () => {
  it('pinned to the installed version, on the Subscription\'s channel, from the catalog that has the bundle', () => {
    expect(planMigration(input()).extension.spec).toEqual({
      namespace: NS,
      source: { sourceType: 'Catalog', catalog: { packageName: 'foo', version: '1.0.0', channels: ['stable'], selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': 'v1-cat' } } } },
    });
  });

  it('watches the OperatorGroup\'s namespace for OwnNamespace', () => {
    const own = { ...og, status: { lastUpdated: '', namespaces: [NS] } };
    expect(planMigration(input({ operatorGroup: own, installMode: 'OwnNamespace' })).extension.spec?.config).toEqual({ configType: 'Inline', inline: { watchNamespace: NS } });
  });
});

describe('ownership and deletions', () => {
  it('moves ownership first: owner references to the CSV off namespaced objects, olm.owner labels off cluster-scoped ones', () => {
    const p = planMigration(input());
    expect(p.ownership(deployment)).toEqual({
      ref: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'foo-controller', namespace: NS },
      patch: { metadata: { ownerReferences: [] } },
      what: 'remove owner reference to ClusterServiceVersion foo.v1.0.0',
    });
    expect(p.ownership(clusterRole)?.patch).toEqual({ metadata: { labels: { 'olm.owner': null, 'olm.owner.kind': null, 'olm.owner.namespace': null } } });
    expect(p.ownership({ ...deployment, metadata: { ...deployment.metadata, ownerReferences: [] } })).toBeUndefined();
    // namespaced objects keep their labels while the CSV exists (olm-classic finds its Deployments by them)
    expect(p.leftoverLabels(deployment)?.what).toBe('remove labels olm.owner, olm.owner.kind, olm.owner.namespace');
    expect(p.leftoverLabels(clusterRole)).toBeUndefined();
    expect(ownershipChange(unrelated, csv, 'now')).toBeUndefined();
  });

  it('deletes the Subscription, its InstallPlans, the CSV and its copies (orphaning), and the OperatorGroup only when it serves nothing else', () => {
    const names = (m: MigrationInput): string[] => planMigration(m).deletions.map((d) => `${d.ref.kind} ${d.ref.namespace}/${d.ref.name}${d.orphan ? ' orphan' : ''}`);
    expect(names(input())).toEqual([
      `Subscription ${NS}/foo-sub`,
      `InstallPlan ${NS}/install-abc`,
      `ClusterServiceVersion ${NS}/foo.v1.0.0 orphan`,
      'ClusterServiceVersion other/foo.v1.0.0 orphan',
      `OperatorGroup ${NS}/og`,
    ]);
    expect(names(input({ operatorGroupEmptyAfter: false }))).not.toContain(`OperatorGroup ${NS}/og`);
  });

  it('backs up every object it touches', () => {
    expect(planMigration(input()).backup.map((o) => o.kind)).toEqual(['Subscription', 'ClusterServiceVersion', 'ClusterServiceVersion', 'InstallPlan', 'OperatorGroup', 'ClusterRole', 'CustomResourceDefinition', 'Deployment', 'ServiceAccount']);
  });
});

describe('rollback', () => {
  it("removes what revision 1 left on an orphaned object, so that a later migration adopts it again", () => {
    const marked: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'd',
        namespace: NS,
        labels: { app: 'x', 'app.kubernetes.io/managed-by': 'olm.operatorframework.io', 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'foo' },
        annotations: { 'olm.operatorframework.io/revision': '1', 'olm.operatorframework.io/bundle-version': '1.0.0', keep: 'me' },
      },
    };
    expect(revisionMarks(marked)?.patch).toEqual({
      metadata: {
        labels: { 'app.kubernetes.io/managed-by': null, 'olm.operatorframework.io/owner-kind': null, 'olm.operatorframework.io/owner-name': null },
        annotations: { 'olm.operatorframework.io/revision': null, 'olm.operatorframework.io/bundle-version': null },
      },
    });
    expect(revisionMarks(unrelated)).toBeUndefined();
  });

  it('puts back the olm.owner labels an object had when backed up (olm-classic finds its webhook configurations by them), never its owner references', () => {
    const now: KubeObject = { ...clusterRole, metadata: { name: clusterRole.metadata.name, labels: { other: 'x' } } };
    expect(classicLabels(clusterRole)(now)).toEqual({
      ref: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'foo.v1.0.0-abc' },
      patch: { metadata: { labels: ownerLabels } },
      what: 'restore labels olm.owner, olm.owner.kind, olm.owner.namespace',
    });
    expect(classicLabels(clusterRole)(clusterRole)).toBeUndefined();
    expect(classicLabels(unrelated)(unrelated)).toBeUndefined();
    expect(classicLabels(deployment)({ ...deployment, metadata: { name: 'foo-controller', namespace: NS } })?.patch).toEqual({ metadata: { labels: ownerLabels } });
  });
});
