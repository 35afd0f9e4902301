// Locates (building on first use) the control-plane binaries made by test/envtest/build.sh.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export interface Binaries {
  /** Multi-call: kube-apiserver, or `kube-controller-manager`, `kube-scheduler`, `kubectl` as first argument. */
  readonly apiserver: string;
  readonly registry: string;
  readonly kwok: string;
}

const buildScript = fileURLToPath(new URL('../envtest/build.sh', import.meta.url));
let cached: Promise<Binaries> | undefined;

/** Builds the binaries if missing (minutes, once) and returns their paths. */
export function binaries(): Promise<Binaries> {
  cached ??= (async () => {
    const { stdout } = await promisify(execFile)('bash', [buildScript, 'apiserver', 'registry', 'kwok'], {
      maxBuffer: 16 << 20,
      timeout: 60 * 60_000,
    });
    const found = Object.fromEntries(
      stdout
        .trim()
        .split('\n')
        .map((l) => l.split('=', 2) as [string, string]),
    );
    if (!found.apiserver || !found.registry || !found.kwok) throw new Error(`build.sh printed no binaries: ${stdout}`);
    return { apiserver: found.apiserver, registry: found.registry, kwok: found.kwok };
  })();
  return cached;
}

let cachedOpm: Promise<string> | undefined;

/** operator-registry's `opm` (serve and version only), built on first use like the others; `OLM_TEST_OPM` overrides. */
export function opmBinary(): Promise<string> {
  cachedOpm ??= (async () => {
    const { stdout } = await promisify(execFile)('bash', [buildScript, 'opm'], { maxBuffer: 16 << 20, timeout: 60 * 60_000 });
    const line = stdout.trim().split('\n').find((l) => l.startsWith('opm='));
    if (!line) throw new Error(`build.sh printed no opm binary: ${stdout}`);
    return line.slice('opm='.length);
  })();
  return cachedOpm;
}

export interface ClusterBinaries {
  readonly pause: string;
  readonly coredns: string;
  readonly workload: string;
  /** demo/operator: the demo operator's manager. */
  readonly demoOperator: string;
}
let cachedCluster: Promise<ClusterBinaries> | undefined;

/** The static binaries of the images Pods run (test/envtest/pause, coredns, workload; demo/operator), built on first use. */
export function clusterBinaries(): Promise<ClusterBinaries> {
  cachedCluster ??= (async () => {
    const { stdout } = await promisify(execFile)('bash', [buildScript, 'pause', 'coredns', 'workload', 'demo-operator'], { maxBuffer: 16 << 20, timeout: 60 * 60_000 });
    const found = Object.fromEntries(
      stdout
        .trim()
        .split('\n')
        .map((l) => l.split('=', 2) as [string, string]),
    );
    if (!found.pause || !found.coredns || !found.workload || !found['demo-operator']) throw new Error(`build.sh printed no pause, coredns, workload or demo-operator binary: ${stdout}`);
    return { pause: found.pause, coredns: found.coredns, workload: found.workload, demoOperator: found['demo-operator'] };
  })();
  return cachedCluster;
}
