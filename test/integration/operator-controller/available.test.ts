// operator-controller end to end: the `Available` condition (beyond upstream) follows the health of
// the installed objects as it changes, not at the next resync (10 minutes here). No rollout
// stand-in runs: the test writes the Deployment's status as the Deployment controller would.
import { describe, expect, it } from 'vitest';
import { pushTestBundle } from '../../support/bundles.ts';
import { registry } from '../../support/env.ts';
import { sleep } from '../../support/net.ts';
import { setDeploymentAvailable } from '../../support/workloads.ts';
import { extCondition, installedBundle, operatorControllerSuite, waitForExtension } from './harness.ts';

const suite = operatorControllerSuite('oc-available', { controller: { resyncMs: 600_000 }, rollouts: false });

const available = (status: 'True' | 'False') => (e: Parameters<typeof extCondition>[0]): boolean => extCondition(e, 'Available')?.status === status;

describe('Available', () => {
  it('turns True when the Deployment becomes available and False when it stops being available, within seconds', async () => {
    const ns = suite.namespace();
    const b = await pushTestBundle(registry(), { packageName: 'avail', version: '1.0.0' });
    const { catalog } = await suite.serveCatalog('avail', [{ bundle: b }]);
    await suite.install('avail', { namespace: ns, packageName: 'avail', catalogName: catalog });
    const rolling = await waitForExtension('avail', 'waiting for its Deployment', available('False'));
    expect(extCondition(rolling, 'Available')?.message).toContain(`Deployment.apps/v1 ${ns}/${b.deploymentName}`);

    await setDeploymentAvailable(ns, b.deploymentName, true);
    const up = await waitForExtension('avail', 'installed and available', (e) => installedBundle(b.name)(e) && available('True')(e), 60_000);
    expect(extCondition(up, 'Available')?.reason).toBeDefined();

    // Let the pass that follows the status write (the extension's own update event) and the
    // 5-second requeue of the earlier "waiting for the Deployment" pass go by, so that only the
    // Deployment's status can wake the controller from here on.
    await sleep(6_000);
    // Pods go away: nothing about the extension or its catalog changes, only the Deployment's status.
    await setDeploymentAvailable(ns, b.deploymentName, false);
    const down = await waitForExtension('avail', 'unavailable', available('False'), 60_000);
    expect(extCondition(down, 'Available')?.message).toContain('condition "Available" is "False", not "True"');
    expect(down.status?.install?.bundle.name).toBe(b.name);

    await setDeploymentAvailable(ns, b.deploymentName, true);
    await waitForExtension('avail', 'available again', available('True'), 60_000);
  });
});
