// `make run`: a local control plane and registry (unless KUBECONFIG names a cluster), the CRDs
// installed, and both controllers running with their logs in this terminal. Ctrl-C stops all.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ControlPlane } from './control-plane.ts';
import { installAdmissionPolicies } from './admission.ts';
import { installCrds, yamlFiles } from './crds.ts';
import { TestKube } from './kube.ts';
import { Registry } from './registry.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const stops: (() => Promise<void>)[] = [];
const children: ChildProcess[] = [];
let stopping = false;

async function main(): Promise<void> {
  let kubeconfigPath = process.env.KUBECONFIG;
  let registryHost: string | undefined;
  if (!kubeconfigPath) {
    console.log('starting a local kube-apiserver (+etcd) and registry on 127.0.0.1 ...');
    const cp = new ControlPlane();
    const reg = new Registry();
    stops.push(() => reg.stop(), () => cp.stop());
    const [info, regInfo] = await Promise.all([cp.start(), reg.start()]);
    await mkdir(`${root}.cache/run`, { recursive: true });
    kubeconfigPath = `${root}.cache/run/kubeconfig`;
    await copyFile(info.kubeconfigPath, kubeconfigPath);
    registryHost = regInfo.host;
    const kube = new TestKube(info);
    await installCrds(kube, await yamlFiles(`${root}config/crd/bases`));
    await installAdmissionPolicies(kube, `${root}config/admission`);
    console.log(`control plane: ${info.server}\nregistry:      ${regInfo.host} (plain HTTP)`);
    console.log(`in another terminal:  export KUBECONFIG=${kubeconfigPath}`);
  } else {
    console.log(`using the cluster in KUBECONFIG=${kubeconfigPath}; apply the CRDs and policies with: kubectl apply -k config/crd && kubectl apply -k config/admission`);
  }
  const env = { ...process.env, KUBECONFIG: kubeconfigPath, ...(registryHost ? { OLM_INSECURE_REGISTRIES: registryHost } : {}) };
  const ports: Record<string, [number, number]> = { catalogd: [18081, 18080], 'operator-controller': [18083, 18082] };
  // catalogd serves catalogs on 127.0.0.1:18443 and keeps its cache under .cache/run.
  const extra: Record<string, string[]> = {
    catalogd: ['--catalogs-server-addr=127.0.0.1:18443', '--external-address=127.0.0.1:18443', `--cache-dir=${root}.cache/run/catalogd`],
    'operator-controller': [`--cache-path=${root}.cache/run/operator-controller`],
  };
  for (const [name, [health, metrics]] of Object.entries(ports)) {
    const args = [`--health-probe-bind-address=127.0.0.1:${health}`, `--metrics-bind-address=127.0.0.1:${metrics}`, ...(extra[name] ?? [])];
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
  console.error(err instanceof Error ? err.message : String(err));
  void shutdown(1);
});
