// Real nodes for the local cluster: a kubelet (from the Kubernetes module, in the multi-call control-plane binary),
// containerd + runc (Debian's packages) and CNI (Debian's bridge, host-local, portmap and loopback plugins), and
// kube-proxy (iptables), each node in a network namespace of its own. Pods run as real containers; their images come
// only from the local plain-HTTP registry, since nothing may be pulled from outside this machine.
//
// The network never reaches beyond this machine:
//   - A cluster with real nodes takes an index (a lock file under /run/olm-local-cluster; a dead owner's leftovers are
//     cleaned and the index reused) and a Linux bridge `olm<index>br` on the host with the address 10.200.<index>.1:
//     the API server and the registry listen there, so the nodes reach them.
//   - Node i is the network namespace `olm<index>n<i>`, joined to the bridge by a veth pair, address 10.200.<index>.<10+i>.
//     Its Pods (a CNI bridge `cni0`) are 10.201.<index*8+i>.0/24; Services are 10.202.<index>.0/24. The namespace
//     has no default route: a Pod's packet to any other address has no way out (ENETUNREACH).
//   - The host routes only these: each node's Pod range via that node, the Service range via node 0 (whose kube-proxy
//     translates the address; the API server dials Services for webhooks and aggregated APIs). The host does not
//     forward (its ip_forward stays as it is), so nothing from a node is routed off the machine.
//
// cgroup v1, no systemd (this machine's PID 1 is not systemd): kubelet with `failCgroupV1: false` and the cgroupfs
// driver under a cgroup root of its own per node (`/olm<index>n<i>`), containerd with runc's cgroupfs driver.
// Processes run in the host's mount namespace (nsenter --net, not `ip netns exec`, which would give each its own and
// hide the kubelet's volume mounts from containerd). Everything a node writes lives under
// `<tmp>/olm-real-nodes/<index>/`, which is also how `cleanup` finds what a dead run left: the processes whose command
// line names that directory, the mounts under it, the network namespaces, the bridge and the cgroups.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { processAlive, sleep, waitFor } from './net.ts';
import { startProcess, stopProcess, type Managed } from './process.ts';

const exec = promisify(execFile);
const LOCK_DIR = '/run/olm-local-cluster';
const MAX_CLUSTERS = 32;
/** The cgroup v1 hierarchies a kubelet with the cgroupfs driver manages (a Pod's cgroup is made in each). */
const CGROUP_SUBSYSTEMS = ['cpu', 'cpuacct', 'cpuset', 'memory', 'pids', 'blkio', 'devices', 'freezer', 'systemd'];
/** Debian's CNI plugins (package containernetworking-plugins). */
const CNI_BIN_DIR = '/usr/lib/cni';
/** The label every real node carries (KWOK's carry `type: kwok`). */
export const REAL_NODE_LABEL = 'olm.test/real-node';

/** Why real nodes cannot run here, or undefined when they can (root, cgroup v1 or v2 mounted, the Debian tools installed). */
export function realNodesUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'real nodes need root (network namespaces, cgroups, mounts)';
  for (const tool of ['/usr/bin/containerd', '/usr/bin/containerd-shim-runc-v2', '/usr/sbin/runc', `${CNI_BIN_DIR}/bridge`, '/usr/sbin/iptables', '/usr/bin/nsenter']) {
    if (!existsSync(tool) && !existsSync(tool.replace('/usr/sbin/', '/usr/bin/'))) return `${tool} is missing: make system-deps installs containerd, runc, containernetworking-plugins and iptables`;
  }
  return undefined;
}

async function run(cmd: string, args: readonly string[]): Promise<string> {
  try {
    return (await exec(cmd, args, { maxBuffer: 16 << 20 })).stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')}: ${(e.stderr ?? '').trim() || e.message}`, { cause: err });
  }
}

/** `ip …`, ignoring the answer "exists" / "not found" when `tolerate` says so. */
async function ip(args: readonly string[], tolerate?: RegExp): Promise<void> {
  try {
    await run('ip', args);
  } catch (err) {
    if (!tolerate?.test((err as Error).message)) throw err;
  }
}

/**
 * The addresses of one cluster with real nodes (see the file comment), and the host side of its network: the lock on
 * its index and the bridge. `create` takes a free index; `destroy` removes the bridge and the lock.
 */
export class NodeNetwork {
  readonly index: number;
  private constructor(index: number) {
    this.index = index;
  }

  get bridge(): string {
    return `olm${this.index}br`;
  }
  /** The host's address on the bridge: where the API server and the registry listen for the nodes. */
  get gateway(): string {
    return `10.200.${this.index}.1`;
  }
  nodeIp(i: number): string {
    return `10.200.${this.index}.${10 + i}`;
  }
  podCidr(i: number): string {
    return `10.201.${this.index * 8 + i}.0/24`;
  }
  get clusterCidr(): string {
    return `10.201.${this.index * 8}.0/21`;
  }
  get serviceCidr(): string {
    return `10.202.${this.index}.0/24`;
  }
  /** The Service address of the cluster's DNS (kube-dns), as kubeadm's tenth address of the range. */
  get dnsIp(): string {
    return `10.202.${this.index}.10`;
  }
  netns(i: number): string {
    return `olm${this.index}n${i}`;
  }
  /** The directory everything of this cluster's nodes lives under. */
  get dir(): string {
    return nodesDir(this.index);
  }

  /** Takes the lowest free index (cleaning what a dead owner left) and creates the bridge with the gateway address. */
  static async create(): Promise<NodeNetwork> {
    const why = realNodesUnavailable();
    if (why) throw new Error(why);
    await mkdir(LOCK_DIR, { recursive: true });
    for (let index = 0; index < MAX_CLUSTERS; index++) {
      const lock = join(LOCK_DIR, `${index}.pid`);
      try {
        await writeFile(lock, `${process.pid}\n`, { flag: 'wx' });
      } catch {
        const owner = Number((await readFile(lock, 'utf8').catch(() => '')).trim());
        if (owner && owner !== process.pid && processAlive(owner)) continue;
        await cleanup(index);
        await writeFile(lock, `${process.pid}\n`);
      }
      const net = new NodeNetwork(index);
      try {
        await ip(['link', 'add', net.bridge, 'type', 'bridge']);
        await ip(['addr', 'add', `${net.gateway}/24`, 'dev', net.bridge]);
        await ip(['link', 'set', net.bridge, 'up']);
        await mkdir(net.dir, { recursive: true });
      } catch (err) {
        await net.destroy();
        throw err;
      }
      return net;
    }
    throw new Error(`no free local cluster index in ${LOCK_DIR} (${MAX_CLUSTERS} in use)`);
  }

  /** Removes the bridge (its routes go with it), whatever a node left, and the lock. */
  async destroy(): Promise<void> {
    await cleanup(this.index);
    await rm(join(LOCK_DIR, `${this.index}.pid`), { force: true });
  }
}

/**
 * Listens on `address:port` and passes each connection to 127.0.0.1:`port`: `make run`'s registry, on loopback for the
 * tutorial's `localhost:5001`, reached by the real nodes at their gateway. Resolves with the function that closes it.
 */
export async function forwardToLoopback(address: string, port: number): Promise<() => Promise<void>> {
  const server = createServer((inbound) => {
    const outbound = connect(port, '127.0.0.1');
    inbound.pipe(outbound).pipe(inbound);
    const end = (): void => {
      inbound.destroy();
      outbound.destroy();
    };
    inbound.on('error', end);
    outbound.on('error', end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => resolve());
  });
  return () => new Promise((resolve) => server.close(() => resolve()));
}

const nodesDir = (index: number): string => join(tmpdir(), 'olm-real-nodes', String(index));

/** Every process whose command line names `dir` (containerd's shims, a kubelet, containers started from it). */
async function processesUnder(dir: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(dir)) pids.push(Number(entry));
  }
  return pids;
}

/** The processes in the cgroup subtree `path` of the `pids` hierarchy (a node's containers). */
async function cgroupProcesses(path: string): Promise<number[]> {
  const root = join('/sys/fs/cgroup/pids', path);
  const pids: number[] = [];
  const walk = async (dir: string): Promise<void> => {
    const procs = await readFile(join(dir, 'cgroup.procs'), 'utf8').catch(() => '');
    pids.push(...procs.split('\n').filter(Boolean).map(Number));
    for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) if (e.isDirectory()) await walk(join(dir, e.name));
  };
  await walk(root);
  return pids;
}

/** Removes a cgroup subtree, deepest first (a cgroup directory is removed with rmdir once it has no process). */
async function removeCgroup(path: string): Promise<void> {
  for (const subsystem of CGROUP_SUBSYSTEMS) {
    const remove = async (dir: string): Promise<void> => {
      for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) if (e.isDirectory()) await remove(join(dir, e.name));
      await rm(dir, { recursive: false, force: true }).catch(() => run('rmdir', [dir]).catch(() => undefined));
    };
    const root = join('/sys/fs/cgroup', subsystem, path);
    if (existsSync(root)) await remove(root);
  }
}

/**
 * Kills every process under `dir` (by command line) or in the cgroup subtrees `cgroupPaths`, then unmounts what is
 * mounted under `dir` (volumes, overlay roots, Pods' network namespaces), deepest first, and removes the cgroups.
 */
async function reclaim(dir: string, cgroupPaths: readonly string[]): Promise<void> {
  for (let round = 0; round < 50; round++) {
    const pids = [...(await processesUnder(dir)), ...(await Promise.all(cgroupPaths.map(cgroupProcesses))).flat()];
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    // The kernel tears a killed process down asynchronously; look again shortly.
    await sleep(100);
  }
  const mounts = (await readFile('/proc/self/mountinfo', 'utf8'))
    .split('\n')
    .map((l) => l.split(' ')[4])
    .filter((m): m is string => !!m && (m === dir || m.startsWith(`${dir}/`)))
    .sort((a, b) => b.length - a.length);
  for (const m of mounts) await run('umount', ['-l', m]).catch(() => undefined);
  for (const c of cgroupPaths) await removeCgroup(c);
}

/** Kills every process of cluster `index`'s nodes and removes their mounts, namespaces, cgroups, files and the bridge. */
async function cleanup(index: number): Promise<void> {
  const dir = nodesDir(index);
  const prefix = `olm${index}n`;
  const cgroups = (await readdir('/sys/fs/cgroup/pids').catch(() => [] as string[])).filter((n) => n.startsWith(prefix)).map((n) => `/${n}`);
  await reclaim(dir, cgroups);
  for (const ns of (await run('ip', ['netns', 'list']).catch(() => '')).split('\n').map((l) => l.split(' ')[0]!)) {
    if (ns.startsWith(prefix)) await ip(['netns', 'del', ns], /No such file|Invalid argument/);
  }
  await ip(['link', 'del', `olm${index}br`], /Cannot find device/);
  await rm(dir, { recursive: true, force: true });
}

export interface RealNodeOptions {
  readonly network: NodeNetwork;
  /** The node's number in its cluster (0 first). */
  readonly index: number;
  /** How many real nodes the cluster has (each routes to the others' Pod ranges). */
  readonly count: number;
  readonly name: string;
  /** The multi-call control-plane binary (its `kubelet` and `kube-proxy` commands). */
  readonly apiserverBinary: string;
  /** A kubeconfig file for the kubelet and kube-proxy. */
  readonly kubeconfig: string;
  /** containerd's sandbox image (a digest reference in the local registry). */
  readonly pauseImage: string;
  /** host:port of the local plain-HTTP registry, reachable from the node at the bridge address. */
  readonly registryHost: string;
  /** Registries whose images the node pulls from the local registry instead (containerd mirrors), e.g. `localhost:5001`. */
  readonly mirrored?: readonly string[];
}

/** One real node: its network namespace, containerd, kubelet and kube-proxy. */
export class RealNode {
  private readonly o: RealNodeOptions;
  private procs: Managed[] = [];

  constructor(options: RealNodeOptions) {
    this.o = options;
  }

  get dir(): string {
    return join(this.o.network.dir, `node-${this.o.index}`);
  }

  get name(): string {
    return this.o.name;
  }

  /** containerd's, the kubelet's and kube-proxy's (nsenter execs them, so the pids are theirs). */
  get pids(): number[] {
    return this.procs.map((p) => p.pid);
  }

  private get cgroupRoot(): string {
    return `/${this.o.network.netns(this.o.index)}`;
  }

  private get containerdSocket(): string {
    return join(this.dir, 'containerd', 'containerd.sock');
  }

  /** Brings up the namespace and its routes, then containerd, the kubelet and kube-proxy; returns once each has started. */
  async start(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await this.network();
    await this.cgroups();
    await this.writeConfig();
    const ns = `--net=/run/netns/${this.o.network.netns(this.o.index)}`;
    const env = { ...process.env, PATH: `/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin` };
    const containerd = startProcess('nsenter', [ns, '--', 'containerd', '--config', join(this.dir, 'containerd.toml')], join(this.dir, 'containerd.log'), env);
    this.procs.push(containerd);
    await waitFor(`containerd of ${this.name} (log: ${containerd.logFile})`, async () => {
      if (containerd.child.exitCode !== null) throw new Error(`containerd exited; see ${containerd.logFile}`);
      return existsSync(this.containerdSocket);
    });
    const bin = this.o.apiserverBinary;
    this.procs.push(
      startProcess(
        'nsenter',
        [
          ns,
          '--',
          bin,
          'kubelet',
          `--config=${join(this.dir, 'kubelet.json')}`,
          `--kubeconfig=${this.o.kubeconfig}`,
          `--hostname-override=${this.name}`,
          `--node-ip=${this.o.network.nodeIp(this.o.index)}`,
          `--root-dir=${join(this.dir, 'kubelet')}`,
          `--cert-dir=${join(this.dir, 'kubelet-pki')}`,
          `--node-labels=${REAL_NODE_LABEL}=true`,
        ],
        join(this.dir, 'kubelet.log'),
        env,
      ),
      startProcess('nsenter', [ns, '--', bin, 'kube-proxy', `--config=${join(this.dir, 'kube-proxy.json')}`], join(this.dir, 'kube-proxy.log'), env),
    );
  }

  /** True while containerd, the kubelet and kube-proxy run; the log of the first that ended otherwise. */
  exited(): string | undefined {
    return this.procs.find((p) => p.child.exitCode !== null || p.child.signalCode !== null)?.logFile;
  }

  private async network(): Promise<void> {
    const { network: net, index } = this.o;
    const ns = net.netns(index);
    const host = `olm${net.index}v${index}`;
    const inNs = (args: readonly string[], tolerate?: RegExp): Promise<void> => ip(['-n', ns, ...args], tolerate);
    await ip(['netns', 'add', ns]);
    await ip(['link', 'add', host, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns]);
    await ip(['link', 'set', host, 'master', net.bridge, 'up']);
    await inNs(['link', 'set', 'lo', 'up']);
    await inNs(['addr', 'add', `${net.nodeIp(index)}/24`, 'dev', 'eth0']);
    await inNs(['link', 'set', 'eth0', 'up']);
    // No default route: only the bridge's /24, the other nodes' Pods and the Services (to the host, which drops
    // what kube-proxy did not translate).
    for (let j = 0; j < this.o.count; j++) if (j !== index) await inNs(['route', 'add', net.podCidr(j), 'via', net.nodeIp(j)]);
    await inNs(['route', 'add', net.serviceCidr, 'via', net.gateway]);
    await run('ip', ['netns', 'exec', ns, 'sysctl', '-q', '-w', 'net.ipv4.ip_forward=1', 'net.bridge.bridge-nf-call-iptables=1']);
    await ip(['route', 'add', net.podCidr(index), 'via', net.nodeIp(index)]);
    if (index === 0) await ip(['route', 'add', net.serviceCidr, 'via', net.nodeIp(0)]);
  }

  /** The node's cgroup root in every hierarchy (cpuset's needs its parent's cpus and mems before it can hold a task). */
  private async cgroups(): Promise<void> {
    for (const subsystem of CGROUP_SUBSYSTEMS) {
      const parent = join('/sys/fs/cgroup', subsystem);
      if (!existsSync(parent)) continue;
      const dir = join(parent, this.cgroupRoot);
      await mkdir(dir, { recursive: true });
      if (subsystem === 'cpuset') {
        for (const f of ['cpuset.cpus', 'cpuset.mems']) await writeFile(join(dir, f), await readFile(join(parent, f), 'utf8'));
      }
    }
  }

  private async writeConfig(): Promise<void> {
    const { network: net, index, registryHost } = this.o;
    const d = this.dir;
    const cni = join(d, 'cni');
    await mkdir(join(cni, 'net.d'), { recursive: true });
    await writeFile(
      join(cni, 'net.d', '10-olm.conflist'),
      JSON.stringify({
        cniVersion: '1.0.0',
        name: 'olm',
        plugins: [
          {
            type: 'bridge',
            bridge: 'cni0',
            isGateway: true,
            ipMasq: false,
            hairpinMode: true,
            ipam: { type: 'host-local', dataDir: join(cni, 'ipam'), ranges: [[{ subnet: net.podCidr(index) }]], routes: [{ dst: '0.0.0.0/0' }] },
          },
          { type: 'portmap', capabilities: { portMappings: true } },
        ],
      }),
    );
    // The local registry over plain HTTP, as containerd's hosts.toml says it; each mirrored registry pulled from it.
    for (const host of [registryHost, ...(this.o.mirrored ?? [])]) {
      const hostsDir = join(d, 'containerd', 'certs.d', host);
      await mkdir(hostsDir, { recursive: true });
      await writeFile(join(hostsDir, 'hosts.toml'), `server = "http://${registryHost}"\n\n[host."http://${registryHost}"]\n  capabilities = ["pull", "resolve"]\n`);
    }
    const cri = 'plugins."io.containerd.grpc.v1.cri"';
    await writeFile(
      join(d, 'containerd.toml'),
      [
        'version = 2',
        `root = "${join(d, 'containerd', 'root')}"`,
        `state = "${join(d, 'containerd', 'state')}"`,
        'disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]',
        '[grpc]',
        `  address = "${this.containerdSocket}"`,
        '[ttrpc]',
        `  address = "${this.containerdSocket}.ttrpc"`,
        '[plugins."io.containerd.internal.v1.opt"]',
        `  path = "${join(d, 'containerd', 'opt')}"`,
        `[${cri}]`,
        `  sandbox_image = "${this.o.pauseImage}"`,
        '  netns_mounts_under_state_dir = true',
        '  enable_unprivileged_ports = true',
        '  enable_unprivileged_icmp = true',
        // No process here may lower an oom_score_adj (this machine grants root no CAP_SYS_RESOURCE): containers get no
        // lower score than containerd's own, instead of failing to start.
        '  restrict_oom_score_adj = true',
        `[${cri}.containerd]`,
        '  snapshotter = "overlayfs"',
        '  default_runtime_name = "runc"',
        `[${cri}.containerd.runtimes.runc]`,
        '  runtime_type = "io.containerd.runc.v2"',
        `[${cri}.containerd.runtimes.runc.options]`,
        '  SystemdCgroup = false',
        `[${cri}.cni]`,
        `  bin_dir = "${CNI_BIN_DIR}"`,
        `  conf_dir = "${join(cni, 'net.d')}"`,
        `[${cri}.registry]`,
        `  config_path = "${join(d, 'containerd', 'certs.d')}"`,
        '',
      ].join('\n'),
    );
    // Pods with dnsPolicy Default get this: no name server, since nothing outside the cluster may be asked.
    await writeFile(join(d, 'resolv.conf'), '');
    await writeFile(
      join(d, 'kubelet.json'),
      JSON.stringify({
        apiVersion: 'kubelet.config.k8s.io/v1beta1',
        kind: 'KubeletConfiguration',
        failCgroupV1: false,
        // The kubelet's own score stays as it is (lowering it needs CAP_SYS_RESOURCE, which root lacks here).
        oomScoreAdj: 0,
        cgroupDriver: 'cgroupfs',
        cgroupRoot: this.cgroupRoot,
        containerRuntimeEndpoint: `unix://${this.containerdSocket}`,
        address: net.nodeIp(index),
        port: 10250,
        readOnlyPort: 0,
        healthzBindAddress: '127.0.0.1',
        healthzPort: 10248,
        // The API server reaches the kubelet (logs, exec, port-forward) without a client certificate of its own.
        authentication: { anonymous: { enabled: true }, webhook: { enabled: false } },
        authorization: { mode: 'AlwaysAllow' },
        clusterDNS: [net.dnsIp],
        clusterDomain: 'cluster.local',
        resolvConf: join(d, 'resolv.conf'),
        failSwapOn: false,
        // A developer's disk may be fuller than a node's would be: evict only when nearly nothing is left.
        evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '1%', 'imagefs.available': '1%', 'nodefs.inodesFree': '1%' },
        imageGCHighThresholdPercent: 100,
        imageGCLowThresholdPercent: 99,
        serializeImagePulls: false,
        localStorageCapacityIsolation: false,
        nodeStatusUpdateFrequency: '10s',
        volumePluginDir: join(d, 'volume-plugins'),
        podCIDR: net.podCidr(index),
        maxPods: 110,
      }),
    );
    await writeFile(
      join(d, 'kube-proxy.json'),
      JSON.stringify({
        apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
        kind: 'KubeProxyConfiguration',
        clientConnection: { kubeconfig: this.o.kubeconfig },
        hostnameOverride: this.name,
        mode: 'iptables',
        oomScoreAdj: 0,
        clusterCIDR: net.clusterCidr,
        healthzBindAddress: '127.0.0.1:10256',
        metricsBindAddress: '127.0.0.1:10249',
        // A network namespace's conntrack limits are the host's: leave them as they are.
        conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: '0s', tcpCloseWaitTimeout: '0s' },
      }),
    );
  }

  /** Stops kube-proxy and the kubelet, kills the node's containers and containerd, and removes what the node made. */
  async stop(): Promise<void> {
    await Promise.all(this.procs.map((p) => stopProcess(p, 5_000)));
    this.procs = [];
    const { network: net, index } = this.o;
    await reclaim(this.dir, [this.cgroupRoot]);
    await ip(['route', 'del', net.podCidr(index)], /No such process|Cannot find/);
    await ip(['netns', 'del', net.netns(index)], /No such file|Invalid argument/);
    await ip(['link', 'del', `olm${net.index}v${index}`], /Cannot find device/);
    await rm(this.dir, { recursive: true, force: true });
  }
}
