// The CSV steps with fakes of their ports: (state, cluster) → (phase, reason, message), in the spirit of upstream's
// olm/operator_test.go TestTransitionCSV (case names in the test titles where there is one).
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { ClusterServiceVersion } from '../../../api/operators/index.ts';
import { formatTime, runSteps } from '../../shared/controller/index.ts';
import { fakePorts, metRequirements, stateOf, type FakeCluster } from './testing.ts';
import { buildDeployment } from './install.ts';
import { csvSteps, ErrRequirementsNotMet, INSTALL_RETRY_MAX_MS, INSTALL_TIMEOUT_MS, installRetryInMs } from './steps.ts';

const NS = 'ns';
const og = (name = 'og', spec: Record<string, unknown> = {}, namespaces = [NS]): KubeObject => ({
  apiVersion: 'operators.coreos.com/v1',
  kind: 'OperatorGroup',
  metadata: { name, namespace: NS, uid: `uid-${name}` },
  spec,
  status: { namespaces, lastUpdated: '2026-01-01T00:00:00Z' },
});

function csv(name: string, status?: ClusterServiceVersion['status'], spec: Partial<ClusterServiceVersion['spec']> = {}, annotations: Record<string, string> = {}): ClusterServiceVersion {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: {
      name,
      namespace: NS,
      uid: `uid-${name}`,
      finalizers: ['operators.coreos.com/csv-cleanup'],
      annotations: { 'olm.operatorGroup': 'og', 'olm.operatorNamespace': NS, 'olm.targetNamespaces': NS, ...annotations },
    },
    spec: {
      displayName: name,
      installModes: [
        { type: 'OwnNamespace', supported: true },
        { type: 'SingleNamespace', supported: true },
        { type: 'MultiNamespace', supported: false },
        { type: 'AllNamespaces', supported: true },
      ],
      install: { strategy: 'deployment', spec: { deployments: [{ name: 'dep', spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } }] } },
      ...spec,
    },
    ...(status && { status }),
  };
}
const at = (phase: string, reason = '', lastTransitionTime = '2026-01-01T00:09:00Z'): ClusterServiceVersion['status'] => ({ phase, reason, lastTransitionTime, lastUpdateTime: lastTransitionTime, conditions: [{ phase, reason }] });

async function transition(target: ClusterServiceVersion, cluster: FakeCluster = {}, o: Parameters<typeof fakePorts>[1] = {}) {
  const all: FakeCluster = { operatorGroups: [og()], ...cluster, csvs: [target, ...(cluster.csvs ?? [])] };
  const ports = fakePorts(all, o);
  const state = stateOf(target);
  const outcome = await runSteps(csvSteps(ports), state, new AbortController().signal);
  const s = state.out.status ?? {};
  return { phase: s.phase, reason: s.reason, message: s.message, outcome, ports, out: state.out, state };
}

/** A Deployment this CSV would have written, rolled out and Available. */
function readyDeployment(c: ClusterServiceVersion): KubeObject {
  const { deployment } = buildDeployment(c, { name: 'dep', spec: c.spec.install.spec!.deployments[0]!.spec });
  return { ...deployment, metadata: { ...deployment.metadata, generation: 1 }, status: { observedGeneration: 1, replicas: 1, updatedReplicas: 1, conditions: [{ type: 'Available', status: 'True' }] } };
}

describe('pre-checks', () => {
  it('adds the csv-cleanup finalizer first and ends the pass', async () => {
    const c = csv('a');
    c.metadata.finalizers = [];
    const r = await transition(c);
    expect(r.outcome).toMatchObject({ step: 'processFinalizer', final: true });
    expect(r.ports.calls).toEqual([expect.objectContaining({ verb: 'patch', body: { metadata: { finalizers: ['operators.coreos.com/csv-cleanup'], resourceVersion: undefined } } })]);
  });

  it('a deleted CSV takes its conversion webhook off its CRDs, except off a CRD OLM v1 adopted (a ClusterObjectSet controls it)', async () => {
    const hook = { type: 'ConversionWebhook' as const, generateName: 'conv', deploymentName: 'dep', containerPort: 443, admissionReviewVersions: ['v1'], sideEffects: 'None', conversionCRDs: ['mine.g', 'adopted.g'] };
    const c = csv('a', undefined, { webhookdefinitions: [hook] });
    c.metadata.deletionTimestamp = '2026-01-01T00:09:00Z';
    const crd = (name: string, ownerReferences?: KubeObject['metadata']['ownerReferences']): KubeObject => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name, ...(ownerReferences && { ownerReferences }) },
    });
    const cos = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterObjectSet', name: 'a-1', uid: 'cos', controller: true };
    const r = await transition(c, { crds: [crd('mine.g'), crd('adopted.g', [cos])] });
    expect(r.outcome).toMatchObject({ step: 'processFinalizer', final: true });
    expect(r.ports.calls.filter((x) => x.kind === 'CustomResourceDefinition').map((x) => [x.verb, x.name])).toEqual([['patch', 'mine.g']]);
  });

  it('SingleCSVNoneToFailed/NoOperatorGroup', async () => {
    const r = await transition(csv('a'), { operatorGroups: [] });
    expect([r.phase, r.reason, r.message]).toEqual(['Failed', 'NoOperatorGroup', 'csv in namespace with no operatorgroups']);
    expect(r.ports.events.seen).toEqual(['Warning NoOperatorGroup: csv in namespace with no operatorgroups']);
  });

  it('SingleCSVNoneToFailed/TooManyOperatorGroups', async () => {
    const r = await transition(csv('a'), { operatorGroups: [og('og'), og('og2')] });
    expect([r.phase, r.reason, r.message]).toEqual(['Failed', 'TooManyOperatorGroups', "csv created in namespace with multiple operatorgroups, can't pick one automatically"]);
  });

  it('a CSV without the group annotations gets them and the pass ends', async () => {
    const c = csv('a');
    c.metadata.annotations = {};
    const r = await transition(c);
    expect(r.outcome).toMatchObject({ step: 'operatorGroupMembership', final: true });
    expect(r.ports.calls.at(-1)).toMatchObject({ verb: 'patch', body: { metadata: { annotations: { 'olm.operatorGroup': 'og', 'olm.operatorNamespace': NS, 'olm.targetNamespaces': NS } } } });
  });

  it('SingleCSVNoneToFailed/InstallModes: MultiNamespace not supported', async () => {
    const r = await transition(csv('a', undefined, {}, { 'olm.targetNamespaces': 'x,y' }), { operatorGroups: [og('og', {}, ['x', 'y'])] });
    expect([r.phase, r.reason, r.message]).toEqual(['Failed', 'UnsupportedOperatorGroup', 'MultiNamespace InstallModeType not supported, cannot configure to watch 2 namespaces']);
  });

  it('duplicate install modes: InvalidInstallModes', async () => {
    const r = await transition(csv('a', undefined, { installModes: [{ type: 'OwnNamespace', supported: true }, { type: 'OwnNamespace', supported: true }] }));
    expect([r.phase, r.reason, r.message]).toEqual(['Failed', 'InvalidInstallModes', 'InstallMode list contains duplicates, cannot make set: [{OwnNamespace true} {OwnNamespace true}]']);
  });

  it('SingleCSVNoneToFailed/InterOperatorGroupOwnerConflict', async () => {
    const owned = { customresourcedefinitions: { owned: [{ name: 'cs.g', version: 'v1', kind: 'C' }] } };
    const other: KubeObject = { ...og('other'), metadata: { name: 'other', namespace: 'elsewhere', annotations: { 'olm.providedAPIs': 'C.v1.g' } }, status: { namespaces: [NS], lastUpdated: 'x' } };
    const r = await transition(csv('a', undefined, owned), { operatorGroups: [og(), other] });
    expect([r.phase, r.reason, r.message]).toEqual(['Failed', 'InterOperatorGroupOwnerConflict', 'intersecting operatorgroups provide the same apis']);
    expect(r.ports.calls).toContainEqual(expect.objectContaining({ verb: 'delete', kind: 'Deployment', name: 'dep' }));
  });

  it('SingleCSVNoneToFailed/StaticOperatorGroup: a static group cannot take new provided APIs', async () => {
    const r = await transition(csv('a', undefined, { customresourcedefinitions: { owned: [{ name: 'cs.g', version: 'v1', kind: 'C' }] } }), { operatorGroups: [og('og', { staticProvidedAPIs: true })] });
    expect([r.phase, r.reason, r.message]).toEqual(['Failed', 'CannotModifyStaticOperatorGroupProvidedAPIs', 'static provided api operatorgroup cannot be modified by these apis']);
  });

  it('a new provided API is added to the group annotation and the CSV comes back', async () => {
    const r = await transition(csv('a', undefined, { customresourcedefinitions: { owned: [{ name: 'cs.g', version: 'v1', kind: 'C' }] } }));
    expect(r.ports.calls.at(-1)).toMatchObject({ verb: 'patch', kind: 'OperatorGroup', body: { metadata: { annotations: { 'olm.providedAPIs': 'C.v1.g' } } } });
    expect(r.state.requeueAfterMs).toBe(0);
    expect(r.phase).toBeUndefined();
  });
});

describe('phases', () => {
  it('SingleCSVNoneToPending', async () => {
    const r = await transition(csv('a'));
    expect([r.phase, r.reason, r.message]).toEqual(['Pending', 'RequirementsUnknown', 'requirements not yet checked']);
  });

  it('SingleCSVPendingToInstallReady', async () => {
    const r = await transition(csv('a', at('Pending', 'RequirementsUnknown')));
    expect([r.phase, r.reason, r.message]).toEqual(['InstallReady', 'AllRequirementsMet', 'all requirements found, attempting install']);
  });

  it('SingleCSVPendingToPending/CRD: requirements not met, with the statuses and upstream’s sync error', async () => {
    const c = csv('a', at('Pending', 'RequirementsUnknown'), { customresourcedefinitions: { required: [{ name: 'cs.g', version: 'v1', kind: 'C' }] } });
    const r = await transition(c, { operatorGroups: [og()] }, { requirements: metRequirements({ crd: () => undefined }) });
    expect([r.phase, r.reason, r.message]).toEqual(['Pending', 'RequirementsNotMet', "one or more requirements couldn't be found"]);
    expect(r.out.status?.requirementStatus).toEqual([{ group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', name: 'cs.g', status: 'NotPresent', message: 'CRD is not present' }]);
    expect((r.outcome?.err as Error).message).toBe(ErrRequirementsNotMet);
  });

  it('an unknown strategy: Failed/InvalidInstallStrategy', async () => {
    const c = csv('a', at('Pending', 'RequirementsUnknown'));
    c.spec.install.strategy = 'helm';
    const r = await transition(c);
    expect([r.phase, r.reason, r.message]).toEqual(['Failed', 'InvalidInstallStrategy', 'install strategy invalid: unrecognized install strategy']);
  });

  it('Pending replacing a CSV whose OperatorCondition says not upgradeable: held with the doubled prefix', async () => {
    const prev = csv('a', at('Succeeded', 'InstallSucceeded'));
    const oc: KubeObject = {
      metadata: { name: 'a', namespace: NS, generation: 1 },
      spec: {},
      status: { conditions: [{ type: 'Upgradeable', status: 'False', reason: 'R', message: 'busy', observedGeneration: 1, lastTransitionTime: 'x' }] },
    };
    const r = await transition(csv('b', at('Pending', 'RequirementsUnknown'), { replaces: 'a' }), { csvs: [prev], operatorConditions: [oc] });
    expect([r.phase, r.reason, r.message]).toEqual(['Pending', 'OperatorConditionNotUpgradeable', 'operator is not upgradeable: the operator is not upgradeable: busy']);
  });

  it('Pending replacing a CSV not yet Replacing waits (and brings the old one back)', async () => {
    const prev = csv('a', at('Succeeded', 'InstallSucceeded'));
    const r = await transition(csv('b', at('Pending', 'RequirementsUnknown'), { replaces: 'a' }), { csvs: [prev] });
    expect([r.phase, r.reason]).toEqual(['Pending', 'RequirementsUnknown']);
    expect(r.ports.enqueued).toContain('ns/a');
  });

  it('SingleCSVPendingToFailed/OwnerConflict: another CSV outside the chain owns the CRD', async () => {
    const crds = { customresourcedefinitions: { owned: [{ name: 'cs.g', version: 'v1', kind: 'C' }] } };
    const other = csv('other', at('Succeeded', 'InstallSucceeded'), crds);
    const group = og();
    group.metadata.annotations = { 'olm.providedAPIs': 'C.v1.g' };
    const crd = () => ({ versions: [{ name: 'v1', served: true }], established: true, namesAccepted: true });
    const r = await transition(csv('a', at('Pending', 'RequirementsUnknown'), crds), { csvs: [other], operatorGroups: [group] }, { requirements: metRequirements({ crd }) });
    expect([r.phase, r.reason, r.message]).toEqual(['Failed', 'OwnerConflict', 'conflicting CRD owner in namespace']);
  });

  it('repeated webhook names: Failed/InvalidWebhookDescription', async () => {
    const hook = { type: 'ValidatingAdmissionWebhook' as const, generateName: 'v.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None' };
    const r = await transition(csv('a', at('Pending', 'RequirementsUnknown'), { webhookdefinitions: [hook, hook] }));
    expect([r.phase, r.reason, r.message]).toEqual(['Failed', 'InvalidWebhookDescription', 'CSV contains repeated WebhookDescription name']);
  });

  it('InstallReady with owned APIServices: a clear failure that is not retried', async () => {
    const group = og();
    group.metadata.annotations = { 'olm.providedAPIs': 'X.v1.x.io' };
    const r = await transition(csv('a', at('InstallReady', 'AllRequirementsMet'), { apiservicedefinitions: { owned: [{ name: 'x', group: 'x.io', version: 'v1', kind: 'X', deploymentName: 'dep' }] } }), { operatorGroups: [group] });
    expect([r.phase, r.reason]).toEqual(['Failed', 'InstallComponentFailedNoRetry']);
    expect(r.message).toBe('install strategy failed: owned APIServices (spec.apiservicedefinitions.owned) are not supported by this OLM: serve the API from a CustomResourceDefinition');
  });

  it('SingleCSVInstallReadyToInstalling: the Deployment written, then Installing', async () => {
    const r = await transition(csv('a', at('InstallReady', 'AllRequirementsMet')));
    expect([r.phase, r.reason, r.message]).toEqual(['Installing', 'InstallSucceeded', 'waiting for install components to report healthy']);
    expect(r.ports.calls).toContainEqual(expect.objectContaining({ verb: 'create', kind: 'Deployment', name: 'dep' }));
  });

  it('SingleCSVInstallingToSucceeded', async () => {
    const c = csv('a', at('Installing', 'InstallSucceeded'));
    const r = await transition(c, { deployments: [readyDeployment(c)] });
    expect([r.phase, r.reason, r.message]).toEqual(['Succeeded', 'InstallSucceeded', 'install strategy completed with no errors']);
  });

  it('Installing while the Deployment is missing: InstallWaiting, back soon', async () => {
    const r = await transition(csv('a', at('Installing', 'InstallSucceeded')));
    expect([r.phase, r.reason, r.message]).toEqual(['Installing', 'InstallWaiting', 'installing: missing deployment with name=dep']);
    expect(r.state.requeueAfterMs).toBeGreaterThan(0);
  });

  it('Installing past the 5-minute timeout: Failed/InstallCheckFailed install timeout', async () => {
    const since = formatTime(new Date(Date.parse('2026-01-01T00:10:00Z') - INSTALL_TIMEOUT_MS));
    const r = await transition(csv('a', at('Installing', 'InstallWaiting', since)));
    expect([r.phase, r.reason, r.message]).toEqual(['Failed', 'InstallCheckFailed', 'install timeout']);
  });

  it('Installing with a changed Deployment: back to InstallReady to reinstall', async () => {
    const c = csv('a', at('Installing', 'InstallSucceeded'));
    const dep = readyDeployment(c);
    dep.metadata.labels = { ...dep.metadata.labels, 'olm.deployment-spec-hash': 'stale' };
    const r = await transition(c, { deployments: [dep] });
    expect([r.phase, r.reason]).toEqual(['InstallReady', 'InstallWaiting']);
    expect(r.message).toMatch(/^installing: deployment changed old hash=stale, new hash=/);
  });

  it('CSVSucceededToReplacing', async () => {
    const c = csv('a', at('Succeeded', 'InstallSucceeded'));
    const r = await transition(c, { csvs: [csv('b', at('Pending', 'RequirementsUnknown'), { replaces: 'a' })] });
    expect([r.phase, r.reason, r.message]).toEqual(['Replacing', 'BeingReplaced', 'being replaced by csv: b']);
    expect(r.ports.upgrades.count).toBe(1);
  });

  it('Succeeded with an unhealthy Deployment: Failed/ComponentUnhealthy', async () => {
    const c = csv('a', at('Succeeded', 'InstallSucceeded'));
    const dep = readyDeployment(c);
    dep['status'] = { observedGeneration: 1, conditions: [{ type: 'Available', status: 'False', message: 'Deployment does not have minimum availability.' }] };
    const r = await transition(c, { deployments: [dep] });
    expect([r.phase, r.reason, r.message]).toEqual(['Failed', 'ComponentUnhealthy', 'installing: waiting for deployment dep to become ready: deployment "dep" not available: Deployment does not have minimum availability.']);
  });

  it('Succeeded whose Deployment OLM v1 adopted (a ClusterObjectSet controls it): left as it is while the adoption bumps its generation', async () => {
    const c = csv('a', at('Succeeded', 'InstallSucceeded'));
    const dep = readyDeployment(c);
    const cos = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterObjectSet', name: 'a-1', uid: 'cos', controller: true, blockOwnerDeletion: true };
    dep.metadata = { ...dep.metadata, generation: 2, ownerReferences: [...(dep.metadata.ownerReferences ?? []), cos] };
    const r = await transition(c, { deployments: [dep] });
    expect(r.outcome).toMatchObject({ step: 'skipAdoptedByV1', final: true });
    expect([r.phase, r.reason]).toEqual(['Succeeded', 'InstallSucceeded']);
    expect(r.ports.calls).toEqual([]);
    // not adopted (the ClusterObjectSet is no controller): judged as upstream does
    dep.metadata.ownerReferences = [...(dep.metadata.ownerReferences ?? []).filter((o) => o.kind !== 'ClusterObjectSet'), { ...cos, controller: false }];
    const judged = await transition(c, { deployments: [dep] });
    expect([judged.phase, judged.reason]).toEqual(['Failed', 'ComponentUnhealthy']);
  });

  it('SingleCSVFailedToPending/InstallModes/PreviouslyTooManyOperatorGroups', async () => {
    const r = await transition(csv('a', at('Failed', 'TooManyOperatorGroups')));
    expect([r.phase, r.reason, r.message]).toEqual(['Pending', 'RequirementsUnknown', 'InstallModes now support target namespaces']);
  });

  it('Failed/InterOperatorGroupOwnerConflict no longer intersecting: Pending', async () => {
    const r = await transition(csv('a', at('Failed', 'InterOperatorGroupOwnerConflict')));
    expect([r.phase, r.reason, r.message]).toEqual(['Pending', 'RequirementsUnknown', 'OperatorGroup no longer intersecting with conflicting owner']);
  });

  it('Failed with a healthy install: Succeeded again', async () => {
    const c = csv('a', at('Failed', 'ComponentUnhealthy'));
    const r = await transition(c, { deployments: [readyDeployment(c)] });
    expect([r.phase, r.reason]).toEqual(['Succeeded', 'InstallSucceeded']);
  });

  it('Failed with fail-forward and a replacement: Replacing', async () => {
    const r = await transition(csv('a', at('Failed', 'ComponentUnhealthy')), {
      operatorGroups: [og('og', { upgradeStrategy: 'TechPreviewUnsafeFailForward' })],
      csvs: [csv('b', at('Pending', 'RequirementsUnknown'), { replaces: 'a' })],
    });
    expect([r.phase, r.reason, r.message]).toEqual(['Replacing', 'BeingReplaced', 'Fail Forward is enabled, allowing Failed csv to be replaced by csv: b']);
  });

  it('CSVReplacingToDeleted: the replacement Succeeded', async () => {
    const r = await transition(csv('a', at('Replacing', 'BeingReplaced')), { csvs: [csv('b', at('Succeeded', 'InstallSucceeded'), { replaces: 'a' })] });
    expect([r.phase, r.reason, r.message]).toEqual(['Deleting', 'Replaced', 'has been replaced by a newer ClusterServiceVersion that has successfully installed.']);
  });

  it('CSVMultipleReplacingToDeleted: only the leaf of the chain moves', async () => {
    const a = csv('a', at('Replacing', 'BeingReplaced'));
    const b = csv('b', at('Replacing', 'BeingReplaced'), { replaces: 'a' });
    const c = csv('c', at('Succeeded', 'InstallSucceeded'), { replaces: 'b' });
    const middle = await transition(b, { csvs: [a, c] });
    expect([middle.phase, middle.reason]).toEqual(['Replacing', 'BeingReplaced']);
  });

  it('Replacing with no replacement left: upstream’s sync error', async () => {
    const r = await transition(csv('a', at('Replacing', 'BeingReplaced')));
    expect((r.outcome?.err as Error).message).toBe('marked as replacement, but no replacement CSV found in cluster');
  });

  it('Deleting: the CSV is deleted', async () => {
    const r = await transition(csv('a', at('Deleting', 'Replaced')));
    expect(r.ports.calls).toContainEqual({ verb: 'delete', kind: 'ClusterServiceVersion', name: 'a' });
  });

  it('InstallComponentFailedNoRetry is left alone', async () => {
    const r = await transition(csv('a', at('Failed', 'InstallComponentFailedNoRetry')));
    expect(r.outcome).toMatchObject({ step: 'skipFailedNoRetry', final: true });
  });
});

describe('installRetryInMs: a CSV whose install the API server refused backs off', () => {
  const time = (s: number): string => formatTime(new Date(Date.UTC(2026, 0, 1, 0, 0, s)));
  const failedAt = (s: number, history: [string, string][]): ClusterServiceVersion =>
    csv('op.v1', {
      phase: 'Failed',
      reason: 'InstallComponentFailed',
      message: 'install strategy failed: Deployment.apps "op" is invalid: spec.template.metadata.labels: Invalid value: {"app":"x"}: `selector` does not match template `labels`',
      lastTransitionTime: time(s),
      conditions: history.map(([phase, reason]) => ({ phase, reason })),
    });
  const now = (s: number): Date => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

  it('1 s after the first failed install, doubling per failed install since the last success', () => {
    const once = failedAt(10, [['Pending', 'RequirementsNotMet'], ['InstallReady', 'AllRequirementsMet'], ['Failed', 'InstallComponentFailed']]);
    expect(installRetryInMs(once, now(10))).toBe(1_000);
    expect(installRetryInMs(once, now(11))).toBe(0);
    const cycle: [string, string][] = [['Failed', 'InstallComponentFailed'], ['Pending', 'NeedsReinstall'], ['InstallReady', 'AllRequirementsMet']];
    const thrice = failedAt(10, [['Succeeded', 'InstallSucceeded'], ...cycle, ...cycle, ['Failed', 'InstallComponentFailed']]);
    expect(installRetryInMs(thrice, now(10))).toBe(4_000);
    // failures before the last success do not count
    const afterSuccess = failedAt(10, [...cycle, ...cycle, ['Succeeded', 'InstallSucceeded'], ['Failed', 'InstallComponentFailed']]);
    expect(installRetryInMs(afterSuccess, now(10))).toBe(1_000);
  });

  it('capped at 5 minutes; nothing to wait for in another phase or reason', () => {
    const many = failedAt(0, Array.from({ length: 20 }, (): [string, string] => ['Failed', 'InstallComponentFailed']));
    expect(installRetryInMs(many, now(0))).toBe(INSTALL_RETRY_MAX_MS);
    expect(installRetryInMs(csv('op.v1', { phase: 'Failed', reason: 'InstallCheckFailed', lastTransitionTime: time(0) }), now(0))).toBe(0);
    expect(installRetryInMs(csv('op.v1', { phase: 'Pending', reason: 'NeedsReinstall', lastTransitionTime: time(0) }), now(0))).toBe(0);
  });

  it('the Failed phase step waits out the backoff without changing status; then goes on as upstream', async () => {
    const failed = failedAt(10, [['Failed', 'InstallComponentFailed']]);
    const waiting = await transition(failed, {}, { now: now(10) });
    expect(waiting.out.status).toEqual(failed.status);
    expect(waiting.state.requeueAfterMs).toBe(1_000);
    const after = await transition(failed, {}, { now: now(11) });
    expect(after.phase).not.toBe('Failed');
  });
});
