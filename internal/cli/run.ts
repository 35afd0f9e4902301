// Running a command in process with its output captured: what tests and `make run` use instead of
// spawning the binary.
import { PassThrough, Readable } from 'node:stream';
import { commands } from './commands.ts';
import { dispatch } from './dispatch.ts';

export interface CapturedRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CaptureOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Text on stdin (answers to confirmations); absent: no stdin. */
  readonly stdin?: string;
  /** Make stderr (and stdin, when given) look like a terminal, so progress and prompts appear. */
  readonly tty?: boolean;
  readonly signal?: AbortSignal;
}

/** Runs `kubectl olm <argv…>` in this process; nothing reaches the real stdout/stderr. */
export async function runCaptured(argv: readonly string[], opts: CaptureOptions = {}): Promise<CapturedRun> {
  const out = new PassThrough();
  const err = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (opts.tty) err.isTTY = true;
  const o: Buffer[] = [];
  const e: Buffer[] = [];
  out.on('data', (c: Buffer) => o.push(c));
  err.on('data', (c: Buffer) => e.push(c));
  let stdin: (Readable & { isTTY?: boolean }) | undefined;
  if (opts.stdin !== undefined) {
    stdin = Readable.from([opts.stdin]);
    if (opts.tty) stdin.isTTY = true;
  }
  const code = await dispatch(commands, [...argv], {
    stdout: out,
    stderr: err,
    cwd: opts.cwd ?? process.cwd(),
    env: opts.env ?? {},
    stdin,
    signal: opts.signal,
  });
  return { code, stdout: Buffer.concat(o).toString(), stderr: Buffer.concat(e).toString() };
}
