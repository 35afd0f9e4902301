import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { ClusterServiceVersion } from '../../../api/operators/index.ts';
import type { StrategyError} from './install.ts';
import { buildDeployment, checkInstalled, deploymentStatus, isUnrecoverable } from './install.ts';

const csv: ClusterServiceVersion = {
  metadata: { name: 'op.v1', namespace: 'ns', uid: 'u1', annotations: { 'olm.targetNamespaces': 'ns', 'alm-examples': '[]' } },
  spec: {
    displayName: 'op',
    install: {
      strategy: 'deployment',
      spec: {
        deployments: [
          {
            name: 'op',
            label: { app: 'op' },
            spec: {
              selector: { matchLabels: { app: 'op' } },
              template: {
                metadata: { labels: { app: 'op' }, annotations: { 'alm-examples': 'template', kept: 'yes' } },
                spec: { containers: [{ name: 'm', image: 'i', env: [{ name: 'A', value: '1' }, { name: 'OPERATOR_CONDITION_NAME', value: 'old' }] }] },
              },
            },
          },
        ],
      },
    },
  },
};

const dep = (status: object, generation = 1, labels: Record<string, string> = {}, annotations?: Record<string, string>): KubeObject => ({
  metadata: { name: 'op', generation, labels: { 'olm.owner': 'op.v1', 'olm.owner.namespace': 'ns', 'olm.owner.kind': 'ClusterServiceVersion', ...labels } },
  spec: { template: { metadata: { annotations: annotations ?? csv.metadata.annotations } } },
  status,
});

describe('the deployment install strategy', () => {
  it('builds the Deployment as upstream: CSV annotations over the template’s, owner labels and reference, OPERATOR_CONDITION_NAME, spec hash', () => {
    const { deployment, hash } = buildDeployment(csv, { name: 'op', spec: csv.spec.install.spec!.deployments[0]!.spec, label: { app: 'op' } });
    expect(deployment.metadata).toEqual({
      name: 'op',
      namespace: 'ns',
      labels: { app: 'op', 'olm.managed': 'true', 'olm.owner': 'op.v1', 'olm.owner.namespace': 'ns', 'olm.owner.kind': 'ClusterServiceVersion', 'olm.deployment-spec-hash': hash },
      ownerReferences: [{ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', name: 'op.v1', uid: 'u1', blockOwnerDeletion: false, controller: false }],
    });
    const spec = deployment['spec'] as { revisionHistoryLimit: number; template: { metadata: { annotations: Record<string, string> }; spec: { containers: { env: unknown[] }[] } } };
    expect(spec.revisionHistoryLimit).toBe(1);
    expect(spec.template.metadata.annotations).toEqual({ 'alm-examples': '[]', kept: 'yes', 'olm.targetNamespaces': 'ns' });
    expect(spec.template.spec.containers[0]!.env).toEqual([{ name: 'A', value: '1' }, { name: 'OPERATOR_CONDITION_NAME', value: 'op.v1' }]);
    expect(deployment['status']).toBeUndefined();
    // Same input, same hash; another CSV annotation, another hash.
    expect(buildDeployment(csv, { name: 'op', spec: csv.spec.install.spec!.deployments[0]!.spec }).hash).toBe(hash);
    expect(buildDeployment({ ...csv, metadata: { ...csv.metadata, annotations: { x: 'y' } } }, { name: 'op', spec: csv.spec.install.spec!.deployments[0]!.spec }).hash).not.toBe(hash);
  });

  // upstream install/status_viewer.go DeploymentStatus.
  it.each([
    { d: dep({ observedGeneration: 0 }, 1), want: { message: 'waiting for spec update of deployment "op" to be observed...', ready: false } },
    { d: dep({ observedGeneration: 1, conditions: [{ type: 'Progressing', reason: 'ProgressDeadlineExceeded' }] }), want: { message: '', ready: false, error: 'deployment "op" exceeded its progress deadline' } },
    { d: dep({ observedGeneration: 1, replicas: 2, updatedReplicas: 1 }), want: { message: 'deployment "op" waiting for 1 outdated replica(s) to be terminated', ready: false } },
    { d: dep({ observedGeneration: 1 }), want: { message: 'deployment "op" not available: missing condition "Available"', ready: false } },
    { d: dep({ observedGeneration: 1, conditions: [{ type: 'Available', status: 'False', message: 'Deployment does not have minimum availability.' }] }), want: { message: 'deployment "op" not available: Deployment does not have minimum availability.', ready: false } },
    { d: dep({ observedGeneration: 1, conditions: [{ type: 'Available', status: 'True' }] }), want: { message: 'deployment "op" is up-to-date and available', ready: true } },
  ])('$want.message', ({ d, want }) => {
    expect(deploymentStatus(d)).toEqual(want);
  });

  it('checkInstalled names what is missing, with upstream’s reasons', () => {
    const ready = { observedGeneration: 1, conditions: [{ type: 'Available', status: 'True' }] };
    const { hash } = buildDeployment(csv, { name: 'op', spec: csv.spec.install.spec!.deployments[0]!.spec });
    const err = (existing: KubeObject[]): StrategyError => {
      try {
        checkInstalled(csv, existing, undefined);
      } catch (e) {
        return e as StrategyError;
      }
      throw new Error('no error');
    };
    expect(err([])).toMatchObject({ reason: 'ComponentMissing', message: 'missing deployment with name=op' });
    expect(err([dep({ observedGeneration: 1 })])).toMatchObject({ reason: 'Waiting', message: 'waiting for deployment op to become ready: deployment "op" not available: missing condition "Available"' });
    const timeout = err([dep({ observedGeneration: 1, conditions: [{ type: 'Progressing', reason: 'ProgressDeadlineExceeded' }] })]);
    expect(timeout).toMatchObject({ reason: 'Timeout', message: 'deployment op not ready before timeout: deployment "op" exceeded its progress deadline' });
    expect(isUnrecoverable(timeout)).toBe(true);
    expect(err([dep(ready, 1, {}, { 'alm-examples': '[]' })])).toMatchObject({ reason: 'AnnotationsMissing', message: 'annotations on deployment does not contain expected key: olm.targetNamespaces' });
    expect(err([dep(ready, 1, {}, { 'alm-examples': 'x', 'olm.targetNamespaces': 'ns' })])).toMatchObject({ message: 'unexpected annotation on deployment. Expected alm-examples:[], found alm-examples:x' });
    expect(err([dep(ready)])).toMatchObject({ reason: 'DeploymentUpdated', message: "deployment op doesn't have a spec hash, update it" });
    expect(err([dep(ready, 1, { 'olm.deployment-spec-hash': 'old' })])).toMatchObject({ reason: 'DeploymentUpdated', message: `deployment changed old hash=old, new hash=${hash}` });
    expect(() => checkInstalled(csv, [dep(ready, 1, { 'olm.deployment-spec-hash': hash })], undefined)).not.toThrow();
  });
});
