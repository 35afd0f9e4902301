// Structured logs, one record per line, to stdout. Two formats (`format`, the controllers' --log-format):
//   json (default): one object per line, `{"ts","level","msg",...fields}`;
//   text: for a terminal, `2026-11-27T23:00:00.000Z INFO  msg key=value key="a b" err="…"`.
//
//   const log = createLogger();                          // level from LOG_LEVEL, default info
//   const ctrl = log.child({ controller: 'clusterextension' });
//   ctrl.error('Reconciler error', { key: 'argocd', err }); // err → {message, name, reason, cause…}
//
// Errors anywhere in the fields are written as objects with their message (plus name, code,
// terminal reason, cause chain); stacks only when the logger's level is debug.

import { errorMessage, realClock, type LogFields, type Logger } from '../toolkit/index.ts';

export type { LogFields, Logger };
export { noopLogger } from '../toolkit/index.ts';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
export type LogFormat = 'json' | 'text';
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'text'];

export interface LoggerOptions {
  /** Lowest level written; default: env LOG_LEVEL, else `info`. */
  readonly level?: LogLevel;
  /** `json` (default) or `text`. */
  readonly format?: LogFormat;
  /** Fields on every line. */
  readonly fields?: LogFields;
  /** Where lines go (without the trailing newline); default: stdout. */
  readonly write?: (line: string) => void;
  /** Clock for `ts`; default: the wall clock. */
  readonly now?: () => Date;
  /** Environment to read LOG_LEVEL from; default: process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export const LOG_LEVELS: readonly LogLevel[] = ['error', 'warn', 'info', 'debug'];
const SEVERITY: Readonly<Record<LogLevel, number>> = { error: 0, warn: 1, info: 2, debug: 3 };
const RESERVED = new Set(['ts', 'level', 'msg']);
const MAX_CAUSE_DEPTH = 8;

/** `error|warn|info|debug` (any case, `warning` too) → the level; anything else → undefined. */
export function parseLogLevel(text: string | undefined): LogLevel | undefined {
  if (text === undefined) return undefined;
  const t = text.trim().toLowerCase();
  if (t === 'warning') return 'warn';
  return (LOG_LEVELS as readonly string[]).includes(t) ? (t as LogLevel) : undefined;
}

interface Sink {
  readonly severity: number;
  readonly stacks: boolean;
  readonly write: (line: string) => void;
  readonly now: () => Date;
  readonly format: (record: Record<string, unknown>, stacks: boolean) => string;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const env = options.env ?? process.env;
  let level = options.level;
  if (level !== undefined && parseLogLevel(level) !== level) throw new Error(`unknown log level "${String(level)}"`);
  const fromEnv = env['LOG_LEVEL'];
  const parsedEnv = parseLogLevel(fromEnv);
  level ??= parsedEnv ?? 'info';
  const sink: Sink = {
    severity: SEVERITY[level],
    stacks: level === 'debug',
    write: options.write ?? ((line) => void process.stdout.write(line + '\n')),
    now: options.now ?? (() => realClock.date()),
    format: options.format === 'text' ? textLine : stringify,
  };
  if (options.format !== undefined && !LOG_FORMATS.includes(options.format)) throw new Error(`unknown log format "${String(options.format)}"`);
  const logger = sinkLogger(sink, options.fields ?? {});
  if (options.level === undefined && fromEnv !== undefined && fromEnv !== '' && parsedEnv === undefined) {
    logger.warn('unknown LOG_LEVEL, using info', { LOG_LEVEL: fromEnv, valid: LOG_LEVELS });
  }
  return logger;
}

/** The logger of `sink` with `fields` on every line; its children add theirs. */
function sinkLogger(sink: Sink, fields: LogFields): Logger {
  const at =
    (level: LogLevel) =>
    (msg: string, more?: LogFields): void => {
      if (SEVERITY[level] > sink.severity) return;
      const record: Record<string, unknown> = { ts: sink.now().toISOString(), level, msg };
      addFields(record, fields);
      if (more) addFields(record, more);
      sink.write(sink.format(record, sink.stacks));
    };
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), child: (own) => sinkLogger(sink, { ...fields, ...own }) };
}

// ts/level/msg belong to the logger; a field of that name is kept as `field.<name>`.
function addFields(record: Record<string, unknown>, fields: LogFields): void {
  for (const key of Object.keys(fields)) record[RESERVED.has(key) ? `field.${key}` : key] = fields[key];
}

function stringify(record: Record<string, unknown>, stacks: boolean): string {
  try {
    return JSON.stringify(record, replacer(stacks));
  } catch (e) {
    // A cycle, a throwing toJSON: still write the line, without the fields.
    return JSON.stringify({
      ts: record['ts'],
      level: record['level'],
      msg: record['msg'],
      logError: `fields not serialisable: ${errorMessage(e)}`,
    });
  }
}

/**
 * One text line: `<ts> <LEVEL> <msg> key=value …`. Strings print bare unless they hold a space, quote, `=` or are
 * empty (then JSON-quoted); errors print their message (and `<key>.stack` at debug); other values as compact JSON.
 */
function textLine(record: Record<string, unknown>, stacks: boolean): string {
  const { ts, level, msg, ...fields } = record;
  const parts = [String(ts), String(level).toUpperCase().padEnd(5), String(msg)];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (value instanceof Error) {
      parts.push(`${key}=${textValue(value.message)}`);
      const reason = (value as Error & { reason?: unknown }).reason;
      if (typeof reason === 'string' && fields['reason'] === undefined) parts.push(`${key}.reason=${textValue(reason)}`);
      if (stacks && value.stack !== undefined) parts.push(`${key}.stack=${JSON.stringify(value.stack)}`);
      continue;
    }
    parts.push(`${key}=${textValue(value)}`);
  }
  return parts.join(' ');
}

function textValue(value: unknown): string {
  if (typeof value === 'string') {
    const quoted = JSON.stringify(value); // escapes quotes, backslashes and control characters
    return value === '' || /[\s=]/.test(value) || quoted !== `"${value}"` ? quoted : value;
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || value === null) return String(value);
  try {
    return JSON.stringify(value, replacer(false)) ?? String(value);
  } catch {
    return '"<not serialisable>"';
  }
}

function replacer(stacks: boolean): (this: unknown, key: string, value: unknown) => unknown {
  return function (_key, value) {
    if (value instanceof Error) return serializeError(value, stacks, 0);
    if (typeof value === 'bigint') return value.toString();
    if (value instanceof Map) return Object.fromEntries(value);
    if (value instanceof Set) return [...value];
    return value;
  };
}

/** An error as plain JSON: message, and name/code/reason/errors/cause when present. */
export function serializeError(err: Error, withStack: boolean, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = { message: err.message };
  if (err.name !== 'Error') out['name'] = err.name;
  const extra = err as Error & { code?: unknown; reason?: unknown };
  if (typeof extra.code === 'string' || typeof extra.code === 'number') out['code'] = extra.code;
  if (typeof extra.reason === 'string') out['reason'] = extra.reason;
  if (withStack && err.stack !== undefined) out['stack'] = err.stack;
  if (err instanceof AggregateError && depth < MAX_CAUSE_DEPTH) {
    out['errors'] = (err.errors as unknown[]).map((e) => (e instanceof Error ? serializeError(e, withStack, depth + 1) : e));
  }
  if (err.cause !== undefined && depth < MAX_CAUSE_DEPTH) {
    out['cause'] = err.cause instanceof Error ? serializeError(err.cause, withStack, depth + 1) : err.cause;
  }
  return out;
}
