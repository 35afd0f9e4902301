// The deployment manifests, tested as a cluster admin uses them: `config/default` applied to a cluster of its own
// (kustomize and server-side apply by the real kubectl), the two Deployments roll out on the KWOK node, and then
// both controllers run out of process with the bearer tokens of their own ServiceAccounts — exactly the RBAC that
// config/rbac grants, no admin credentials — with the Deployments' own arguments. The samples
// (config/samples) then install the demo operator from the demo catalog: first as upstream v1.11 does, with
// operator-controller's own (cluster-admin) identity; then with our ServiceAccountInstalls gate, without the
// cluster-admin binding, as the sample's service account. A rule missing from config/rbac fails here: as a
// `forbidden` in a controller's log, or as a catalog or extension that never gets ready.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../../internal/shared/fbc/index.ts';
import { runCaptured } from '../../../internal/cli/index.ts';
import { binaries } from '../../support/binaries.ts';
import { ControlPlane, kubeconfig, type ControlPlaneInfo } from '../../support/control-plane.ts';
import { registry } from '../../support/env.ts';
import { TestKube, type KubeObject } from '../../support/kube.ts';
import { freePort, waitFor } from '../../support/net.ts';
import { startProcess, stopProcess, type Managed } from '../../support/process.ts';

const run = promisify(execFile);
const root = new URL('../../../', import.meta.url).pathname;
const NAMESPACE = 'olmv1-system';
const DEMO_REGISTRY = 'localhost:5001';

let cp: ControlPlane;
let info: ControlPlaneInfo;
let kube: TestKube;
let work: string;
const controllers: Managed[] = [];

/** kubectl v1.36 from the cluster's multi-call binary: its stdout. */
async function kubectl(args: readonly string[], input?: string): Promise<string> {
  return (await kubectlOutput(args, input)).stdout;
}

/** kubectl's stdout and stderr (where it prints the API server's warnings). */
async function kubectlOutput(args: readonly string[], input?: string): Promise<{ stdout: string; stderr: string }> {
  const { apiserver } = await binaries();
  const child = run(apiserver, ['kubectl', `--kubeconfig=${info.kubeconfigPath}`, ...args], { maxBuffer: 64 << 20 });
  if (input !== undefined) {
    child.child.stdin?.end(input);
  }
  const { stdout, stderr } = await child;
  return { stdout, stderr };
}

/** What kubectl prints when a ClusterExtension sets the deprecated spec.serviceAccount (config/admission's policy). */
const SERVICE_ACCOUNT_WARNING =
  "Warning: Validation failed for ValidatingAdmissionPolicy 'clusterextension-serviceaccount-deprecated' with binding 'clusterextension-serviceaccount-deprecated': spec.serviceAccount is deprecated, ignored, and will be removed in a future release. The operator-controller's cluster-admin service account is used for all cluster interactions.";

/** Waits for condition `type` True on the object at `path`; on timeout the error shows every condition. */
async function waitForCondition(path: string, type: string, timeoutMs: number): Promise<void> {
  await waitFor(`${path} ${type}`, async () => {
    const r = await kube.request<{ status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] } }>('GET', path);
    const conditions = r.body.status?.conditions ?? [];
    if (conditions.some((c) => c.type === type && c.status === 'True')) return true;
    throw new Error(conditions.map((c) => `${c.type}=${c.status} ${c.reason ?? ''}: ${c.message ?? ''}`).join('; ') || 'no conditions');
  }, { timeoutMs });
}

/** The container args of a rendered Deployment, `$(POD_NAMESPACE)` expanded, the subcommand dropped. */
function deploymentArgs(objects: readonly KubeObject[], name: string): string[] {
  const d = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name) as
    | (KubeObject & { spec: { template: { spec: { containers: { args: string[] }[] } } } })
    | undefined;
  if (!d) throw new Error(`config/default renders no Deployment ${name}`);
  const [subcommand, ...args] = d.spec.template.spec.containers[0]?.args ?? [];
  expect(subcommand).toBe(name);
  return args.map((a) => a.replaceAll('$(POD_NAMESPACE)', NAMESPACE));
}

/** Replaces (or adds) `--name=value` flags. */
function withFlags(args: readonly string[], flags: Record<string, string>): string[] {
  const kept = args.filter((a) => !Object.keys(flags).some((f) => a === `--${f}` || a.startsWith(`--${f}=`)));
  return [...kept, ...Object.entries(flags).map(([f, v]) => `--${f}=${v}`)];
}

async function startController(name: string, args: readonly string[], token: string, health: number, logName = name): Promise<Managed> {
  const config = join(work, `${name}.kubeconfig`);
  await writeFile(config, kubeconfig(info.server, info.caPem, token, name), { mode: 0o600 });
  const env = {
    ...process.env,
    KUBECONFIG: config,
    POD_NAMESPACE: NAMESPACE,
    POD_NAME: `${name}-0`,
    OLM_INSECURE_REGISTRIES: registry().host,
  };
  const p = startProcess(process.execPath, ['--import', 'tsx', join(root, 'cmd', name, 'main.ts'), ...args], join(work, `${logName}.log`), env);
  controllers.push(p);
  await waitFor(`${name} /readyz`, async () => {
    const res = await fetch(`http://127.0.0.1:${health}/readyz`).catch(() => undefined);
    return res?.status === 200;
  }, { timeoutMs: 120_000, intervalMs: 250 });
  return p;
}

/** Pushes the demo bundles and the demo catalog to the test registry, image references rewritten to it. */
async function publishDemo(host: string): Promise<void> {
  const olm = async (argv: string[]): Promise<void> => {
    const r = await runCaptured(argv, { cwd: root, env: process.env });
    if (r.code !== 0) throw new Error(`kubectl olm ${argv.join(' ')}: ${r.stdout}${r.stderr}`);
  };
  const { config } = await loadCatalog(join(root, 'demo', 'catalog'));
  for (const b of config.bundles) await olm(['bundle', 'push', join(root, 'demo', 'bundles', b.name), b.image.replace(DEMO_REGISTRY, host), '--plain-http']);
  const from = join(root, 'demo', 'catalog', 'demo-operator');
  const to = join(work, 'catalog', 'demo-operator');
  await mkdir(to, { recursive: true });
  for (const f of await readdir(from)) await writeFile(join(to, f), (await readFile(join(from, f), 'utf8')).replaceAll(DEMO_REGISTRY, host));
  await olm(['catalog', 'push', join(work, 'catalog'), `${host}/olm-demo/catalog:latest`, '--plain-http']);
}

beforeAll(async () => {
  cp = new ControlPlane({ nodes: 1 });
  info = await cp.start();
  kube = new TestKube(info);
  work = await mkdtemp(join(tmpdir(), 'olm-deploy-'));
});

afterAll(async () => {
  for (const c of controllers) await stopProcess(c);
  await cp?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

/** The demo operator installed from the samples: Installed, bundle 0.1.0, its Deployment rolled out. */
async function demoInstalled(): Promise<void> {
  await waitForCondition('/apis/olm.operatorframework.io/v1/clusterextensions/demo-operator', 'Installed', 90_000);
  const ext = await kube.must<{ status: { install: { bundle: { name: string; version: string } } } }>(
    kube.request('GET', '/apis/olm.operatorframework.io/v1/clusterextensions/demo-operator'),
  );
  expect(ext.status.install.bundle).toEqual({ name: 'demo-operator.v0.1.0', version: '0.1.0' });
  await kubectl(['-n', 'demo', 'rollout', 'status', '--timeout=120s', 'deployment/demo-operator-controller']).catch(async (err: unknown) => {
    const names = await kubectl(['-n', 'demo', 'get', 'deployments', '-o', 'name']);
    throw new Error(`demo operator Deployment not rolled out (${names.trim()}): ${String(err)}`);
  });
}

/** No request of any controller started so far was refused. */
async function nothingForbidden(): Promise<void> {
  for (const c of controllers) {
    const log = await readFile(c.logFile, 'utf8');
    expect(log.split('\n').filter((l) => /forbidden/i.test(l))).toEqual([]);
  }
}

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
    const ports = { catalogd: [await freePort(), await freePort()], 'operator-controller': [await freePort(), await freePort()] } as const;
    const local = (name: keyof typeof ports): Record<string, string> => ({
      'health-probe-bind-address': `127.0.0.1:${ports[name][0]}`,
      'metrics-bind-address': `127.0.0.1:${ports[name][1]}`,
    });
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
    const catalogSample = (await readFile(join(samples, 'clustercatalog.yaml'), 'utf8')).replaceAll(DEMO_REGISTRY, host);
    // Established is not yet served by every handler of the API server: it may still answer ServiceUnavailable
    // ("There can be a delay between when CustomResourceDefinitions are created and when they are available").
    await waitFor('the ClusterCatalog sample applied', () =>
      kubectl(['apply', '--server-side', '-f', '-'], catalogSample).then(
        () => true,
        (err: Error) => {
          if (/There can be a delay/.test(err.message)) return false;
          throw err;
        },
      ),
    );
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
    const [health, metrics] = [await freePort(), await freePort()];
    const gated = await startController(
      'operator-controller',
      withFlags(deploymentArgs(objects, 'operator-controller'), {
        'health-probe-bind-address': `127.0.0.1:${health}`,
        'metrics-bind-address': `127.0.0.1:${metrics}`,
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
