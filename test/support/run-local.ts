// `make run`: a local control plane and registry (unless KUBECONFIG names a cluster), the CRDs
// installed (OLM v1's and classic's), the demo catalog, bundles and operator image (demo/) pushed to the registry, and
// the controllers (catalogd, operator-controller, olm-classic) running with their logs in this
// terminal. Ctrl-C stops all. The cluster's node is a real one (test/support/real-node.ts: installed operators' Pods
// run as containers) where this machine allows it (root, containerd, runc, the CNI plugins: make system-deps), KWOK's
// simulated nodes otherwise.
//
// The registry listens on 127.0.0.1:5001 and catalogd's content server on 127.0.0.1:18443, both
// fixed: the demo catalog names its images `localhost:5001/...` and the README tutorial reaches
// catalogd there. One `make run` at a time, then.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { runCaptured } from '../../internal/cli/index.ts';
import { isAlreadyExists, isNoKindMatch, KubeClient } from '../../internal/shared/kube/index.ts';
import { loadCatalog } from '../../internal/shared/fbc/index.ts';
import { binaries } from './binaries.ts';
import { ControlPlane } from './control-plane.ts';
import { installAdmissionPolicies } from './admission.ts';
import { installClassicCRDs, installCrds, yamlFiles } from './crds.ts';
import { TestKube } from './kube.ts';
import { portFree, waitFor } from './net.ts';
import { PACKAGES_SERVICE, registerPackageServer } from './package-server.ts';
import { forwardToLoopback, NodeNetwork, realNodesUnavailable } from './real-node.ts';
import { PortInUseError, Registry } from './registry.ts';
import { pushDemoOperator } from './demo.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The demo catalog's image references name this registry (demo/catalog). */
const REGISTRY_PORT = 5001;
const REGISTRY_HOST = `localhost:${REGISTRY_PORT}`;
const DEMO_CATALOG_IMAGE = `${REGISTRY_HOST}/olm-demo/catalog:latest`;
/** catalogd's content server (plain HTTP). */
const CATALOGD_PORT = 18443;
/** olm-classic's package server on a cluster make run starts (registered with its aggregation layer). */
const PACKAGE_SERVER_PORT = 18444;
const CATALOGD_ADDRESS = `127.0.0.1:${CATALOGD_PORT}`;
/** Where operator-controller keeps revision records (its --system-namespace default). */
const SYSTEM_NAMESPACE = 'olmv1-system';
/** OLM classic's global catalog namespace (olm-classic's --namespace default, upstream's `olm`). */
const CLASSIC_NAMESPACE = 'olm';
const stops: (() => Promise<void>)[] = [];
const children: ChildProcess[] = [];
let stopping = false;

async function main(): Promise<void> {
  let kubeconfigPath = process.env.KUBECONFIG;
  let registryHosts: string[] = [];
  const runDir = join(root, '.cache', 'run');
  await mkdir(runDir, { recursive: true });
  let kubectlDir: string | undefined;
  let kube: TestKube | undefined;
  // Fail before starting anything when another make run holds the fixed ports.
  const ownCluster = !kubeconfigPath;
  for (const port of [...(kubeconfigPath ? [] : [REGISTRY_PORT, PACKAGE_SERVER_PORT]), CATALOGD_PORT]) {
    if (!(await portFree(port))) throw new PortInUseError(port);
  }
  if (!kubeconfigPath) {
    const unavailable = realNodesUnavailable();
    console.log(
      `starting a local cluster (kube-apiserver + etcd, controller-manager, scheduler, ${unavailable ? `simulated nodes — no real node: ${unavailable}` : 'a real node'}) and a registry on 127.0.0.1:${REGISTRY_PORT} ...`,
    );
    const reg = new Registry({ port: REGISTRY_PORT });
    let cp: ControlPlane;
    if (unavailable) {
      cp = new ControlPlane();
      stops.push(() => reg.stop(), () => cp.stop());
      await Promise.all([cp.start(), reg.start()]);
    } else {
      // The node pulls from the registry at its gateway (a forwarder to the loopback registry the tutorial names).
      const network = await NodeNetwork.create();
      stops.push(() => network.destroy());
      await reg.start();
      const closeForward = await forwardToLoopback(network.gateway, REGISTRY_PORT);
      cp = new ControlPlane({ nodes: 0, realNodes: { network, registryHost: `${network.gateway}:${REGISTRY_PORT}` } });
      // Stopped in this order, before the network goes.
      stops.unshift(() => reg.stop(), () => cp.stop(), closeForward);
      await cp.start();
    }
    const info = cp.details;
    kubeconfigPath = join(runDir, 'kubeconfig');
    await copyFile(info.kubeconfigPath, kubeconfigPath);
    registryHosts = [REGISTRY_HOST, `127.0.0.1:${REGISTRY_PORT}`];
    kube = new TestKube(info);
    await installCrds(kube, await yamlFiles(`${root}config/crd/bases`));
    await installClassicCRDs(kube);
    await installAdmissionPolicies(kube, `${root}config/admission`);
    kubectlDir = await kubectlLink(runDir);
    console.log(`control plane: ${info.server}\nregistry:      ${REGISTRY_HOST} (plain HTTP)`);
    await publishDemo();
  } else {
    console.log(
      `using the cluster in KUBECONFIG=${kubeconfigPath}; apply the CRDs and policies with: kubectl apply -k config/crd && kubectl apply -k config/admission (OLM classic's: kubectl apply -k config/crd/classic)`,
    );
  }
  const client = await KubeClient.fromConfig({ kubeconfig: kubeconfigPath });
  let classic: boolean;
  try {
    await ensureNamespace(client, SYSTEM_NAMESPACE);
    classic = await servesClassic(client);
    if (classic) await ensureNamespace(client, CLASSIC_NAMESPACE);
  } finally {
    await client.close();
  }
  if (!classic) console.log('olm-classic is not started: the cluster does not serve operators.coreos.com (kubectl apply -k config/crd/classic)');
  const env = {
    ...process.env,
    KUBECONFIG: kubeconfigPath,
    ...(registryHosts.length > 0 ? { OLM_INSECURE_REGISTRIES: registryHosts.join(',') } : {}),
  };
  const ports: Record<string, [number, number]> = {
    catalogd: [18081, 18080],
    'operator-controller': [18083, 18082],
    ...(classic && { 'olm-classic': [18085, 18084] as [number, number] }),
  };
  // catalogd serves catalogs over plain HTTP on 127.0.0.1:18443 and keeps its cache under .cache/run.
  const extra: Record<string, string[]> = {
    catalogd: [`--catalogs-server-addr=${CATALOGD_ADDRESS}`, `--external-address=${CATALOGD_ADDRESS}`, `--cache-dir=${runDir}/catalogd`],
    'operator-controller': [
      `--cache-path=${runDir}/operator-controller`,
      `--system-namespace=${SYSTEM_NAMESPACE}`,
      // e.g. ServiceAccountInstalls=true (ours): extensions install as their spec.serviceAccount (docs/configuration.md).
      ...(process.env['OPERATOR_CONTROLLER_FEATURE_GATES'] ? [`--feature-gates=${process.env['OPERATOR_CONTROLLER_FEATURE_GATES']}`] : []),
    ],
    'olm-classic': [
      `--namespace=${CLASSIC_NAMESPACE}`,
      `--cache-dir=${runDir}/olm-classic`,
      // On its own cluster the API server reaches this machine's localhost: PackageManifests through the aggregation layer.
      ...(ownCluster ? [`--package-server-bind-address=127.0.0.1:${PACKAGE_SERVER_PORT}`, `--package-server-service=${CLASSIC_NAMESPACE}/${PACKAGES_SERVICE}`] : []),
    ],
  };
  for (const [name, [health, metrics]] of Object.entries(ports)) {
    // The children write to a pipe (json by default); in a terminal, `make run` asks them for the readable text format.
    const format = process.stdout.isTTY === true ? ['--log-format=text'] : [];
    // catalogd and operator-controller serve metrics (HTTPS) only given a certificate, as upstream's; olm-classic over HTTP.
    const metricsFlag = name === 'olm-classic' ? [`--metrics-bind-address=127.0.0.1:${metrics}`] : [];
    const args = [`--health-probe-bind-address=127.0.0.1:${health}`, ...metricsFlag, ...format, ...(extra[name] ?? [])];
    const child = spawn(process.execPath, ['--import', 'tsx', `${root}cmd/${name}/main.ts`, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Own process group: Ctrl-C reaches only this script, which stops the children once (SIGTERM).
      detached: true,
    });
    children.push(child);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (l) => console.log(`[${name}] ${l}`));
    }
    child.on('exit', (code, signal) => {
      if (!stopping) {
        console.error(`[${name}] exited (${code ?? signal}); stopping`);
        void shutdown(1);
      }
    });
  }
  for (const [name, [health]] of Object.entries(ports)) {
    await waitFor(`${name} /readyz`, async () => {
      const res = await request(`http://127.0.0.1:${health}/readyz`);
      await res.body.dump();
      return res.statusCode === 200;
    }, { timeoutMs: 180_000, intervalMs: 500 });
  }
  const packages = classic && kube !== undefined;
  if (packages) await registerPackageServer(kube!, CLASSIC_NAMESPACE, PACKAGE_SERVER_PORT);
  console.log(nextSteps(kubeconfigPath, kubectlDir, registryHosts, classic, packages));
}

/** Whether the cluster serves OLM classic's API (its CRDs applied), so olm-classic can start. */
async function servesClassic(client: KubeClient): Promise<boolean> {
  try {
    await client.listAll({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource' });
    return true;
  } catch (err) {
    if (isNoKindMatch(err)) return false;
    throw err;
  }
}

/** `.cache/run/bin/kubectl`: a link to the control-plane binary, which runs kubectl v1.36 when called so. */
async function kubectlLink(runDir: string): Promise<string> {
  const dir = join(runDir, 'bin');
  await mkdir(dir, { recursive: true });
  await rm(join(dir, 'kubectl'), { force: true });
  await symlink((await binaries()).apiserver, join(dir, 'kubectl'));
  return dir;
}

/** Runs a kubectl-olm command in this process; its output is shown only when it fails. */
async function olm(argv: string[]): Promise<void> {
  const r = await runCaptured(argv, { cwd: root, env: process.env });
  if (r.code !== 0) throw new Error(`kubectl olm ${argv.join(' ')} failed (exit ${r.code}):\n${(r.stdout + r.stderr).trimEnd()}`);
}

/** Pushes every bundle the demo catalog lists (from demo/bundles/<bundle name>), the catalog and the operator's image. */
async function publishDemo(): Promise<void> {
  const catalogDir = join(root, 'demo', 'catalog');
  const { config } = await loadCatalog(catalogDir);
  for (const b of config.bundles) {
    await olm(['bundle', 'push', join(root, 'demo', 'bundles', b.name), b.image, '--plain-http']);
  }
  await olm(['catalog', 'push', catalogDir, DEMO_CATALOG_IMAGE, '--plain-http']);
  await pushDemoOperator(REGISTRY_HOST);
  console.log(`demo:          pushed ${config.bundles.length} bundles of ${config.packages.map((p) => p.name).join(', ')} and the catalog ${DEMO_CATALOG_IMAGE}`);
}

async function ensureNamespace(client: KubeClient, name: string): Promise<void> {
  try {
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

function nextSteps(kubeconfig: string, kubectlDir: string | undefined, insecure: readonly string[], classic: boolean, packages: boolean): string {
  const bin = join(root, 'bin');
  return [
    '',
    'olmv1 is running. In another terminal, from this checkout:',
    `  export KUBECONFIG=${kubeconfig}`,
    ...(kubectlDir ? [`  export PATH=${kubectlDir}:$PATH   # optional: kubectl v1.36 from the control-plane binary`] : []),
    `  export PATH=${bin}:$PATH   # kubectl-olm from this checkout: \`kubectl olm …\` (or run bin/kubectl-olm …)`,
    'With the CLI:',
    '  kubectl olm catalog add olm-demo localhost:5001/olm-demo/catalog:latest --wait   # the demo catalog',
    '  kubectl olm search demo',
    '  kubectl olm install demo-operator -n demo --create-namespace --channel stable --version 0.1.x --wait',
    '  kubectl olm status demo-operator',
    '  kubectl olm --help                                       # upgrade, explain, uninstall, completion, …',
    'Or with kubectl and the samples:',
    '  kubectl apply -f config/samples/clustercatalog.yaml       # the demo catalog',
    '  kubectl wait --for=condition=Serving clustercatalog/olm-demo --timeout=5m',
    '  kubectl apply -f config/samples/clusterextension.yaml     # installs demo-operator from it',
    '  kubectl wait --for=condition=Installed clusterextension/demo-operator --timeout=5m',
    ...(classic
      ? [
          'OLM classic (olm-classic, global catalog namespace "olm"):',
          ...(insecure.length > 0 ? [`  export OLM_INSECURE_REGISTRIES=${insecure.join(',')}   # the CLI reads the demo catalog image over plain HTTP`] : []),
          '  kubectl apply -f config/samples/catalogsource.yaml       # the demo catalog as a CatalogSource',
          '  kubectl create namespace demo-classic',
          '  kubectl olm install --classic demo-operator -n demo-classic --wait',
          ...(packages ? ['  kubectl get packagemanifests -n demo-classic                # the package server (an aggregated API)'] : []),
        ]
      : []),
    'README.md ("Tutorial") walks through upgrade, downgrade and uninstall. Ctrl-C stops everything.',
    '',
  ].join('\n');
}

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode !== null ? undefined : new Promise((r) => c.once('exit', r)))));
  for (const stop of stops) await stop();
  process.exit(code);
}

process.on('exit', () => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
main().catch((err: unknown) => {
  if (err instanceof PortInUseError) console.error(`${err.message} (another make run?)`);
  else console.error(err instanceof Error ? err.message : String(err));
  void shutdown(1);
});
