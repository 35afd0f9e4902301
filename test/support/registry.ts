// The CNCF distribution registry on 127.0.0.1 (or a real node's gateway address) with filesystem storage in a temp dir.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { binaries } from './binaries.ts';
import { freePort, portFree, waitFor } from './net.ts';
import { startProcess, stopProcess, type Managed } from './process.ts';

/** Where `make run` serves its registry, and so the registry the demo's catalog and bundles name (test/support/demo.ts). */
export const DEMO_REGISTRY = 'localhost:5001';

export interface RegistryInfo {
  /** host:port, e.g. 127.0.0.1:5000 — use as the image reference domain. */
  readonly host: string;
  readonly url: string;
  readonly dir: string;
}

export interface RegistryOptions {
  /** Extra top-level YAML appended to the registry config (e.g. an `auth:` section). */
  readonly extraConfig?: string;
  /** Listen on this port (default: a free one); `start` fails with `PortInUseError` when taken. */
  readonly port?: number;
  /** Listen on this address (default 127.0.0.1): a real node's gateway (NodeNetwork), so that its containerd pulls from it. */
  readonly address?: string;
}

/** The fixed port asked for is taken. */
export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
  readonly port: number;
  constructor(port: number) {
    super(`port ${port} is in use`);
    this.port = port;
  }
}

export class Registry {
  private proc: Managed | undefined;
  private info: RegistryInfo | undefined;
  private readonly options: RegistryOptions;

  constructor(options: RegistryOptions = {}) {
    this.options = options;
  }

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  get details(): RegistryInfo {
    if (!this.info) throw new Error('registry not started');
    return this.info;
  }

  async start(): Promise<RegistryInfo> {
    const { registry } = await binaries();
    const port = this.options.port ?? (await freePort());
    if (this.options.port !== undefined && !(await portFree(port))) throw new PortInUseError(port);
    const dir = await mkdtemp(join(tmpdir(), 'olm-registry-'));
    const address = this.options.address ?? '127.0.0.1';
    const config = [
      'version: 0.1',
      'log:',
      '  level: warn',
      '  accesslog:',
      '    disabled: true',
      'storage:',
      '  filesystem:',
      `    rootdirectory: ${join(dir, 'data')}`,
      '  delete:',
      '    enabled: true',
      'http:',
      `  addr: ${address}:${port}`,
      '  secret: olm-test-registry',
      this.options.extraConfig ?? '',
      '',
    ].join('\n');
    await writeFile(join(dir, 'config.yml'), config);
    this.proc = startProcess(registry, ['serve', join(dir, 'config.yml')], join(dir, 'registry.log'), {
      ...process.env,
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
    });
    const url = `http://${address}:${port}`;
    const proc = this.proc;
    await waitFor(`registry at ${url} (log: ${proc.logFile})`, async () => {
      if (proc.child.exitCode !== null) throw new Error(`registry exited; see ${proc.logFile}`);
      const res = await request(`${url}/v2/`);
      await res.body.dump();
      return res.statusCode === 200 || res.statusCode === 401;
    });
    this.info = { host: `${address}:${port}`, url, dir };
    return this.info;
  }

  async stop(): Promise<void> {
    if (this.proc) await stopProcess(this.proc);
    if (this.info) await rm(this.info.dir, { recursive: true, force: true });
  }
}
