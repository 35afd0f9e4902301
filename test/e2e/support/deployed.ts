// A profile deployed as upstream's e2e deploys it (kind + helm/olmv1): catalogd and operator-controller as Pods of the
// project's image on a real node (test/support/real-node.ts), installed from the project's manifests — config/default
// (standard) or config/experimental — with the profile's feature gates, catalogd's replicas, catalogd serving HTTPS
// with a certificate operator-controller trusts (the catalogd-tls component) and operator-controller's metrics
// certificate (this file issues both Secrets, as upstream's cert-manager Certificates would), upstream's e2e registries.conf mounted into operator-controller, and `--insecure-registries` for the local
// plain-HTTP registry. The cluster and its registry are the profile's own; busybox (Debian's, as `busybox:1.36`) is in
// it for the test operators. For the scenarios that need Pods: metrics, TLS profiles, proxy, HA, the webhook operator.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { bundleControllers } from '../../../cmd/bundle.ts';
import { buildAndPush } from '../../../cmd/image.ts';
import { createSignedServingPair, generateCA } from '../../../internal/classic/csv/index.ts';
import { RegistryClient } from '../../../internal/shared/image/index.ts';
import { pushBusyboxImage } from '../../support/cluster-images.ts';
import { ControlPlane } from '../../support/control-plane.ts';
import { useControlPlane, useRegistry } from '../../support/env.ts';
import { TestKube } from '../../support/kube.ts';
import { NodeNetwork } from '../../support/real-node.ts';
import { Registry } from '../../support/registry.ts';
import { Kubectl } from './kubectl.ts';
import { e2eRegistriesConf, tagGates, type ProfileSpec, type RunningProfile } from './profile.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const NAMESPACE = 'olmv1-system';
const DEPLOYMENTS = ['catalogd', 'operator-controller'] as const;

/** A JSON6902 patch of one Deployment's first container (and volumes), as a kustomization `patches` entry. */
const deploymentPatch = (name: string, ops: readonly object[]): object => ({
  target: { group: 'apps', version: 'v1', kind: 'Deployment', name },
  patch: yaml.dump(ops),
});
const addArg = (value: string): object => ({ op: 'add', path: '/spec/template/spec/containers/0/args/-', value });

/** A CA and a serving certificate (ECDSA, as upstream's e2e certificates) for `service`'s names, as a kubernetes.io/tls Secret's data. */
function serviceCertificate(service: string): Record<string, string> {
  const notAfter = new Date(Date.now() + 2 * 24 * 3600_000);
  const ca = generateCA(notAfter, 'olmv1-ca');
  const serving = createSignedServingPair(notAfter, ca, [`${service}.${NAMESPACE}.svc`, `${service}.${NAMESPACE}.svc.cluster.local`, 'localhost']);
  const b64 = (pem: string): string => Buffer.from(pem).toString('base64');
  return { 'tls.crt': b64(serving.certPEM), 'tls.key': b64(serving.keyPEM), 'ca.crt': b64(ca.certPEM) };
}

export async function startDeployedProfile(spec: ProfileSpec): Promise<RunningProfile> {
  const work = await mkdtemp(join(tmpdir(), `e2e-${spec.name}-pods-`));
  const network = await NodeNetwork.create();
  const reg = new Registry({ address: network.gateway });
  let started: ControlPlane | undefined;
  const dist = join(ROOT, '.cache', 'test-bundles', `e2e-${spec.name}-${process.pid}`);
  const stop = async (): Promise<void> => {
    useControlPlane(undefined);
    useRegistry(undefined);
    await started?.stop();
    await reg.stop();
    await network.destroy();
    await rm(work, { recursive: true, force: true });
    await rm(dist, { recursive: true, force: true });
  };
  try {
    const regInfo = await reg.start();
    const cluster = new ControlPlane({ nodes: 0, realNodes: { network, registryHost: regInfo.host } });
    started = cluster;
    const [info] = await Promise.all([cluster.start(), bundleControllers(dist), pushBusyboxImage(regInfo.host)]);
    useControlPlane(info);
    useRegistry(regInfo);
    const client = new RegistryClient({ insecureRegistries: [regInfo.host] });
    const image = await buildAndPush({ target: `${regInfo.host}/olm/olmv1:e2e`, dist, client }).finally(() => client.close());
    const kube = new TestKube(info);
    const kubectl = new Kubectl(info.kubeconfigPath, join(work, 'kubectl-cache'));

    // The profile's installation: upstream's manifests for it, as a user's overlay adjusts them.
    const overlay = join(work, 'install');
    await mkdir(overlay, { recursive: true });
    await writeFile(join(overlay, 'registries.conf'), e2eRegistriesConf(regInfo.host));
    const gates = (g: Readonly<Record<string, boolean>>): string =>
      Object.entries(g)
        .map(([k, v]) => `${k}=${v}`)
        .join(',');
    const [name, digest] = image.digestRef.split('@') as [string, string];
    await writeFile(
      join(overlay, 'kustomization.yaml'),
      yaml.dump({
        apiVersion: 'kustomize.config.k8s.io/v1beta1',
        kind: 'Kustomization',
        resources: [relative(overlay, join(ROOT, 'config', spec.crdDir === 'experimental' ? 'experimental' : 'default'))],
        components: [relative(overlay, join(ROOT, 'config', 'components', 'catalogd-tls'))],
        images: [{ name: 'olmv1', newName: name, digest }],
        configMapGenerator: [{ name: 'e2e-registries-conf', namespace: NAMESPACE, files: ['registries.conf'], options: { disableNameSuffixHash: true } }],
        patches: [
          deploymentPatch('catalogd', [
            addArg(`--feature-gates=${gates(spec.catalogdGates)}`),
            addArg(`--insecure-registries=${regInfo.host}`),
            { op: 'replace', path: '/spec/replicas', value: spec.catalogdReplicas },
          ]),
          deploymentPatch('operator-controller', [
            addArg(`--feature-gates=${gates(spec.operatorControllerGates)}`),
            // Its metrics' certificate, as upstream's cert-manager Certificate operator-controller-cert gives it.
            addArg('--tls-cert=/var/certs/tls.crt'),
            addArg('--tls-key=/var/certs/tls.key'),
            { op: 'add', path: '/spec/template/spec/containers/0/volumeMounts/-', value: { name: 'metrics-cert', mountPath: '/var/certs', readOnly: true } },
            { op: 'add', path: '/spec/template/spec/volumes/-', value: { name: 'metrics-cert', secret: { secretName: 'operator-controller-cert' } } },
            addArg(`--insecure-registries=${regInfo.host}`),
            addArg('--registries-conf=/etc/containers/registries.conf'),
            { op: 'add', path: '/spec/template/spec/containers/0/volumeMounts/-', value: { name: 'e2e-registries-conf', mountPath: '/etc/containers', readOnly: true } },
            { op: 'add', path: '/spec/template/spec/volumes/-', value: { name: 'e2e-registries-conf', configMap: { name: 'e2e-registries-conf' } } },
          ]),
        ],
      }),
    );
    await kubectl.must(['apply', '--server-side', '-k', overlay]);
    for (const [secret, service] of [
      ['catalogd-service-cert', 'catalogd-service'],
      ['operator-controller-cert', 'operator-controller-service'],
    ] as const) {
      await kube.must(
        kube.request('POST', `/api/v1/namespaces/${NAMESPACE}/secrets`, {
          apiVersion: 'v1',
          kind: 'Secret',
          type: 'kubernetes.io/tls',
          metadata: { name: secret },
          data: serviceCertificate(service),
        }),
      );
    }
    const rollout = await kubectl.run(['-n', NAMESPACE, 'rollout', 'status', '--timeout=300s', ...DEPLOYMENTS.map((d) => `deployment/${d}`)]);
    if (rollout.code !== 0) {
      const pods = await kubectl.run(['-n', NAMESPACE, 'get', 'pods', '-o', 'wide']);
      throw new Error(`the ${spec.name} profile's controllers did not roll out: ${rollout.stderr}\n${pods.stdout}`);
    }
    return {
      spec,
      cluster: info,
      kube,
      kubectl,
      olmNamespace: NAMESPACE,
      gates: tagGates(spec),
      unknownGates: [],
      deployed: true,
      hostAddress: network.gateway,
      stop,
    };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}
