// A real kube-apiserver with embedded etcd on 127.0.0.1, started from the binary that
// test/envtest builds. Used by the vitest global setup (one per run) and by tests that need
// a control plane of their own (restarts, compaction).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { binaries } from './binaries.ts';
import { freePort, waitFor } from './net.ts';
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
}

export interface ControlPlaneOptions {
  /** Extra kube-apiserver flags. */
  readonly extraArgs?: readonly string[];
}

export class ControlPlane {
  private proc: Managed | undefined;
  private info: ControlPlaneInfo | undefined;
  private ports: { api: number; etcdClient: number; etcdPeer: number } | undefined;
  private readonly options: ControlPlaneOptions;

  constructor(options: ControlPlaneOptions = {}) {
    this.options = options;
  }

  get pid(): number | undefined {
    return this.proc?.pid;
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
    this.ports = { api: await freePort(), etcdClient: await freePort(), etcdPeer: await freePort() };
    const server = `https://127.0.0.1:${this.ports.api}`;
    await this.launch(dir);
    const caPem = await readFile(join(dir, 'certs', 'apiserver.crt'), 'utf8');
    const kubeconfigPath = join(dir, 'kubeconfig');
    await writeFile(kubeconfigPath, kubeconfig(server, caPem, adminToken), { mode: 0o600 });
    this.info = {
      server,
      caPem,
      adminToken,
      userTokens,
      kubeconfigPath,
      dir,
      etcdClientUrl: `http://127.0.0.1:${this.ports.etcdClient}`,
    };
    return this.info;
  }

  private async launch(dir: string): Promise<void> {
    const { apiserver } = await binaries();
    const ports = this.ports!;
    const server = `https://127.0.0.1:${ports.api}`;
    const args = [
      `--embedded-etcd-dir=${join(dir, 'etcd')}`,
      `--embedded-etcd-client-port=${ports.etcdClient}`,
      `--embedded-etcd-peer-port=${ports.etcdPeer}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${ports.api}`,
      `--cert-dir=${join(dir, 'certs')}`,
      '--service-cluster-ip-range=10.0.0.0/24',
      `--service-account-issuer=${server}/`,
      `--service-account-key-file=${join(dir, 'sa.pub')}`,
      `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
      '--authorization-mode=RBAC',
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
      '--allow-privileged=true',
      '--disable-admission-plugins=ServiceAccount',
      '--endpoint-reconciler-type=none',
      '--enable-priority-and-fairness=false',
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

  /** Stops the process and removes its directory. */
  async stop(): Promise<void> {
    await this.stopProcess();
    if (this.info) await rm(this.info.dir, { recursive: true, force: true });
  }
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
