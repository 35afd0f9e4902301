// Bad input to the real olm-classic binary: for every kind a user writes (CatalogSource, Subscription,
// OperatorGroup, ClusterServiceVersion, InstallPlan, OperatorCondition) a malformed object, which the API server's
// CRD schema refuses (its 422 message, verbatim), and a semantically invalid one, whose status says what is wrong
// in one line with upstream's reason and text (where upstream writes status for it). Throughout, the process stays
// up and an operator installed beforehand in another namespace is left alone: its CSV stays Succeeded (no phase
// change since) and its Deployment keeps its generation and spec.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import { catalogFiles, pushTestBundle, type TestBundle } from '../../support/bundles.ts';
import { createImageCatalogSource, createOperatorGroup, createSubscription } from '../../support/classic-olm.ts';
import { installClassicCRDs } from '../../support/crds.ts';
import { adminKube, registry, testNamespaces } from '../../support/env.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { TestKube } from '../../support/kube.ts';
import { waitForValue } from '../../support/net.ts';
import { startOlmClassicProcess, type OlmClassicProcess } from '../../support/olm-classic-process.ts';

const kube = (): TestKube => adminKube();
const namespaces = testNamespaces();
let olm: OlmClassicProcess | undefined;
let globalNs: string;
let bundle: TestBundle;
/** A bundle whose extra Service manifest has an invalid port. */
let badService: TestBundle;
/** Where the operator was installed before any bad input, and what it looked like then. */
let installedNs: string;
let before: Installed;

interface Installed {
  readonly csvPhase: string | undefined;
  readonly csvLastTransitionTime: string | undefined;
  readonly deploymentGeneration: number | undefined;
  readonly deploymentSpec: string;
  readonly deploymentOwners: string;
}

async function installed(): Promise<Installed> {
  const csv = await kube().must<ops.ClusterServiceVersion>(kube().request('GET', TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, bundle.name, installedNs)));
  const dep = await kube().must<{ metadata: { generation?: number; ownerReferences?: unknown[]; labels?: Record<string, string> }; spec: unknown }>(
    kube().request('GET', `/apis/apps/v1/namespaces/${installedNs}/deployments/${bundle.deploymentName}`),
  );
  return {
    csvPhase: csv.status?.phase,
    csvLastTransitionTime: csv.status?.lastTransitionTime,
    deploymentGeneration: dep.metadata.generation,
    deploymentSpec: JSON.stringify(dep.spec),
    deploymentOwners: JSON.stringify([dep.metadata.ownerReferences, dep.metadata.labels]),
  };
}

const until = <T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 120_000): Promise<T> =>
  waitForValue(what, read, ok, { timeoutMs, lastChars: 2000, context: () => `olm-classic said: ${olm?.logs.slice(-20).join('\n') ?? ''}` });

const get = <T>(apiVersion: string, resource: string, ns: string, name: string) => (): Promise<T> => kube().must<T>(kube().request('GET', TestKube.path(apiVersion, resource, name, ns)));

async function operatorGroup(ns: string, spec: ops.OperatorGroupSpec = { targetNamespaces: [ns] }, name = 'og'): Promise<void> {
  await createOperatorGroup(ns, name, spec);
}

beforeAll(async () => {
  await installClassicCRDs(kube());
  globalNs = await namespaces.create('bad-olm');
  bundle = await pushTestBundle(registry(), { packageName: 'bad-input-op', version: '1.0.0' });
  badService = await pushTestBundle(registry(), {
    packageName: 'bad-service-op',
    version: '1.0.0',
    extraManifests: { 'service.yaml': { apiVersion: 'v1', kind: 'Service', metadata: { name: 'bad-port' }, spec: { ports: [{ port: 70000, targetPort: 8080 }], selector: { app: 'x' } } } },
  });
  const image = await pushCatalogImage(registry(), 'classic-bad-input/catalog:v1', {
    files: { ...catalogFiles('bad-input-op', [{ bundle }]), ...catalogFiles('bad-service-op', [{ bundle: badService }]) },
  });
  await createImageCatalogSource(globalNs, 'good', image.digestRef);
  olm = await startOlmClassicProcess({ globalNamespace: globalNs, args: ['--install-plan-retry-timeout=3s'] });

  installedNs = await namespaces.create('bad-installed');
  await operatorGroup(installedNs);
  await createSubscription(installedNs, 'op', { source: 'good', sourceNamespace: globalNs, name: 'bad-input-op', channel: 'stable' });
  await until('the installed CSV Succeeded', get<ops.ClusterServiceVersion>(ops.V1alpha1, ops.ClusterServiceVersionResource, installedNs, bundle.name), (c) => c.status?.phase === 'Succeeded', 180_000);
  // The Operator API controller labels the Deployment for `kubectl get operators` once the install settles; what
  // "untouched" compares is the state after that.
  await until(
    'the Deployment adopted by its Operator',
    get<{ metadata: { labels?: Record<string, string> } }>('apps/v1', 'deployments', installedNs, bundle.deploymentName),
    (d) => d.metadata.labels?.[`operators.coreos.com/bad-input-op.${installedNs}`] !== undefined,
  );
  before = await installed();
}, 300_000);

afterAll(async () => {
  await olm?.stop();
});

afterEach(() => {
  expect(olm?.alive(), `olm-classic exited: ${olm?.logs.slice(-20).join('\n')}`).toBe(true);
});

/** The API server refuses `obj` at `path` with 422 Invalid; its message. */
async function refused(path: string, obj: object): Promise<string> {
  const r = await kube().request<{ reason?: string; message?: string }>('POST', path, obj);
  expect(r.status, JSON.stringify(r.body)).toBe(422);
  expect(r.body.reason).toBe('Invalid');
  return r.body.message ?? '';
}

const oneLine = (s: string | undefined): void => {
  expect(s).toBeTruthy();
  expect(s).not.toContain('\n');
};

describe('malformed objects: the API server’s CRD schema refuses them', () => {
  it('CatalogSource with a number for spec.image', async () => {
    const ns = await namespaces.create('bad-cs');
    const msg = await refused(TestKube.path(ops.V1alpha1, ops.CatalogSourceResource, undefined, ns), {
      apiVersion: ops.V1alpha1,
      kind: ops.CatalogSourceKind,
      metadata: { name: 'bad', namespace: ns },
      spec: { sourceType: 'grpc', image: 42 },
    });
    expect(msg).toBe('CatalogSource.operators.coreos.com "bad" is invalid: spec.image: Invalid value: "integer": spec.image in body must be of type string: "integer"');
  });

  it('Subscription without spec.name', async () => {
    const ns = await namespaces.create('bad-sub');
    const msg = await refused(TestKube.path(ops.V1alpha1, ops.SubscriptionResource, undefined, ns), {
      apiVersion: ops.V1alpha1,
      kind: ops.SubscriptionKind,
      metadata: { name: 'bad', namespace: ns },
      spec: { source: 'good', sourceNamespace: globalNs, channel: 'stable' },
    });
    expect(msg).toBe('Subscription.operators.coreos.com "bad" is invalid: spec.name: Required value');
  });

  it('OperatorGroup with a string for spec.targetNamespaces', async () => {
    const ns = await namespaces.create('bad-og');
    const msg = await refused(TestKube.path(ops.V1, ops.OperatorGroupResource, undefined, ns), {
      apiVersion: ops.V1,
      kind: ops.OperatorGroupKind,
      metadata: { name: 'bad', namespace: ns },
      spec: { targetNamespaces: ns },
    });
    expect(msg).toBe(`OperatorGroup.operators.coreos.com "bad" is invalid: spec.targetNamespaces: Invalid value: "string": spec.targetNamespaces in body must be of type array: "string"`);
  });

  it('ClusterServiceVersion without spec.install', async () => {
    const ns = await namespaces.create('bad-csv');
    const msg = await refused(TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, undefined, ns), {
      apiVersion: ops.V1alpha1,
      kind: ops.ClusterServiceVersionKind,
      metadata: { name: 'bad.v1.0.0', namespace: ns },
      spec: { displayName: 'bad' },
    });
    expect(msg).toBe(
      'ClusterServiceVersion.operators.coreos.com "bad.v1.0.0" is invalid: [spec.install: Required value, <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    );
  });

  it('InstallPlan with a string for spec.approved', async () => {
    const ns = await namespaces.create('bad-ip');
    const msg = await refused(TestKube.path(ops.V1alpha1, ops.InstallPlanResource, undefined, ns), {
      apiVersion: ops.V1alpha1,
      kind: ops.InstallPlanKind,
      metadata: { name: 'bad', namespace: ns },
      spec: { approval: 'Automatic', approved: 'yes', clusterServiceVersionNames: [] },
    });
    expect(msg).toBe('InstallPlan.operators.coreos.com "bad" is invalid: spec.approved: Invalid value: "string": spec.approved in body must be of type boolean: "string"');
  });

  it('OperatorCondition with an unsupported condition status', async () => {
    const ns = await namespaces.create('bad-oc');
    const msg = await refused(TestKube.path(ops.V2, ops.OperatorConditionResource, undefined, ns), {
      apiVersion: ops.V2,
      kind: ops.OperatorConditionKind,
      metadata: { name: 'bad', namespace: ns },
      spec: { conditions: [{ type: 'Upgradeable', status: 'Maybe', reason: 'Testing', message: 'x', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
    });
    expect(msg).toBe('OperatorCondition.operators.coreos.com "bad" is invalid: spec.conditions[0].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"');
  });
});

describe('semantically invalid objects: the status says what is wrong in one line', () => {
  it('CatalogSource of sourceType grpc with neither image nor address: SpecInvalidError', async () => {
    const ns = await namespaces.create('sem-cs');
    await kube().must(
      kube().request('POST', TestKube.path(ops.V1alpha1, ops.CatalogSourceResource, undefined, ns), {
        apiVersion: ops.V1alpha1,
        kind: ops.CatalogSourceKind,
        metadata: { name: 'empty', namespace: ns },
        spec: { sourceType: 'grpc' },
      }),
    );
    const cs = await until('SpecInvalidError', get<ops.CatalogSource>(ops.V1alpha1, ops.CatalogSourceResource, ns, 'empty'), (c) => c.status?.reason !== undefined);
    expect(cs.status?.reason).toBe(ops.CatalogSourceSpecInvalidError);
    expect(cs.status?.message).toBe('image and address unset: at least one must be set for sourcetype: grpc');
    oneLine(cs.status?.message);
  });

  it('Subscription to a package the catalog does not have: ResolutionFailed/ConstraintsNotSatisfiable, no plan', async () => {
    const ns = await namespaces.create('sem-sub');
    await operatorGroup(ns);
    await createSubscription(ns, 'nope', { source: 'good', sourceNamespace: globalNs, name: 'no-such-package', channel: 'stable' });
    const sub = await until('ResolutionFailed', get<ops.Subscription>(ops.V1alpha1, ops.SubscriptionResource, ns, 'nope'), (s) =>
      (s.status?.conditions ?? []).some((c) => c.type === ops.SubscriptionResolutionFailed),
    );
    const c = sub.status!.conditions!.find((x) => x.type === ops.SubscriptionResolutionFailed)!;
    expect(c).toMatchObject({
      status: 'True',
      reason: ops.ReasonConstraintsNotSatisfiable,
      message: 'constraints not satisfiable: no operators found in package no-such-package in the catalog referenced by subscription nope, subscription nope exists',
    });
    oneLine(c.message);
    expect(sub.status?.installPlanRef).toBeUndefined();
  });

  it('OperatorGroup naming a service account that does not exist: OperatorGroupServiceAccount/ServiceAccountNotFound', async () => {
    const ns = await namespaces.create('sem-og');
    await operatorGroup(ns, { targetNamespaces: [ns], serviceAccountName: 'missing' });
    const og = await until('ServiceAccountNotFound', get<ops.OperatorGroup>(ops.V1, ops.OperatorGroupResource, ns, 'og'), (g) =>
      (g.status?.conditions ?? []).some((c) => c.type === ops.OperatorGroupServiceAccountCondition),
    );
    const c = og.status!.conditions!.find((x) => x.type === ops.OperatorGroupServiceAccountCondition)!;
    expect(c).toMatchObject({ status: 'True', reason: ops.OperatorGroupServiceAccountReason, message: 'ServiceAccount missing not found' });
    oneLine(c.message);
  });

  it('OperatorGroup with an unparsable selector (beside its targetNamespaces): never synced, as upstream; the error logged in one line', async () => {
    const ns = await namespaces.create('sem-og-sel');
    await operatorGroup(ns, { targetNamespaces: [ns], selector: { matchExpressions: [{ key: 'team', operator: 'Bogus' as never, values: ['x'] }] } });
    // upstream returns the selector's error from the group's sync and writes no status: the error is in the log
    const line = await until('the group’s sync error logged', async () => olm!.logs.find((l) => l.includes(`"key":"${ns}/og"`) && l.includes('is not a valid label selector operator')), (l) => l !== undefined, 60_000);
    expect(line).toContain('\\"Bogus\\" is not a valid label selector operator');
    const og = await get<ops.OperatorGroup>(ops.V1, ops.OperatorGroupResource, ns, 'og')();
    expect(og.status?.namespaces).toBeUndefined();
  });

  it('ClusterServiceVersion with an install strategy upstream does not know: Failed/InvalidInstallStrategy', async () => {
    const ns = await namespaces.create('sem-csv');
    await operatorGroup(ns);
    await kube().must(
      kube().request('POST', TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, undefined, ns), {
        apiVersion: ops.V1alpha1,
        kind: ops.ClusterServiceVersionKind,
        metadata: { name: 'helmish.v1.0.0', namespace: ns },
        spec: {
          displayName: 'helmish',
          installModes: [
            { type: 'OwnNamespace', supported: true },
            { type: 'SingleNamespace', supported: true },
            { type: 'MultiNamespace', supported: false },
            { type: 'AllNamespaces', supported: false },
          ],
          install: { strategy: 'helm', spec: { deployments: [] } },
        },
      }),
    );
    const csv = await until('Failed', get<ops.ClusterServiceVersion>(ops.V1alpha1, ops.ClusterServiceVersionResource, ns, 'helmish.v1.0.0'), (c) => c.status?.phase === 'Failed');
    expect(csv.status).toMatchObject({ reason: ops.CSVReasons.InvalidStrategy, message: 'install strategy invalid: unrecognized install strategy' });
    oneLine(csv.status?.message);
  });

  it('InstallPlan with a step of a kind upstream does not install: UnsupportedResource, Failed with the invalid-data message', async () => {
    const ns = await namespaces.create('sem-ip');
    await operatorGroup(ns);
    const created = await kube().must<ops.InstallPlan>(
      kube().request('POST', TestKube.path(ops.V1alpha1, ops.InstallPlanResource, undefined, ns), {
        apiVersion: ops.V1alpha1,
        kind: ops.InstallPlanKind,
        metadata: { name: 'handmade', namespace: ns },
        spec: { approval: 'Automatic', approved: true, clusterServiceVersionNames: ['x.v1'], generation: 1 },
      }),
    );
    const manifest = JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'sneaky' }, spec: {} });
    await kube().must(
      kube().request('PUT', `${TestKube.path(ops.V1alpha1, ops.InstallPlanResource, 'handmade', ns)}/status`, {
        ...created,
        status: {
          phase: ops.InstallPlanPhaseInstalling,
          catalogSources: [],
          plan: [{ resolving: 'x.v1', status: ops.StepStatusUnknown, resource: { sourceName: 'good', sourceNamespace: globalNs, group: 'apps', version: 'v1', kind: 'Deployment', name: 'sneaky', manifest } }],
        },
      }),
    );
    const ip = await until('Failed', get<ops.InstallPlan>(ops.V1alpha1, ops.InstallPlanResource, ns, 'handmade'), (p) => p.status?.phase === ops.InstallPlanPhaseFailed);
    expect(ip.status?.message).toBe('the InstallPlan contains invalid data');
    expect(ip.status?.conditions?.find((c) => c.type === 'Installed')).toMatchObject({ status: 'False', reason: ops.InstallPlanReasonComponentFailed, message: 'the InstallPlan contains invalid data' });
    expect(ip.status?.plan?.map((s) => s.status)).toEqual([ops.StepStatusUnsupportedResource]);
    expect((await kube().request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/sneaky`)).status).toBe(404);
  });

  it('InstallPlan with a step manifest that is not JSON: Failed with upstream’s parse error, in one line', async () => {
    const ns = await namespaces.create('sem-ip-json');
    await operatorGroup(ns);
    const created = await kube().must<ops.InstallPlan>(
      kube().request('POST', TestKube.path(ops.V1alpha1, ops.InstallPlanResource, undefined, ns), {
        apiVersion: ops.V1alpha1,
        kind: ops.InstallPlanKind,
        metadata: { name: 'garbled', namespace: ns },
        spec: { approval: 'Automatic', approved: true, clusterServiceVersionNames: ['x.v1'], generation: 1 },
      }),
    );
    await kube().must(
      kube().request('PUT', `${TestKube.path(ops.V1alpha1, ops.InstallPlanResource, 'garbled', ns)}/status`, {
        ...created,
        status: {
          phase: ops.InstallPlanPhaseInstalling,
          catalogSources: [],
          plan: [{ resolving: 'x.v1', status: ops.StepStatusUnknown, resource: { sourceName: 'good', sourceNamespace: globalNs, group: '', version: 'v1', kind: 'ConfigMap', name: 'cm', manifest: '{not json\n' } }],
        },
      }),
    );
    const ip = await until('Failed', get<ops.InstallPlan>(ops.V1alpha1, ops.InstallPlanResource, ns, 'garbled'), (p) => p.status?.phase === ops.InstallPlanPhaseFailed);
    // upstream's YAMLOrJSONDecoder reads a document starting with { as JSON: Go's json.Decoder error
    const why = "error parsing step manifest: cm: invalid character 'n' looking for beginning of object key string";
    expect(ip.status?.message).toBe(why);
    expect(ip.status?.conditions?.find((c) => c.type === 'Installed')).toMatchObject({ status: 'False', reason: ops.InstallPlanReasonComponentFailed, message: why });
    oneLine(ip.status?.message);
  });

  it('a bundle with a Service the API server refuses (port 70000): its InstallPlan Fails with the API server’s message', async () => {
    const ns = await namespaces.create('sem-bundle');
    await operatorGroup(ns);
    await createSubscription(ns, 'svc', { source: 'good', sourceNamespace: globalNs, name: 'bad-service-op', channel: 'stable' });
    const sub = await until('a plan', get<ops.Subscription>(ops.V1alpha1, ops.SubscriptionResource, ns, 'svc'), (x) => x.status?.installPlanRef !== undefined);
    const ip = await until('the plan Failed', get<ops.InstallPlan>(ops.V1alpha1, ops.InstallPlanResource, ns, sub.status!.installPlanRef!.name!), (p) => p.status?.phase === ops.InstallPlanPhaseFailed);
    const why = 'error updating service: bad-port: Service "bad-port" is invalid: spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive';
    expect(ip.status?.message).toBe(why);
    expect(ip.status?.conditions?.find((c) => c.type === 'Installed')).toMatchObject({ status: 'False', reason: ops.InstallPlanReasonComponentFailed, message: why });
    expect(ip.status?.plan?.find((st) => st.resource.kind === 'Service')?.status).toBe(ops.StepStatusUnknown);
    expect((await kube().request('GET', `/api/v1/namespaces/${ns}/services/bad-port`)).status).toBe(404);
  });

  it('OperatorCondition for a CSV that does not exist: handled as upstream does (spec.conditions copied to status), nothing else touched', async () => {
    const ns = await namespaces.create('sem-oc');
    await kube().must(
      kube().request('POST', TestKube.path(ops.V2, ops.OperatorConditionResource, undefined, ns), {
        apiVersion: ops.V2,
        kind: ops.OperatorConditionKind,
        metadata: { name: 'ghost.v1.0.0', namespace: ns },
        spec: { deployments: ['ghost'], serviceAccounts: ['ghost'], conditions: [{ type: 'Upgradeable', status: 'False', reason: 'Busy', message: 'not now', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
      }),
    );
    // Upstream writes no error into an OperatorCondition: its controller copies spec.conditions into status, which
    // shows the object was handled; no Deployment of that name appears.
    const oc = await until('status.conditions copied', get<{ status?: { conditions?: unknown[] } }>(ops.V2, ops.OperatorConditionResource, ns, 'ghost.v1.0.0'), (o) => (o.status?.conditions ?? []).length > 0);
    expect(oc.status?.conditions).toEqual([{ type: 'Upgradeable', status: 'False', reason: 'Busy', message: 'not now', lastTransitionTime: '2026-01-01T00:00:00Z', observedGeneration: 1 }]);
    expect((await kube().request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/ghost`)).status).toBe(404);
  });
});

describe('after all the bad input', () => {
  it('the process is up and the operator installed before is untouched', async () => {
    expect(olm?.alive()).toBe(true);
    expect(before.csvPhase).toBe('Succeeded');
    expect(await installed()).toEqual(before);
  });
});
