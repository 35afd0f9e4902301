// A real cluster on 127.0.0.1, started from the binaries that test/envtest builds:
// kube-apiserver with embedded etcd, kube-controller-manager (every default controller: garbage
// collector, namespace, deployment, replicaset, serviceaccount and token, endpointslice, job …),
// kube-scheduler, and KWOK simulating `nodes` Nodes that report Ready and run the Pods scheduled on
// them as a kubelet would report them (no container runs); and, as an option, real nodes (test/support/real-node.ts:
// kubelet, containerd, CNI, kube-proxy, each node in a network namespace of this machine) with the cluster's DNS
// (CoreDNS), whose Pods run as containers. Used by the vitest global setup (one per run), by `make run`, and by tests
// that need a cluster of their own (restarts, compaction, real nodes).
// `restart`/`kill`/`resume` act on the API server only; the other components reconnect to it as
// they would on a real cluster.
// The aggregation layer is on, as kubeadm sets it up: a front-proxy CA, the client certificate the API server presents
// to aggregated API servers (CN `front-proxy-client`) and the requestheader flags, so the kube-system
// extension-apiserver-authentication ConfigMap carries what an aggregated server's delegated authentication reads.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { createSignedClientPair, generateCA } from '../../internal/classic/csv/index.ts';
import { binaries } from './binaries.ts';
import { pushClusterImages } from './cluster-images.ts';
import { deployClusterDns } from './cluster-dns.ts';
import { DEMO_REGISTRY } from './registry.ts';
import { RealNode, type NodeNetwork } from './real-node.ts';
import { freePort, waitFor } from './net.ts';
import { TestKube } from './kube.ts';
import { killProcess, startProcess, stopProcess, type Managed } from './process.ts';

/** Static users in the token file. `admin` is in system:masters; the others have no rights until granted. */
export const TEST_USERS = ['alice', 'bob', 'carol'] as const;
export type TestUser = (typeof TEST_USERS)[number];

export interface ControlPlaneInfo {
  readonly server: string;
  readonly caPem: string;
  readonly adminToken: string;
  /** Bearer tokens of the limited static users. */
  readonly userTokens: Readonly<Record<TestUser, string>>;
  readonly kubeconfigPath: string;
  readonly dir: string;
  readonly etcdClientUrl: string;
  /** Names of the simulated nodes (empty when only the API server runs). */
  readonly nodes: readonly string[];
  /** Names of the real nodes (label `olm.test/real-node=true`). */
  readonly realNodes: readonly string[];
}

export interface RealNodesOptions {
  /** How many (default 1). */
  readonly count?: number;
  /** The host side of their network (NodeNetwork.create()); the API server listens on its gateway address. */
  readonly network: NodeNetwork;
  /** host:port of the local registry, listening on the network's gateway: the node pulls every image from it. */
  readonly registryHost: string;
  /**
   * Registries whose images the nodes pull from the local registry instead (default `localhost:5001`, make run's
   * registry; `registry.example.com`, where the demo's bundles name their operator; and `docker.io`, so that a short
   * name such as `busybox:1.36` or `wrong/image` is looked for here and nowhere else).
   */
  readonly mirrored?: readonly string[];
}

export interface ControlPlaneOptions {
  /** Extra kube-apiserver flags. */
  readonly extraArgs?: readonly string[];
  /** Simulated nodes (default 2). 0 with no real nodes runs the API server alone: no controllers, scheduler or nodes. */
  readonly nodes?: number;
  /** Real nodes beside the simulated ones, and the cluster's DNS on them. */
  readonly realNodes?: RealNodesOptions;
}

/** The CN of the API server's front-proxy client certificate (`--requestheader-allowed-names`). */
export const FRONT_PROXY_CLIENT_NAME = 'front-proxy-client';

/** A Pod carrying this annotation runs with Ready=False (KWOK stage pod-not-ready, test/envtest/kwok). */
export const NOT_READY_ANNOTATION = 'olmv1.test/not-ready';

export class ControlPlane {
  private proc: Managed | undefined;
  private components: Managed[] = [];
  private realNodes: RealNode[] = [];
  private info: ControlPlaneInfo | undefined;
  private ports: { api: number; etcdClient: number; etcdPeer: number } | undefined;
  private readonly options: ControlPlaneOptions;

  constructor(options: ControlPlaneOptions = {}) {
    this.options = options;
  }

  /** The API server's pid. */
  get pid(): number | undefined {
    return this.proc?.pid;
  }

  /** Every pid of the cluster (API server, controller-manager, scheduler, KWOK). */
  get pids(): number[] {
    return [this.proc?.pid, ...this.components.map((c) => c.pid), ...this.realNodes.flatMap((n) => n.pids)].filter((p): p is number => p !== undefined);
  }

  get details(): ControlPlaneInfo {
    if (!this.info) throw new Error('control plane not started');
    return this.info;
  }

  /** Prepares a fresh directory (keys, tokens, kubeconfig), starts the process and waits for /readyz. */
  async start(): Promise<ControlPlaneInfo> {
    const dir = await mkdtemp(join(tmpdir(), 'olm-cp-'));
    await mkdir(join(dir, 'certs'));
    const { publicKey, privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    await writeFile(join(dir, 'sa.pub'), publicKey);
    await writeFile(join(dir, 'sa.key'), privateKey, { mode: 0o600 });
    const token = (): string => randomBytes(24).toString('hex');
    const adminToken = token();
    const userTokens = Object.fromEntries(TEST_USERS.map((u) => [u, token()])) as Record<TestUser, string>;
    const lines = [`${adminToken},admin,admin-uid,"system:masters"`];
    for (const u of TEST_USERS) lines.push(`${userTokens[u]},${u},${u}-uid`);
    await writeFile(join(dir, 'tokens.csv'), lines.join('\n') + '\n', { mode: 0o600 });
    await writeFrontProxyCerts(join(dir, 'certs'));
    this.ports = { api: await freePort(), etcdClient: await freePort(), etcdPeer: await freePort() };
    const server = `https://${this.host}:${this.ports.api}`;
    await this.launch(dir);
    const caPem = await readFile(join(dir, 'certs', 'apiserver.crt'), 'utf8');
    const kubeconfigPath = join(dir, 'kubeconfig');
    await writeFile(kubeconfigPath, kubeconfig(server, caPem, adminToken), { mode: 0o600 });
    const nodes = Array.from({ length: this.options.nodes ?? 2 }, (_, i) => `kwok-node-${i}`);
    const realNodes = Array.from({ length: this.options.realNodes ? (this.options.realNodes.count ?? 1) : 0 }, (_, i) => `real-node-${i}`);
    this.info = {
      server,
      caPem,
      adminToken,
      userTokens,
      kubeconfigPath,
      dir,
      etcdClientUrl: `http://127.0.0.1:${this.ports.etcdClient}`,
      nodes,
      realNodes,
    };
    if (nodes.length > 0 || realNodes.length > 0) await this.startComponents(this.info);
    if (realNodes.length > 0) await this.startRealNodes(this.info);
    return this.info;
  }

  /** Where the API server listens: the real nodes' gateway when there are real nodes, loopback otherwise. */
  private get host(): string {
    return this.options.realNodes?.network.gateway ?? '127.0.0.1';
  }

  /** The real nodes (each Ready), then the cluster's DNS on them (Available). */
  private async startRealNodes(info: ControlPlaneInfo): Promise<void> {
    const { network, registryHost } = this.options.realNodes!;
    const [{ apiserver }, images] = await Promise.all([binaries(), pushClusterImages(registryHost)]);
    this.realNodes = info.realNodes.map(
      (name, index) =>
        new RealNode({
          network,
          index,
          count: info.realNodes.length,
          name,
          apiserverBinary: apiserver,
          kubeconfig: info.kubeconfigPath,
          pauseImage: images.pause,
          registryHost,
          mirrored: this.options.realNodes!.mirrored ?? [DEMO_REGISTRY, 'registry.example.com', 'docker.io'],
        }),
    );
    await Promise.all(this.realNodes.map((n) => n.start()));
    const kube = new TestKube(info);
    await Promise.all(this.realNodes.map((n) => this.nodeReady(kube, n.name, () => n.exited())));
    await deployClusterDns(kube, { image: images.coredns, serviceIp: network.dnsIp });
  }

  private async nodeReady(kube: TestKube, name: string, exited: () => string | undefined): Promise<void> {
    await waitFor(
      `node ${name} Ready`,
      async () => {
        const ended = exited();
        if (ended) throw new Error(`${ended}: process exited`);
        const node = await kube.request<{ status?: { conditions?: { type: string; status: string }[] } }>('GET', `/api/v1/nodes/${name}`);
        return (node.body.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
  }

  /**
   * kube-controller-manager, kube-scheduler and KWOK, each as a client of the API server with the
   * admin kubeconfig; then the Nodes, waiting until each reports Ready (KWOK's node stages).
   */
  private async startComponents(info: ControlPlaneInfo): Promise<void> {
    const { dir, nodes } = info;
    const { apiserver, kwok } = await binaries();
    const kc = info.kubeconfigPath;
    const flexDir = join(dir, 'flexvolume');
    await mkdir(flexDir);
    // A HOME of its own keeps KWOK from reading a developer's ~/.kwok/kwok.yaml.
    await mkdir(join(dir, 'kwok-home'));
    this.components = [
      startProcess(
        apiserver,
        [
          'kube-controller-manager',
          `--kubeconfig=${kc}`,
          `--service-account-private-key-file=${join(dir, 'sa.key')}`,
          `--root-ca-file=${join(dir, 'certs', 'apiserver.crt')}`,
          '--controllers=*',
          '--leader-elect=false',
          '--use-service-account-credentials=false',
          '--secure-port=0',
          `--flex-volume-plugin-dir=${flexDir}`,
        ],
        join(dir, 'kube-controller-manager.log'),
      ),
      startProcess(apiserver, ['kube-scheduler', `--kubeconfig=${kc}`, '--leader-elect=false', '--secure-port=0'], join(dir, 'kube-scheduler.log')),
      startProcess(
        kwok,
        [
          `--kubeconfig=${kc}`,
          '--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake',
          '--node-lease-duration-seconds=40',
          // KWOK's default pod range overlaps the API server's service range.
          '--cidr=10.244.0.0/16',
        ],
        join(dir, 'kwok.log'),
        { ...process.env, HOME: join(dir, 'kwok-home') },
      ),
    ];
    const kube = new TestKube(info);
    for (const name of nodes) await kube.must(kube.request('POST', '/api/v1/nodes', fakeNode(name)));
    const exited = (): string | undefined => this.components.find((c) => c.child.exitCode !== null)?.logFile;
    for (const name of nodes) await this.nodeReady(kube, name, exited);
  }

  private async launch(dir: string): Promise<void> {
    const { apiserver } = await binaries();
    const ports = this.ports!;
    const server = `https://${this.host}:${ports.api}`;
    const real = this.options.realNodes;
    const args = [
      `--embedded-etcd-dir=${join(dir, 'etcd')}`,
      `--embedded-etcd-client-port=${ports.etcdClient}`,
      `--embedded-etcd-peer-port=${ports.etcdPeer}`,
      `--bind-address=${this.host}`,
      `--secure-port=${ports.api}`,
      `--cert-dir=${join(dir, 'certs')}`,
      `--service-cluster-ip-range=${real?.network.serviceCidr ?? '10.0.0.0/24'}`,
      `--service-account-issuer=${server}/`,
      `--service-account-key-file=${join(dir, 'sa.pub')}`,
      `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
      '--authorization-mode=RBAC',
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
      '--allow-privileged=true',
      // With real nodes, Pods get their ServiceAccount's token (the admission plugin) and reach the API server through
      // the `kubernetes` Service, whose endpoint is the gateway address (the lease reconciler writes it). Simulated
      // Pods need neither.
      ...(real ? [`--advertise-address=${real.network.gateway}`] : ['--disable-admission-plugins=ServiceAccount', '--endpoint-reconciler-type=none']),
      '--enable-priority-and-fairness=false',
      // Dial a kubelet (logs, exec, port-forward) at its node's address, never by a name the host's resolver would be asked.
      '--kubelet-preferred-address-types=InternalIP',
      // the aggregation layer (kubeadm's flags)
      `--requestheader-client-ca-file=${join(dir, 'certs', 'front-proxy-ca.crt')}`,
      `--requestheader-allowed-names=${FRONT_PROXY_CLIENT_NAME}`,
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      `--proxy-client-cert-file=${join(dir, 'certs', 'front-proxy-client.crt')}`,
      `--proxy-client-key-file=${join(dir, 'certs', 'front-proxy-client.key')}`,
      ...(this.options.extraArgs ?? []),
    ];
    this.proc = startProcess(apiserver, args, join(dir, 'apiserver.log'));
    const proc = this.proc;
    let exited = false;
    void proc.exited.then(() => (exited = true));
    const caFile = join(dir, 'certs', 'apiserver.crt');
    await waitFor(
      `kube-apiserver /readyz at ${server} (log: ${proc.logFile})`,
      async () => {
        if (exited) throw new Error(`kube-apiserver exited; see ${proc.logFile}`);
        const ca = await readFile(caFile, 'utf8');
        const dispatcher = new Agent({ connect: { ca } });
        try {
          const res = await request(`${server}/readyz`, { dispatcher });
          await res.body.dump();
          return res.statusCode === 200;
        } finally {
          await dispatcher.close();
        }
      },
      { timeoutMs: 180_000, intervalMs: 300 },
    );
  }

  /** Stops the process (SIGTERM) and starts it again on the same ports with the same data. */
  async restart(): Promise<void> {
    await this.stopProcess();
    await this.launch(this.details.dir);
  }

  /** SIGKILLs the process: the API server (and its etcd) vanish without a goodbye. */
  async kill(): Promise<void> {
    if (this.proc) await killProcess(this.proc);
  }

  /** Starts the process again after kill(), same ports and data. */
  async resume(): Promise<void> {
    await this.launch(this.details.dir);
  }

  private async stopProcess(): Promise<void> {
    if (this.proc) await stopProcess(this.proc);
  }

  /** Stops every process (nodes, scheduler, controllers, then the API server) and removes the directory. */
  async stop(): Promise<void> {
    await Promise.all(this.realNodes.map((n) => n.stop()));
    this.realNodes = [];
    await Promise.all(this.components.map((c) => stopProcess(c)));
    this.components = [];
    await this.stopProcess();
    if (this.info) await rm(this.info.dir, { recursive: true, force: true });
  }
}

/** The front-proxy CA and the API server's client certificate signed by it, valid for ten years (a `make run` cluster may live long). */
async function writeFrontProxyCerts(certDir: string): Promise<void> {
  const notAfter = new Date(Date.now() + 3650 * 24 * 3600_000);
  const ca = generateCA(notAfter, 'front-proxy-ca');
  const client = createSignedClientPair(notAfter, ca, FRONT_PROXY_CLIENT_NAME, 'front-proxy');
  await writeFile(join(certDir, 'front-proxy-ca.crt'), ca.certPEM);
  await writeFile(join(certDir, 'front-proxy-client.crt'), client.certPEM);
  await writeFile(join(certDir, 'front-proxy-client.key'), client.keyPEM, { mode: 0o600 });
}

export function kubeconfig(server: string, caPem: string, token: string, name = 'test'): string {
  const ca = Buffer.from(caPem).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${name}`,
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${ca}`,
    'users:',
    `- name: ${name}`,
    '  user:',
    `    token: ${token}`,
    'contexts:',
    `- name: ${name}`,
    '  context:',
    `    cluster: ${name}`,
    `    user: ${name}`,
    `current-context: ${name}`,
    '',
  ].join('\n');
}

/** A Node that KWOK manages (its annotation selector) with room for many Pods. */
function fakeNode(name: string): object {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'kwok.x-k8s.io/node': 'fake' },
      labels: { 'kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'linux', 'kubernetes.io/hostname': name, type: 'kwok' },
    },
    status: {
      allocatable: { cpu: '32', memory: '256Gi', pods: '110' },
      capacity: { cpu: '32', memory: '256Gi', pods: '110' },
    },
  };
}
