// operator-controller end to end: the `Available` condition (beyond upstream) follows the health of
// the installed objects as it changes, not at the next resync (10 minutes here). The Deployment
// rolls out through the real deployment controller onto KWOK nodes; the test makes its Pods not
// ready (KWOK's pod-not-ready stage) and ready again, and the Deployment controller does the rest.
import { describe, expect, it } from 'vitest';
import { pushTestBundle } from '../../support/bundles.ts';
import { adminKube, registry } from '../../support/env.ts';
import { waitForSettled } from '../../support/in-process.ts';
import { setDeploymentPodsReady } from '../../support/workloads.ts';
import { extCondition, getExtension, installedBundle, operatorControllerSuite, waitForExtension } from './harness.ts';

const suite = operatorControllerSuite('oc-available', { controller: { resyncMs: 600_000 } });

const available = (status: 'True' | 'False') => (e: Parameters<typeof extCondition>[0]): boolean => extCondition(e, 'Available')?.status === status;

describe('Available', () => {
  it('turns True when the Deployment becomes available and False when its Pods stop being ready, within seconds', async () => {
    const ns = suite.namespace();
    const b = await pushTestBundle(registry(), { packageName: 'avail', version: '1.0.0' });
    const { catalog } = await suite.serveCatalog('avail', [{ bundle: b }]);
    await suite.install('avail', { namespace: ns, packageName: 'avail', catalogName: catalog });
    const up = await waitForExtension('avail', 'installed and available', (e) => installedBundle(b.name)(e) && available('True')(e), 60_000);
    expect(up.status?.install?.bundle).toMatchObject({ name: b.name, version: '1.0.0' });
    expect(extCondition(up, 'Available')).toMatchObject({ status: 'True', observedGeneration: up.metadata.generation });
    const deployment = async () =>
      adminKube().must<{ status: { conditions: { type: string; status: string; reason: string; message: string }[] } }>(
        adminKube().request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/${b.deploymentName}`),
      );
    expect((await deployment()).status.conditions.find((c) => c.type === 'Available')).toMatchObject({ status: 'True', reason: 'MinimumReplicasAvailable' });

    // Wait until the controller's cache has the status write, no pass of the extension is queued or running, and
    // none is due within a minute (no 5-second requeue of an earlier "waiting for the Deployment" pass, only the
    // 10-minute resync), so that only the Deployment's status can wake the controller from here on.
    const { parts } = suite.controller();
    await waitForSettled(
      'the status write and any requeue',
      parts.controller.queue,
      'avail',
      async () => parts.extensions.get('avail')?.metadata.resourceVersion === (await getExtension('avail'))?.metadata.resourceVersion,
      { quietMs: 60_000 },
    );
    // Pods stop being ready: nothing about the extension or its catalog changes, only the
    // Deployment's status, written by the deployment controller.
    await setDeploymentPodsReady(ns, b.deploymentName, false);
    const down = await waitForExtension('avail', 'unavailable', available('False'), 60_000);
    const deploymentDown = (await deployment()).status.conditions.find((c) => c.type === 'Available');
    expect(deploymentDown).toMatchObject({ status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' });
    expect(extCondition(down, 'Available')?.message).toContain(`Deployment.apps/v1 ${ns}/${b.deploymentName}`);
    expect(extCondition(down, 'Available')?.message).toContain('condition "Available" is "False", not "True"');
    expect(down.status?.install?.bundle.name).toBe(b.name);

    await setDeploymentPodsReady(ns, b.deploymentName, true);
    const again = await waitForExtension('avail', 'available again', available('True'), 60_000);
    expect(again.status?.install?.bundle.name).toBe(b.name);
  });
});
