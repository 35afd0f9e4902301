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
  const tty = opts.tty ? { isTTY: true } : {};
  const out = capture({});
  const err = capture(tty);
  const code = await dispatch(commands, [...argv], {
    stdout: out.stream,
    stderr: err.stream,
    cwd: opts.cwd ?? process.cwd(),
    env: opts.env ?? {},
    stdin: opts.stdin === undefined ? undefined : Object.assign(Readable.from([opts.stdin]), tty),
    signal: opts.signal,
  });
  return { code, stdout: out.text(), stderr: err.text() };
}

/** A stream whose writes are kept, with `extra` on it (`isTTY`), and the text written so far. */
function capture(extra: { isTTY?: boolean }): { stream: PassThrough; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = Object.assign(new PassThrough(), extra).on('data', (c: Buffer) => chunks.push(c));
  return { stream, text: () => Buffer.concat(chunks).toString() };
}
