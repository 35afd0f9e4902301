// Running a command in process with its output captured: what tests and `make run` use instead of
// spawning the binary.
import { PassThrough } from 'node:stream';
import { commands } from './commands.ts';
import { dispatch } from './dispatch.ts';

export interface CapturedRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `kubectl olm <argv…>` in this process; nothing reaches the real stdout/stderr. */
export async function runCaptured(argv: readonly string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CapturedRun> {
  const out = new PassThrough();
  const err = new PassThrough();
  const o: Buffer[] = [];
  const e: Buffer[] = [];
  out.on('data', (c: Buffer) => o.push(c));
  err.on('data', (c: Buffer) => e.push(c));
  const code = await dispatch(commands, [...argv], { stdout: out, stderr: err, cwd: opts.cwd ?? process.cwd(), env: opts.env ?? {} });
  return { code, stdout: Buffer.concat(o).toString(), stderr: Buffer.concat(e).toString() };
}
