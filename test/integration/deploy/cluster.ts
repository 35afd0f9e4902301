// A cluster of its own for the deploy tests (manifests.test.ts, guide.test.ts): the real kubectl of the cluster's
// multi-call binary (kustomize and server-side apply), the controllers run out of process with the bearer tokens of
// their own ServiceAccounts and the Deployments' own arguments, and the demo catalog and bundles pushed to the test
// registry.
import { execFile, execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { binaries } from '../../support/binaries.ts';
import { certManagerCrds } from '../../support/crds.ts';
import { DEMO_REGISTRY, publishDemo } from '../../support/demo.ts';
import { ControlPlane, kubeconfig, type ControlPlaneInfo } from '../../support/control-plane.ts';
import { registry } from '../../support/env.ts';
import { TestKube, type KubeObject } from '../../support/kube.ts';
import { waitFor } from '../../support/net.ts';
import { startProcess, stopProcess, type Managed } from '../../support/process.ts';
import { NodeNetwork } from '../../support/real-node.ts';
import { Registry, type RegistryInfo } from '../../support/registry.ts';

const run = promisify(execFile);
export const root = new URL('../../../', import.meta.url).pathname;
export const NAMESPACE = 'olmv1-system';
export { DEMO_REGISTRY };

type Conditions = { status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] } };

export class DeployCluster {
  readonly controllers: Managed[] = [];

  private readonly cp: ControlPlane;
  readonly info: ControlPlaneInfo;
  readonly kube: TestKube;
  readonly work: string;
  /** The registry the cluster's nodes pull from: the shared one, or with real nodes one of their own on their network. */
  readonly registry: RegistryInfo;
  private readonly own: { network: NodeNetwork; registry: Registry } | undefined;

  private constructor(cp: ControlPlane, info: ControlPlaneInfo, work: string, registryInfo: RegistryInfo, own?: { network: NodeNetwork; registry: Registry }) {
    this.cp = cp;
    this.info = info;
    this.kube = new TestKube(info);
    this.work = work;
    this.registry = registryInfo;
    this.own = own;
  }

  /**
   * A control plane with one KWOK node, and a scratch directory; with `realNodes`, that many real nodes instead
   * (test/support/real-node.ts) and a registry of its own where they pull from.
   */
  static async start({ realNodes = 0 }: { realNodes?: number } = {}): Promise<DeployCluster> {
    const work = await mkdtemp(join(tmpdir(), 'olm-deploy-'));
    if (realNodes === 0) {
      const cp = new ControlPlane({ nodes: 1 });
      return new DeployCluster(cp, await cp.start(), work, registry());
    }
    const network = await NodeNetwork.create();
    const reg = new Registry({ address: network.gateway });
    const regInfo = await reg.start();
    const cp = new ControlPlane({ nodes: 0, realNodes: { network, registryHost: regInfo.host, count: realNodes } });
    return new DeployCluster(cp, await cp.start(), work, regInfo, { network, registry: reg });
  }

  async stop(): Promise<void> {
    for (const c of this.controllers) await stopProcess(c);
    await this.cp.stop();
    await this.own?.registry.stop();
    await this.own?.network.destroy();
    await rm(this.work, { recursive: true, force: true });
  }

  /** cert-manager's Certificate and Issuer kinds, as a cert-manager installation serves them (schema left open). */
  async serveCertManagerKinds(): Promise<void> {
    for (const crd of certManagerCrds()) await this.kube.must(this.kube.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd));
    await this.kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd/certificates.cert-manager.io', 'crd/issuers.cert-manager.io']);
  }

  /**
   * cert-manager's part for the component's Certificate `catalogd-service-cert`: a CA and a serving certificate for its
   * dnsNames, in the Secret it names (tls.crt, tls.key, ca.crt). Returns the directory holding the three files.
   */
  async issueCatalogdCertificate(certificate: KubeObject & { spec: { dnsNames: string[]; secretName: string } }): Promise<string> {
    const dir = join(this.work, 'certs');
    await mkdir(dir, { recursive: true });
    const f = (name: string): string => join(dir, name);
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    execFileSync('openssl', ['req', '-x509', ...ec, '-days', '1', '-subj', '/CN=olmv1-ca', '-keyout', f('ca.key'), '-out', f('ca.crt')], { stdio: 'ignore' });
    execFileSync('openssl', ['req', ...ec, '-subj', '/CN=catalogd-service', '-keyout', f('tls.key'), '-out', f('tls.csr')], { stdio: 'ignore' });
    await writeFile(f('ext'), `subjectAltName=${certificate.spec.dnsNames.map((d) => `DNS:${d}`).join(',')}\n`);
    execFileSync('openssl', ['x509', '-req', '-in', f('tls.csr'), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-days', '1', '-extfile', f('ext'), '-out', f('tls.crt')], {
      stdio: 'ignore',
    });
    const data = Object.fromEntries(await Promise.all(['tls.crt', 'tls.key', 'ca.crt'].map(async (k) => [k, (await readFile(f(k))).toString('base64')])));
    await this.kube.must(
      this.kube.request('POST', `/api/v1/namespaces/${NAMESPACE}/secrets`, {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'kubernetes.io/tls',
        metadata: { name: certificate.spec.secretName },
        data,
      }),
    );
    return dir;
  }

  /** kubectl v1.36 from the cluster's multi-call binary: its stdout. */
  async kubectl(args: readonly string[], input?: string): Promise<string> {
    return (await this.kubectlOutput(args, input)).stdout;
  }

  /**
   * `kubectl apply --server-side` of a sample from config/samples, its registry host replaced by `host`. Established is
   * not yet served by every handler of the API server, so it may still answer ServiceUnavailable ("There can be a
   * delay between when CustomResourceDefinitions are created and when they are available"): applied again until not.
   */
  async applySample(file: string, host: string): Promise<void> {
    const sample = (await readFile(join(root, 'config/samples', file), 'utf8')).replaceAll(DEMO_REGISTRY, host);
    await waitFor(`the ${file} sample applied`, () =>
      this.kubectl(['apply', '--server-side', '-f', '-'], sample).then(
        () => true,
        (err: Error) => {
          if (/There can be a delay/.test(err.message)) return false;
          throw err;
        },
      ),
    );
  }

  /** kubectl's stdout and stderr (where it prints the API server's warnings). */
  async kubectlOutput(args: readonly string[], input?: string): Promise<{ stdout: string; stderr: string }> {
    const { apiserver } = await binaries();
    const child = run(apiserver, ['kubectl', `--kubeconfig=${this.info.kubeconfigPath}`, ...args], { maxBuffer: 64 << 20 });
    if (input !== undefined) {
      child.child.stdin?.end(input);
    }
    const { stdout, stderr } = await child;
    return { stdout, stderr };
  }

  /** Waits for condition `type` True on the object at `path`; on timeout the error shows every condition. */
  async waitForCondition(path: string, type: string, timeoutMs: number): Promise<void> {
    await waitFor(`${path} ${type}`, async () => {
      const r = await this.kube.request<Conditions>('GET', path);
      const conditions = r.body.status?.conditions ?? [];
      if (conditions.some((c) => c.type === type && c.status === 'True')) return true;
      throw new Error(conditions.map((c) => `${c.type}=${c.status} ${c.reason ?? ''}: ${c.message ?? ''}`).join('; ') || 'no conditions');
    }, { timeoutMs });
  }

  /** Starts cmd/<name>/main.ts as the ServiceAccount whose token is given; resolves once its /readyz answers 200. */
  async startController(name: string, args: readonly string[], token: string, health: number, logName = name): Promise<Managed> {
    const config = join(this.work, `${logName}.kubeconfig`);
    await writeFile(config, kubeconfig(this.info.server, this.info.caPem, token, name), { mode: 0o600 });
    const env = {
      ...process.env,
      KUBECONFIG: config,
      POD_NAMESPACE: NAMESPACE,
      POD_NAME: `${name}-0`,
      OLM_INSECURE_REGISTRIES: registry().host,
    };
    const p = startProcess(process.execPath, ['--import', 'tsx', join(root, 'cmd', name, 'main.ts'), ...args], join(this.work, `${logName}.log`), env);
    this.controllers.push(p);
    await waitFor(`${name} /readyz`, async () => {
      const res = await fetch(`http://127.0.0.1:${health}/readyz`).catch(() => undefined);
      return res?.status === 200;
    }, { timeoutMs: 120_000, intervalMs: 250 });
    return p;
  }

  /** Stops the controller started with `logName` (its log file `<logName>.log`), e.g. to start it again with other arguments. */
  async stopController(logName: string): Promise<void> {
    const i = this.controllers.findIndex((c) => c.logFile === join(this.work, `${logName}.log`));
    if (i < 0) throw new Error(`no controller ${logName} was started`);
    const [c] = this.controllers.splice(i, 1);
    await stopProcess(c!);
  }

  /** Pushes the demo bundles and the demo catalog to the test registry, image references rewritten to it. */
  async publishDemo(host: string): Promise<void> {
    await publishDemo(host, this.work);
  }

  /** The demo operator installed from the samples: Installed, bundle 0.1.0, its Deployment rolled out. */
  async demoInstalled(): Promise<void> {
    await this.waitForCondition('/apis/olm.operatorframework.io/v1/clusterextensions/demo-operator', 'Installed', 90_000);
    const ext = await this.kube.must<{ status: { install: { bundle: { name: string; version: string } } } }>(
      this.kube.request('GET', '/apis/olm.operatorframework.io/v1/clusterextensions/demo-operator'),
    );
    expect(ext.status.install.bundle).toEqual({ name: 'demo-operator.v0.1.0', version: '0.1.0' });
    await this.kubectl(['-n', 'demo', 'rollout', 'status', '--timeout=120s', 'deployment/demo-operator-controller']).catch(async (err: unknown) => {
      const names = await this.kubectl(['-n', 'demo', 'get', 'deployments', '-o', 'name']);
      throw new Error(`demo operator Deployment not rolled out (${names.trim()}): ${String(err)}`);
    });
  }

  /** No request of any controller started so far was refused. */
  async nothingForbidden(): Promise<void> {
    for (const c of this.controllers) {
      const log = await readFile(c.logFile, 'utf8');
      expect(log.split('\n').filter((l) => /forbidden/i.test(l))).toEqual([]);
    }
  }
}

/** The container args of a rendered Deployment, `$(POD_NAMESPACE)` expanded, the subcommand dropped. */
export function deploymentArgs(objects: readonly KubeObject[], name: string): string[] {
  const d = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name) as
    | (KubeObject & { spec: { template: { spec: { containers: { args: string[] }[] } } } })
    | undefined;
  if (!d) throw new Error(`the manifests render no Deployment ${name}`);
  const [subcommand, ...args] = d.spec.template.spec.containers[0]?.args ?? [];
  expect(subcommand).toBe(name);
  return args.map((a) => a.replaceAll('$(POD_NAMESPACE)', NAMESPACE));
}

/** Replaces (or adds) `--name=value` flags. */
export function withFlags(args: readonly string[], flags: Record<string, string>): string[] {
  const kept = args.filter((a) => !Object.keys(flags).some((f) => a === `--${f}` || a.startsWith(`--${f}=`)));
  return [...kept, ...Object.entries(flags).map(([f, v]) => `--${f}=${v}`)];
}
