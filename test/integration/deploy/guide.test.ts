// docs/deploy.md followed on a cluster of its own: cert-manager's kinds served (the guide's prerequisite for the
// cert-manager component), `kubectl apply --server-side -k config/install` exactly as the guide runs it (OLM v1, the
// olm-classic component, catalogd's certificate from cert-manager), the three Deployments rolled out on the KWOK node.
// Then each controller runs out of process with its ServiceAccount's token and its Deployment's arguments, the
// certificate files as the Secret mounts them (this test plays cert-manager's part and issues the Secret), and the
// guide's checks pass: the ClusterCatalog is served over HTTPS and the ClusterExtension installs from it; the
// CatalogSource in `olm` is READY and a Subscription installs the demo operator's CSV. Then the component for
// Kubernetes 1.32 to 1.35: its validating label policy in place of the mutating one. Last, the package-server
// component: olm-classic started again with its arguments keeps the certificate's Secret and the APIService's
// caBundle, and the API server lists PackageManifests through it (the cert-manager variant rendered).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../support/env.ts';
import type { KubeObject } from '../../support/kube.ts';
import { freePort, waitFor } from '../../support/net.ts';
import { PACKAGES_APISERVICE } from '../../support/package-server.ts';
import { DEMO_REGISTRY, DeployCluster, deploymentArgs, NAMESPACE, root, withFlags } from './cluster.ts';

let cluster: DeployCluster;
const kubectl = (args: readonly string[], input?: string): Promise<string> => cluster.kubectl(args, input);
const install = join(root, 'config', 'install');
const samples = join(root, 'config', 'samples');

beforeAll(async () => {
  cluster = await DeployCluster.start();
});

afterAll(async () => {
  await cluster?.stop();
});

/** The volume of a rendered Deployment that mounts `secretName`, as the files the kubelet would write. */
async function mountedSecretFiles(objects: readonly KubeObject[], deployment: string, secretName: string, certs: string): Promise<{ mountPath: string; dir: string }> {
  type Spec = {
    containers: { volumeMounts?: { name: string; mountPath: string }[] }[];
    volumes?: { name: string; secret?: { secretName: string; items?: { key: string; path: string }[] } }[];
  };
  const d = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === deployment) as (KubeObject & { spec: { template: { spec: Spec } } }) | undefined;
  const spec = d!.spec.template.spec;
  const volume = spec.volumes?.find((v) => v.secret?.secretName === secretName);
  expect(volume, `${deployment} mounts Secret ${secretName}`).toBeDefined();
  const mount = spec.containers[0]!.volumeMounts!.find((m) => m.name === volume!.name)!;
  const dir = join(cluster.work, `${deployment}-${volume!.name}`);
  await mkdir(dir, { recursive: true });
  for (const item of volume!.secret!.items ?? []) await writeFile(join(dir, item.path), await readFile(join(certs, item.key)));
  return { mountPath: mount.mountPath, dir };
}

/** Rewrites flag values under the container path `from` to the local directory `to`. */
const relocated = (args: readonly string[], from: string, to: string): string[] => args.map((a) => a.replace(`=${from}`, `=${to}`));

describe('docs/deploy.md on a cluster of its own', () => {
  it('config/install (olm-classic, cert-manager) applies and rolls out; catalogd serves HTTPS, the samples install with OLM v1 and OLM classic', { timeout: 420_000 }, async () => {
    // The guide's kustomization: OLM v1, the olm-classic component and the cert-manager component — as the guide shows
    // it, and applied with the guide's command.
    const guide = await readFile(join(root, 'docs', 'deploy.md'), 'utf8');
    const shown = /As shipped:\n\n```yaml\n([\s\S]*?)```/.exec(guide)?.[1];
    const { apiVersion: _a, kind: _k, ...shipped } = yaml.load(await readFile(join(install, 'kustomization.yaml'), 'utf8')) as Record<string, unknown>;
    expect(yaml.load(shown ?? '')).toEqual(shipped);
    expect(guide).toContain('kubectl apply --server-side -k config/install\n');
    const objects = yaml.loadAll(await kubectl(['kustomize', install])).filter((o): o is KubeObject => !!o);
    expect(objects.filter((o) => o.kind === 'Deployment').map((o) => `${o.metadata.namespace}/${o.metadata.name}`).sort()).toEqual([
      'olmv1-system/catalogd',
      'olmv1-system/olm-classic',
      'olmv1-system/operator-controller',
    ]);
    expect(objects.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name).sort()).toEqual(['olm', 'olmv1-system']);
    expect(objects.filter((o) => o.apiVersion === 'cert-manager.io/v1').map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`).sort()).toEqual([
      'Certificate/olmv1-system/catalogd-service-cert',
      'Certificate/olmv1-system/olmv1-ca',
      'Issuer/olmv1-system/olmv1-ca',
      'Issuer/olmv1-system/olmv1-self-sign-issuer',
    ]);
    const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name);
    expect(crds.filter((n) => n.endsWith('.operators.coreos.com')).sort()).toEqual(
      ['catalogsources', 'clusterserviceversions', 'installplans', 'olmconfigs', 'operatorconditions', 'operatorgroups', 'operators', 'subscriptions'].map((p) => `${p}.operators.coreos.com`),
    );

    // Prerequisite: cert-manager installed. Then the guide's one command.
    await cluster.serveCertManagerKinds();
    await kubectl(['apply', '--server-side', '-k', install]);
    await kubectl(['wait', '--for=condition=Established', '--timeout=60s', ...crds.map((n) => `crd/${n}`)]);
    const certificate = objects.find((o) => o.kind === 'Certificate' && o.metadata.name === 'catalogd-service-cert') as KubeObject & {
      spec: { dnsNames: string[]; secretName: string };
    };
    expect(certificate.spec.dnsNames).toEqual(['localhost', 'catalogd-service.olmv1-system.svc', 'catalogd-service.olmv1-system.svc.cluster.local']);
    const certs = await cluster.issueCatalogdCertificate(certificate);
    await kubectl(['-n', NAMESPACE, 'rollout', 'status', '--timeout=120s', 'deployment/catalogd', 'deployment/operator-controller', 'deployment/olm-classic']);

    // The three controllers out of process, as their ServiceAccounts, with their Deployments' arguments and the
    // certificate files where their volumes put them.
    await kubectl(['-n', NAMESPACE, 'scale', '--replicas=0', 'deployment/catalogd', 'deployment/operator-controller', 'deployment/olm-classic']);
    const host = registry().host;
    const token = (name: string): Promise<string> => cluster.kube.serviceAccountToken(NAMESPACE, name);
    // Metrics on a free port; operator-controller, given no certificate, serves none (upstream's rule).
    const local = async (metricsServed = true): Promise<{ health: number; flags: Record<string, string> }> => {
      const [health, metrics] = [await freePort(), await freePort()];
      return { health, flags: { 'health-probe-bind-address': `127.0.0.1:${health}`, ...(metricsServed && { 'metrics-bind-address': `127.0.0.1:${metrics}` }) } };
    };

    const serving = await mountedSecretFiles(objects, 'catalogd', certificate.spec.secretName, certs);
    const catalogdArgs = deploymentArgs(objects, 'catalogd');
    expect(catalogdArgs).toEqual(expect.arrayContaining([`--tls-cert=${serving.mountPath}/tls.crt`, `--tls-key=${serving.mountPath}/tls.key`]));
    const content = await freePort();
    const cd = await local();
    await cluster.startController(
      'catalogd',
      withFlags(relocated(catalogdArgs, serving.mountPath, serving.dir), {
        ...cd.flags,
        // `localhost` is one of the certificate's names, as upstream's.
        'catalogs-server-addr': `localhost:${content}`,
        'external-address': `localhost:${content}`,
        'cache-dir': join(cluster.work, 'catalogd'),
      }),
      await token('catalogd'),
      cd.health,
    );

    const trust = await mountedSecretFiles(objects, 'operator-controller', certificate.spec.secretName, certs);
    const ocArgs = deploymentArgs(objects, 'operator-controller');
    expect(ocArgs).toContain(`--catalogd-cas-dir=${trust.mountPath}`);
    const oc = await local(false);
    await cluster.startController(
      'operator-controller',
      withFlags(relocated(ocArgs, trust.mountPath, trust.dir), { ...oc.flags, 'cache-path': join(cluster.work, 'operator-controller') }),
      await token('operator-controller'),
      oc.health,
    );

    const classicArgs = deploymentArgs(objects, 'olm-classic');
    expect(classicArgs).toContain('--namespace=olm');
    const classic = await local();
    await cluster.startController(
      'olm-classic',
      withFlags(classicArgs, { ...classic.flags, 'cache-dir': join(cluster.work, 'olm-classic') }),
      await token('olm-classic'),
      classic.health,
    );

    // The guide's checks. OLM v1: the ClusterCatalog and ClusterExtension samples; the catalog is served over HTTPS.
    await cluster.publishDemo(host);
    await cluster.applySample('clustercatalog.yaml', host);
    await kubectl(['apply', '--server-side', '-f', join(samples, 'clusterextension.yaml')]);
    await cluster.waitForCondition('/apis/olm.operatorframework.io/v1/clustercatalogs/olm-demo', 'Serving', 90_000);
    const catalog = await cluster.kube.must<{ status: { urls: { base: string } } }>(cluster.kube.request('GET', '/apis/olm.operatorframework.io/v1/clustercatalogs/olm-demo'));
    expect(catalog.status.urls.base).toBe(`https://localhost:${content}/catalogs/olm-demo`);
    await cluster.demoInstalled();

    // OLM classic: the CatalogSource sample in the global catalog namespace `olm` (the component creates it), and a
    // Subscription in a namespace of its own with an OperatorGroup, as the guide shows.
    const sourceSample = (await readFile(join(samples, 'catalogsource.yaml'), 'utf8')).replaceAll(DEMO_REGISTRY, host);
    await kubectl(['apply', '--server-side', '-f', '-'], sourceSample);
    await kubectl(['-n', 'olm', 'wait', '--for=jsonpath={.status.connectionState.lastObservedState}=READY', '--timeout=90s', 'catalogsource/olm-demo']);
    const subscription = /```yaml\n(# OLM classic: a Subscription[\s\S]*?)```/.exec(guide)?.[1];
    expect(subscription, 'docs/deploy.md shows the Subscription example').toBeDefined();
    await kubectl(['apply', '--server-side', '-f', '-'], subscription!);
    await waitFor('the Subscription at the channel head', async () => {
      const out = await kubectl(['-n', 'demo-classic', 'get', 'subscription', 'demo-operator', '-o', 'jsonpath={.status.state} {.status.installedCSV}']);
      if (out === 'AtLatestKnown demo-operator.v0.3.0') return true;
      throw new Error(`state, installedCSV: ${out}`);
    }, { timeoutMs: 120_000 });
    await kubectl(['-n', 'demo-classic', 'wait', '--for=jsonpath={.status.phase}=Succeeded', '--timeout=120s', 'csv/demo-operator.v0.3.0']);
    await cluster.nothingForbidden();
  });

  it('before-kubernetes-1.36: no MutatingAdmissionPolicy; a ClusterCatalog without its name label is refused with the label to set', { timeout: 120_000 }, async () => {
    // The guide's line uncommented in a kustomization of its own over config/install.
    const overlay = join(cluster.work, 'before-1.36');
    await mkdir(overlay, { recursive: true });
    const config = relative(overlay, join(root, 'config'));
    await writeFile(join(overlay, 'kustomization.yaml'), `resources: [${config}/install]\ncomponents: [${config}/components/before-kubernetes-1.36]\n`);
    const objects = yaml.loadAll(await kubectl(['kustomize', overlay])).filter((o): o is KubeObject => !!o);
    expect(objects.filter((o) => o.kind.includes('AdmissionPolicy')).map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      'ValidatingAdmissionPolicy/clusterextension-serviceaccount-deprecated',
      'ValidatingAdmissionPolicy/require-metadata-name.olm.operatorframework.io',
      'ValidatingAdmissionPolicyBinding/clusterextension-serviceaccount-deprecated',
      'ValidatingAdmissionPolicyBinding/require-metadata-name.olm.operatorframework.io',
    ]);
    // As on a cluster that never had the mutating policy.
    await kubectl(['delete', 'mutatingadmissionpolicybinding,mutatingadmissionpolicy', 'inject-metadata-name.olm.operatorframework.io']);
    await kubectl(['apply', '--server-side', '-k', overlay]);

    const catalog = (labels: Record<string, string>): string =>
      JSON.stringify({
        apiVersion: 'olm.operatorframework.io/v1',
        kind: 'ClusterCatalog',
        metadata: { name: 'labelled', labels },
        spec: { source: { type: 'Image', image: { ref: 'registry.invalid/catalog:latest' } } },
      });
    await waitFor('the label policy refuses a catalog without its label', async () => {
      const refused = await kubectl(['create', '--dry-run=server', '-f', '-'], catalog({})).then(
        () => '',
        (err: Error) => err.message,
      );
      if (refused === '') return false;
      expect(refused).toContain(
        'ClusterCatalog labelled needs the label olm.operatorframework.io/metadata.name=labelled (this cluster has no MutatingAdmissionPolicy to set it)',
      );
      return true;
    });
    await expect(kubectl(['create', '--dry-run=server', '-f', '-'], catalog({ 'olm.operatorframework.io/metadata.name': 'other' }))).rejects.toThrow(/needs the label/);
    await kubectl(['create', '--dry-run=server', '-f', '-'], catalog({ 'olm.operatorframework.io/metadata.name': 'labelled' }));
    // The catalog catalogd already serves keeps being updated (its label was set by the mutating policy).
    await kubectl(['label', '--overwrite', 'clustercatalog', 'olm-demo', 'team=a']);
  });
  it('package-server: the APIService Available with the caBundle olm-classic sets (no insecureSkipTLSVerify), PackageManifests listed', { timeout: 300_000 }, async () => {
    // The guide's line uncommented, in a kustomization of its own over config/install.
    const overlay = join(cluster.work, 'package-server');
    await mkdir(overlay, { recursive: true });
    const config = relative(overlay, join(root, 'config'));
    await writeFile(join(overlay, 'kustomization.yaml'), `resources: [${config}/install]\ncomponents: [${config}/components/package-server]\n`);
    const objects = yaml.loadAll(await kubectl(['kustomize', overlay])).filter((o): o is KubeObject => !!o);
    type APIService = KubeObject & { spec: { caBundle?: string; insecureSkipTLSVerify?: boolean; service: { namespace: string; name: string; port: number } } };
    const rendered = objects.find((o) => o.kind === 'APIService') as APIService | undefined;
    expect(rendered?.metadata.name).toBe(PACKAGES_APISERVICE);
    expect(rendered?.spec).not.toHaveProperty('insecureSkipTLSVerify');
    expect(rendered?.spec).not.toHaveProperty('caBundle');
    expect(rendered?.spec.service).toEqual({ namespace: NAMESPACE, name: 'packageserver-service', port: 443 });
    const classicArgs = deploymentArgs(objects, 'olm-classic');
    expect(classicArgs).toEqual(expect.arrayContaining(['--package-server-bind-address=:5443', `--package-server-service=${NAMESPACE}/packageserver-service`]));

    // The cert-manager variant renders over it: the Certificate, the mounted Secret, the cainjector's annotation.
    const viaCertManager = join(cluster.work, 'package-server-cert-manager');
    await mkdir(viaCertManager, { recursive: true });
    await writeFile(
      join(viaCertManager, 'kustomization.yaml'),
      `resources: [${relative(viaCertManager, join(root, 'config'))}/install]\ncomponents: [${['package-server', 'package-server-cert-manager'].map((c) => `${relative(viaCertManager, join(root, 'config'))}/components/${c}`).join(', ')}]\n`,
    );
    const cm = yaml.loadAll(await kubectl(['kustomize', viaCertManager])).filter((o): o is KubeObject => !!o);
    const certificate = cm.find((o) => o.kind === 'Certificate' && o.metadata.name === 'packageserver-service-tls') as (KubeObject & { spec: { dnsNames: string[] } }) | undefined;
    expect(certificate?.spec.dnsNames).toEqual([`packageserver-service.${NAMESPACE}`, `packageserver-service.${NAMESPACE}.svc`, `packageserver-service.${NAMESPACE}.svc.cluster.local`]);
    expect(cm.find((o) => o.kind === 'APIService')?.metadata.annotations).toEqual({ 'cert-manager.io/inject-ca-from': `${NAMESPACE}/packageserver-service-tls` });
    expect(deploymentArgs(cm, 'olm-classic')).toContain('--package-server-cert-dir=/var/run/package-server-certs');

    await kubectl(['apply', '--server-side', '-k', overlay]);
    // The test plays the Pod network: the Service in front of the olm-classic Pods (on a KWOK node, not reachable)
    // becomes one the aggregator resolves to this machine, where olm-classic runs, and the APIService names its port.
    const port = await freePort();
    await cluster.kube.must(cluster.kube.request('DELETE', `/api/v1/namespaces/${NAMESPACE}/services/packageserver-service`));
    await cluster.kube.must(
      cluster.kube.request('POST', `/api/v1/namespaces/${NAMESPACE}/services`, {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'packageserver-service' },
        spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'https', port }] },
      }),
    );
    const apiServicePath = `/apis/apiregistration.k8s.io/v1/apiservices/${PACKAGES_APISERVICE}`;
    await cluster.kube.must(cluster.kube.request('PATCH', apiServicePath, { spec: { service: { port } } }, 'application/merge-patch+json'));

    // olm-classic again, with the Deployment's arguments now (the package server on the port the Service names).
    await cluster.stopController('olm-classic');
    const [health, metrics] = [await freePort(), await freePort()];
    await cluster.startController(
      'olm-classic',
      withFlags(classicArgs, {
        'health-probe-bind-address': `127.0.0.1:${health}`,
        'metrics-bind-address': `127.0.0.1:${metrics}`,
        'cache-dir': join(cluster.work, 'olm-classic-packages'),
        'package-server-bind-address': `127.0.0.1:${port}`,
      }),
      await cluster.kube.serviceAccountToken(NAMESPACE, 'olm-classic'),
      health,
      'olm-classic-packages',
    );
    await cluster.waitForCondition(apiServicePath, 'Available', 120_000);
    const live = await cluster.kube.must<APIService>(cluster.kube.request('GET', apiServicePath));
    const secret = await cluster.kube.must<KubeObject & { data: Record<string, string> }>(cluster.kube.request('GET', `/api/v1/namespaces/${NAMESPACE}/secrets/packageserver-service-cert`));
    expect(live.spec.insecureSkipTLSVerify).toBeFalsy();
    expect(live.spec.caBundle).toBe(secret.data['olmCAKey']);
    // The guide's check: the CatalogSource's packages, through the API server and the package server.
    await waitFor('kubectl -n olm get packagemanifests lists the demo operator', async () => {
      const out = await kubectl(['-n', 'olm', 'get', 'packagemanifests']);
      if (/^demo-operator\s+OLM demo catalog\s/m.test(out)) return true;
      throw new Error(`kubectl get packagemanifests: ${out}`);
    });
    expect(await kubectl(['-n', 'olm', 'get', 'packagemanifest', 'demo-operator', '-o', 'jsonpath={.status.catalogSource} {.status.defaultChannel}'])).toBe('olm-demo stable');
    await cluster.nothingForbidden();
  });
});
