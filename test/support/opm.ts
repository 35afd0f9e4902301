// operator-registry's `opm serve <fbc dir>` on a free port of this machine: the registry gRPC server a
// CatalogSource with spec.address talks to. start() returns once ListPackages answers.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RegistryClient } from '../../internal/classic/registryclient/index.ts';
import { opmBinary } from './binaries.ts';
import { freePort, waitFor } from './net.ts';
import { startProcess, stopProcess, type Managed } from './process.ts';

export interface OpmServeInfo {
  /** 127.0.0.1:<port>, as a CatalogSource spec.address. */
  readonly address: string;
  readonly port: number;
  /** opm's log (stdout and stderr). */
  readonly logFile: string;
}

export class OpmServe {
  private proc: Managed | undefined;
  private dir: string | undefined;
  private info: OpmServeInfo | undefined;

  private readonly catalogDir: string;
  private readonly fixedPort: number | undefined;

  /** `port`: listen there (e.g. an address a CatalogSource already points at); default a free one. */
  constructor(catalogDir: string, port?: number) {
    this.catalogDir = catalogDir;
    this.fixedPort = port;
  }

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  get details(): OpmServeInfo {
    if (!this.info) throw new Error('opm serve not started');
    return this.info;
  }

  async start(timeoutMs = 60_000): Promise<OpmServeInfo> {
    const opm = await opmBinary();
    const port = this.fixedPort ?? (await freePort());
    this.dir = await mkdtemp(join(tmpdir(), 'olm-opm-'));
    const logFile = join(this.dir, 'opm.log');
    // No pprof endpoint (its fixed default port would clash between servers), termination log in the temp dir.
    const args = ['serve', this.catalogDir, '-p', String(port), '--pprof-addr=', `--termination-log=${join(this.dir, 'termination-log')}`];
    this.proc = startProcess(opm, args, logFile);
    const proc = this.proc;
    const address = `127.0.0.1:${port}`;
    const client = new RegistryClient(address, { timeoutMs: 2_000 });
    try {
      await waitFor(
        `opm serve ${this.catalogDir} answering ListPackages on ${address} (log ${logFile})`,
        async () => {
          if (proc.child.exitCode !== null) throw new Error(`opm serve exited with ${proc.child.exitCode}; see ${logFile}`);
          try {
            await client.listPackages();
            return true;
          } catch {
            return false;
          }
        },
        { timeoutMs },
      );
    } finally {
      client.close();
    }
    this.info = { address, port, logFile };
    return this.info;
  }

  async stop(): Promise<void> {
    if (this.proc) await stopProcess(this.proc);
    this.proc = undefined;
    this.info = undefined;
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }
}
