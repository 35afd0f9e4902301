// The deployment manifests, tested as a cluster admin uses them: `config/default` applied to a cluster of its own
// (kustomize and server-side apply by the real kubectl), the two Deployments roll out on the KWOK node, and then
// both controllers run out of process with the bearer tokens of their own ServiceAccounts — exactly the RBAC that
// config/rbac grants, no admin credentials — with the Deployments' own arguments. The samples
// (config/samples) then install the demo operator from the demo catalog: first as upstream v1.11 does, with
// operator-controller's own (cluster-admin) identity; then with our ServiceAccountInstalls gate, without the
// cluster-admin binding, as the sample's service account. A rule missing from config/rbac fails here: as a
// `forbidden` in a controller's log, or as a catalog or extension that never gets ready.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../support/env.ts';
import type { KubeObject, TestKube } from '../../support/kube.ts';
import { freePort } from '../../support/net.ts';
import { stopProcess, type Managed } from '../../support/process.ts';
import { DeployCluster, deploymentArgs, NAMESPACE, root, withFlags } from './cluster.ts';

let cluster: DeployCluster;
let kube: TestKube;
let work: string;
let controllers: Managed[] = [];
const kubectl = (args: readonly string[], input?: string): Promise<string> => cluster.kubectl(args, input);
const kubectlOutput = (args: readonly string[], input?: string): Promise<{ stdout: string; stderr: string }> => cluster.kubectlOutput(args, input);
const waitForCondition = (path: string, type: string, timeoutMs: number): Promise<void> => cluster.waitForCondition(path, type, timeoutMs);
const startController = (name: string, args: readonly string[], token: string, health: number, logName = name): Promise<Managed> =>
  cluster.startController(name, args, token, health, logName);
const publishDemo = (host: string): Promise<void> => cluster.publishDemo(host);
const nothingForbidden = (): Promise<void> => cluster.nothingForbidden();
const demoInstalled = (): Promise<void> => cluster.demoInstalled();

/** What kubectl prints when a ClusterExtension sets the deprecated spec.serviceAccount (config/admission's policy). */
const SERVICE_ACCOUNT_WARNING =
  "Warning: Validation failed for ValidatingAdmissionPolicy 'clusterextension-serviceaccount-deprecated' with binding 'clusterextension-serviceaccount-deprecated': spec.serviceAccount is deprecated, ignored, and will be removed in a future release. The operator-controller's cluster-admin service account is used for all cluster interactions.";

beforeAll(async () => {
  cluster = await DeployCluster.start();
  kube = cluster.kube;
  work = cluster.work;
  controllers = cluster.controllers;
});

afterAll(async () => {
  await cluster?.stop();
});

const samples = join(root, 'config', 'samples');
let objects: KubeObject[] = [];

describe('config/default on a cluster of its own', () => {
  it('applies, rolls out, and runs both controllers with exactly config/rbac: the samples install the demo operator', { timeout: 300_000 }, async () => {
    const rendered = await kubectl(['kustomize', join(root, 'config', 'default')]);
    objects = yaml.loadAll(rendered).filter((o): o is KubeObject => !!o);
    expect(objects.filter((o) => o.kind === 'Deployment').map((o) => o.metadata.name).sort()).toEqual(['catalogd', 'operator-controller']);
    expect(objects.filter((o) => o.kind.endsWith('AdmissionPolicy') || o.kind.endsWith('AdmissionPolicyBinding')).map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      'MutatingAdmissionPolicy/inject-metadata-name.olm.operatorframework.io',
      'MutatingAdmissionPolicyBinding/inject-metadata-name.olm.operatorframework.io',
      'ValidatingAdmissionPolicy/clusterextension-serviceaccount-deprecated',
      'ValidatingAdmissionPolicyBinding/clusterextension-serviceaccount-deprecated',
    ]);
    await kubectl(['apply', '--server-side', '-f', '-'], rendered);
    await kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd/clustercatalogs.olm.operatorframework.io', 'crd/clusterextensions.olm.operatorframework.io']);
    // The manifests are valid for the real deployment controller and scheduler: both roll out on the KWOK node.
    await kubectl(['-n', NAMESPACE, 'rollout', 'status', '--timeout=120s', 'deployment/catalogd', 'deployment/operator-controller']);

    // Replace the in-cluster processes by local ones with the same identities and arguments. operator-controller
    // keeps its cluster-admin binding: as upstream, it installs every extension with its own identity.
    await kubectl(['-n', NAMESPACE, 'scale', '--replicas=0', 'deployment/catalogd', 'deployment/operator-controller']);
    const host = registry().host;
    const content = await freePort();
    const ports = { catalogd: [await freePort()], 'operator-controller': [await freePort()] } as const;
    // No certificate in these manifests: as upstream, neither serves metrics.
    const local = (name: keyof typeof ports): Record<string, string> => ({ 'health-probe-bind-address': `127.0.0.1:${ports[name][0]}` });
    await startController(
      'catalogd',
      withFlags(deploymentArgs(objects, 'catalogd'), {
        ...local('catalogd'),
        'catalogs-server-addr': `127.0.0.1:${content}`,
        'external-address': `127.0.0.1:${content}`,
        'cache-dir': join(work, 'catalogd'),
      }),
      await kube.serviceAccountToken(NAMESPACE, 'catalogd'),
      ports.catalogd[0],
    );
    await startController(
      'operator-controller',
      withFlags(deploymentArgs(objects, 'operator-controller'), { ...local('operator-controller'), 'cache-path': join(work, 'operator-controller') }),
      await kube.serviceAccountToken(NAMESPACE, 'operator-controller'),
      ports['operator-controller'][0],
    );

    await publishDemo(host);
    await cluster.applySample('clustercatalog.yaml', host);
    // The sample names no service account: no warning.
    expect((await kubectlOutput(['apply', '--server-side', '-f', join(samples, 'clusterextension.yaml')])).stderr).toBe('');

    await waitForCondition('/apis/olm.operatorframework.io/v1/clustercatalogs/olm-demo', 'Serving', 90_000);
    await demoInstalled();
    await nothingForbidden();
  });

  it('with --feature-gates=ServiceAccountInstalls=true and no cluster-admin binding, the service-account sample installs as its account', { timeout: 300_000 }, async () => {
    expect(controllers).toHaveLength(2); // the first test ran: catalogd, operator-controller
    // Uninstalled by the first operator-controller, which then stops (its log stays checked for refusals).
    await kubectl(['delete', 'clusterextension', 'demo-operator', '--timeout=120s']);
    await stopProcess(controllers[1]!);

    // Least privilege, as config/rbac documents it: every extension names its service account, so the
    // controller's cluster-admin binding goes; what is left must be enough.
    await kubectl(['delete', 'clusterrolebinding', 'olmv1-operator-controller-cluster-admin']);
    const health = await freePort();
    const gated = await startController(
      'operator-controller',
      withFlags(deploymentArgs(objects, 'operator-controller'), {
        'health-probe-bind-address': `127.0.0.1:${health}`,
        'cache-path': join(work, 'operator-controller'),
        'feature-gates': 'ServiceAccountInstalls=true',
      }),
      await kube.serviceAccountToken(NAMESPACE, 'operator-controller'),
      health,
      'operator-controller-gated',
    );
    // The field is deprecated upstream: config/default's policy warns, the gate honours it all the same.
    expect((await kubectlOutput(['apply', '--server-side', '-f', join(samples, 'clusterextension-serviceaccount.yaml')])).stderr).toBe(`${SERVICE_ACCOUNT_WARNING}\n`);
    await demoInstalled();
    await nothingForbidden();
    expect(await readFile(gated.logFile, 'utf8')).toContain('feature gate ServiceAccountInstalls is on');
  });
});
