// kubectl, as upstream's steps run it: the envtest binary's `kubectl` (test/envtest builds one multi-call binary),
// pointed at one profile's cluster with its admin kubeconfig, stdin from a string, stdout and stderr kept apart
// (kubectl writes the API server's warnings to stderr, which the warning steps read).
import { spawn } from 'node:child_process';
import { binaries } from '../../support/binaries.ts';

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export class KubectlError extends Error {
  readonly args: readonly string[];
  readonly result: KubectlResult;

  constructor(args: readonly string[], result: KubectlResult) {
    super(`kubectl ${args.join(' ')} exited ${result.code}: ${result.stderr.trim() || result.stdout.trim()}`);
    this.args = args;
    this.result = result;
  }
}

export class Kubectl {
  readonly #kubeconfig: string;
  readonly #cacheDir: string;

  constructor(kubeconfig: string, cacheDir: string) {
    this.#kubeconfig = kubeconfig;
    this.#cacheDir = cacheDir;
  }

  /** Runs kubectl and returns its exit code and output, whatever the code. */
  async run(args: readonly string[], input?: string): Promise<KubectlResult> {
    const { apiserver } = await binaries();
    const full = ['kubectl', `--kubeconfig=${this.#kubeconfig}`, `--cache-dir=${this.#cacheDir}`, ...args];
    return new Promise((resolve, reject) => {
      const child = spawn(apiserver, full, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, KUBECONFIG: this.#kubeconfig } });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (b: Buffer) => out.push(b));
      child.stderr.on('data', (b: Buffer) => err.push(b));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
      child.stdin.on('error', () => undefined);
      child.stdin.end(input ?? '');
    });
  }

  /** Runs kubectl and returns stdout; a non-zero exit is a KubectlError carrying stderr. */
  async must(args: readonly string[], input?: string): Promise<string> {
    const r = await this.run(args, input);
    if (r.code !== 0) throw new KubectlError(args, r);
    return r.stdout;
  }
}
