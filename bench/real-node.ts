// Real nodes (test/support/real-node.ts) against their baselines, side by side in one run:
//   - a cluster with one real node (kubelet, containerd, CNI, kube-proxy, CoreDNS Available) against one with one KWOK
//     node, start to node Ready (warm binaries);
//   - the project's image built without an engine on the base assembled here (cmd/image.ts) and pushed: time, and its
//     size (compressed layers) against the bytes of what it carries (Node.js and the bundles);
//   - a controller (catalogd) as a Pod of that image, scaled 0 → 1 until Ready (pull done: the image is on the node),
//     against the same bundle as a host process started until its /readyz answers.
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleControllers } from '../cmd/bundle.ts';
import { buildAndPush } from '../cmd/image.ts';
import { parseReference, RegistryClient } from '../internal/shared/image/index.ts';
import { ControlPlane } from '../test/support/control-plane.ts';
import { freePort, waitFor } from '../test/support/net.ts';
import { startBundled, stopProcess } from '../test/support/process.ts';
import { NodeNetwork, realNodesUnavailable } from '../test/support/real-node.ts';
import { Registry } from '../test/support/registry.ts';
import { DeployCluster, NAMESPACE } from '../test/integration/deploy/cluster.ts';
import type { Figure } from './control-plane.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const timed = async (fn: () => Promise<unknown>): Promise<number> => {
  const t0 = performance.now();
  await fn();
  return Math.round(performance.now() - t0);
};

async function treeBytes(dir: string): Promise<number> {
  let total = 0;
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) if (e.isFile()) total += (await stat(join(e.parentPath, e.name))).size;
  return total;
}

export async function benchRealNode(): Promise<Figure[]> {
  const why = realNodesUnavailable();
  if (why) return [{ name: 'real nodes', value: 0, unit: '-', note: `not measured: ${why}` }];
  const figures: Figure[] = [];

  // Start to node Ready: one KWOK node, then one real node (its DNS Available too).
  const kwok = new ControlPlane({ nodes: 1 });
  const kwokMs = await timed(() => kwok.start());
  await kwok.stop();
  const network = await NodeNetwork.create();
  const registry = new Registry({ address: network.gateway });
  await registry.start();
  try {
    const real = new ControlPlane({ nodes: 0, realNodes: { network, registryHost: registry.details.host } });
    const realMs = await timed(() => real.start());
    await real.stop();
    figures.push(
      { name: 'cluster start to 1 KWOK node Ready', value: kwokMs, unit: 'ms' },
      { name: 'cluster start to 1 real node Ready + CoreDNS Available', value: realMs, unit: 'ms', note: `${(realMs / kwokMs).toFixed(2)}× KWOK` },
    );
  } finally {
    await registry.stop();
    await network.destroy();
  }

  // The image: build (bundles + assembled base) and push; its size against what it carries.
  const cluster = await DeployCluster.start({ realNodes: 1 });
  const dist = join(ROOT, '.cache', 'test-bundles', `bench-real-node-${process.pid}`);
  try {
    const bundleMs = await timed(() => bundleControllers(dist));
    const client = new RegistryClient({ insecureRegistries: [cluster.registry.host] });
    let digestRef = '';
    const pushMs = await timed(async () => {
      digestRef = (await buildAndPush({ target: `${cluster.registry.host}/olm/olmv1:bench`, dist, client })).digestRef;
    });
    const manifest = (await client.resolve(parseReference(digestRef))).manifest;
    await client.close();
    const compressed = manifest.layers.reduce((sum, l) => sum + l.size, 0);
    const carried = (await stat(process.execPath)).size + (await treeBytes(join(dist, 'bin')));
    figures.push(
      { name: 'controller bundles (esbuild)', value: bundleMs, unit: 'ms' },
      { name: 'image on the assembled base: build + push', value: pushMs, unit: 'ms' },
      {
        name: 'image size (compressed layers)',
        value: Math.round(compressed / 2 ** 20),
        unit: 'MiB',
        note: `${(compressed / carried).toFixed(2)}× the uncompressed node binary + bundles (${Math.round(carried / 2 ** 20)} MiB)`,
      },
    );

    // catalogd as a Pod (scaled 0 → 1 on a node that has the image) against the same bundle as a host process.
    const [name, digest] = digestRef.split('@') as [string, string];
    await cluster.kube.must(cluster.kube.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }));
    await cluster.kubectl(['apply', '--server-side', '-k', join(ROOT, 'config', 'default')]);
    await cluster.kubectl(['-n', NAMESPACE, 'set', 'image', 'deployment/catalogd', `manager=${name}@${digest}`]);
    await cluster.kubectl(['-n', NAMESPACE, 'scale', '--replicas=1', 'deployment/catalogd']);
    await cluster.kubectl(['-n', NAMESPACE, 'rollout', 'status', '--timeout=300s', 'deployment/catalogd']);
    await cluster.kubectl(['-n', NAMESPACE, 'scale', '--replicas=0', 'deployment/catalogd']);
    await cluster.kubectl(['-n', NAMESPACE, 'wait', '--for=delete', 'pod', '-l', 'app.kubernetes.io/name=catalogd', '--timeout=120s']);
    const podMs = await timed(async () => {
      await cluster.kubectl(['-n', NAMESPACE, 'scale', '--replicas=1', 'deployment/catalogd']);
      await cluster.kubectl(['-n', NAMESPACE, 'rollout', 'status', '--timeout=300s', 'deployment/catalogd']);
    });
    const health = await freePort();
    const work = cluster.work;
    let hostMs = 0;
    const proc = startBundled(dist, 'catalogd', [`--kubeconfig=${cluster.info.kubeconfigPath}`, `--health-probe-bind-address=127.0.0.1:${health}`, `--cache-dir=${join(work, 'catalogd-host')}`, '--catalogs-server-addr=127.0.0.1:0'], join(work, 'catalogd-host.log'));
    try {
      hostMs = await timed(() =>
        waitFor('catalogd (host process) ready', async () => (await fetch(`http://127.0.0.1:${health}/readyz`).catch(() => undefined))?.status === 200, { timeoutMs: 120_000, intervalMs: 20 }),
      );
    } finally {
      await stopProcess(proc);
    }
    figures.push(
      { name: 'catalogd as a host process: start to /readyz', value: hostMs, unit: 'ms' },
      { name: 'catalogd as a Pod (image on the node): scale 0→1 to Ready', value: podMs, unit: 'ms', note: `${(podMs / hostMs).toFixed(2)}× the host process (includes the readiness probe's 5 s initial delay)` },
    );
  } finally {
    await cluster.stop();
    await rm(dist, { recursive: true, force: true });
  }
  return figures;
}
