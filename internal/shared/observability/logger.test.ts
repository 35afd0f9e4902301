import { afterEach, describe, expect, it, vi } from 'vitest';
import { TerminalError } from '../controller/index.ts';
import { type LogLevel, type LoggerOptions, createLogger, noopLogger, parseLogLevel } from './logger.ts';

const NOW = new Date('2026-11-22T07:40:00.123Z');

function capture(options: LoggerOptions = {}) {
  const lines: string[] = [];
  const logger = createLogger({ env: {}, now: () => NOW, write: (l) => void lines.push(l), ...options });
  const records = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger, lines, records };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('levels', () => {
  it.each([
    { level: 'error', written: ['error'] },
    { level: 'warn', written: ['error', 'warn'] },
    { level: 'info', written: ['error', 'warn', 'info'] },
    { level: 'debug', written: ['error', 'warn', 'info', 'debug'] },
  ] as { level: LogLevel; written: string[] }[])('$level', ({ level, written }) => {
    const { logger, records } = capture({ level });
    logger.error('e');
    logger.warn('w');
    logger.info('i');
    logger.debug('d');
    expect(records().map((r) => r['level'])).toEqual(written);
  });

  it.each([
    { name: 'default is info', options: {}, want: 'info' },
    { name: 'LOG_LEVEL from the environment', options: { env: { LOG_LEVEL: 'DEBUG' } }, want: 'debug' },
    { name: 'LOG_LEVEL=warning', options: { env: { LOG_LEVEL: 'warning' } }, want: 'warn' },
    { name: 'option beats environment', options: { level: 'error', env: { LOG_LEVEL: 'debug' } }, want: 'error' },
  ] as { name: string; options: LoggerOptions; want: LogLevel }[])('$name', ({ options, want }) => {
    const { logger, records } = capture(options);
    for (const l of ['error', 'warn', 'info', 'debug'] as const) logger[l](l);
    expect(records().at(-1)?.['level']).toBe(want);
  });

  it('an unknown LOG_LEVEL falls back to info and says so', () => {
    const { logger, records } = capture({ env: { LOG_LEVEL: 'verbose' } });
    logger.debug('hidden');
    expect(records()).toEqual([
      { ts: NOW.toISOString(), level: 'warn', msg: 'unknown LOG_LEVEL, using info', LOG_LEVEL: 'verbose', valid: ['error', 'warn', 'info', 'debug'] },
    ]);
  });

  it('an unknown level option is a programming error', () => {
    expect(() => createLogger({ level: 'loud' as LogLevel })).toThrow(/unknown log level/);
  });

  it.each([
    { text: 'info', want: 'info' },
    { text: ' Warn ', want: 'warn' },
    { text: 'trace', want: undefined },
    { text: undefined, want: undefined },
  ])('parseLogLevel($text)', ({ text, want }) => {
    expect(parseLogLevel(text)).toBe(want);
  });
});

describe('lines', () => {
  it('one JSON object per line: ts, level, msg, then fields', () => {
    const { logger, lines } = capture();
    logger.info('Starting workers', { workerCount: 2, nested: { a: [1, 2] } });
    expect(lines).toEqual(['{"ts":"2026-11-22T07:40:00.123Z","level":"info","msg":"Starting workers","workerCount":2,"nested":{"a":[1,2]}}']);
  });

  it('child loggers add fields; later fields win; the parent is unchanged', () => {
    const { logger, records } = capture();
    const child = logger.child({ controller: 'ce', a: 1 }).child({ a: 2 });
    child.info('m', { b: 3 });
    child.info('m', { a: 4 });
    logger.info('parent');
    expect(records()).toEqual([
      { ts: NOW.toISOString(), level: 'info', msg: 'm', controller: 'ce', a: 2, b: 3 },
      { ts: NOW.toISOString(), level: 'info', msg: 'm', controller: 'ce', a: 4 },
      { ts: NOW.toISOString(), level: 'info', msg: 'parent' },
    ]);
  });

  it('keeps fields named like the reserved keys apart', () => {
    const { logger, records } = capture();
    logger.info('real', { msg: 'field', level: 'x', ts: 1 });
    expect(records()[0]).toEqual({ ts: NOW.toISOString(), level: 'info', msg: 'real', 'field.msg': 'field', 'field.level': 'x', 'field.ts': 1 });
  });

  it('writes bigint, Map and Set readably', () => {
    const { logger, records } = capture();
    logger.info('m', { big: 10n, map: new Map([['k', 'v']]), set: new Set([1, 2]) });
    expect(records()[0]).toMatchObject({ big: '10', map: { k: 'v' }, set: [1, 2] });
  });

  it('still writes a line when fields cannot be serialised', () => {
    const { logger, records } = capture();
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    logger.warn('m', { cyclic });
    const [r] = records();
    expect(r).toMatchObject({ level: 'warn', msg: 'm' });
    expect(r!['logError']).toMatch(/fields not serialisable/);
  });

  it('goes to stdout by default', () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    createLogger({ env: {}, now: () => NOW }).info('hello');
    expect(write).toHaveBeenCalledWith('{"ts":"2026-11-22T07:40:00.123Z","level":"info","msg":"hello"}\n');
  });

  it('noopLogger writes nothing and its children are no-ops too', () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    noopLogger.child({ a: 1 }).error('x');
    expect(write).not.toHaveBeenCalled();
  });
});

describe('errors', () => {
  it('are written with message, name, code, reason and cause; no stack above debug', () => {
    const { logger, records } = capture();
    const cause = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED' });
    const err = new TerminalError('Blocked', 'pulling bundle: refused', { cause });
    logger.error('Reconciler error', { err });
    expect(records()[0]!['err']).toEqual({
      message: 'pulling bundle: refused',
      name: 'TerminalError',
      reason: 'Blocked',
      cause: { message: 'connect ECONNREFUSED 10.0.0.1:443', code: 'ECONNREFUSED' },
    });
  });

  it('carry stacks when the logger is at debug', () => {
    const { logger, records } = capture({ level: 'debug' });
    logger.error('x', { err: new Error('m', { cause: new Error('c') }) });
    const err = records()[0]!['err'] as { stack: string; cause: { stack: string } };
    expect(err.stack).toMatch(/^Error: m\n\s+at /);
    expect(err.cause.stack).toMatch(/^Error: c\n/);
  });

  it('nested in other values and aggregated errors are serialised too', () => {
    const { logger, records } = capture();
    logger.error('x', { list: [new RangeError('r')], agg: new AggregateError([new Error('a'), 'b'], 'two') });
    expect(records()[0]).toMatchObject({
      list: [{ message: 'r', name: 'RangeError' }],
      agg: { message: 'two', name: 'AggregateError', errors: [{ message: 'a' }, 'b'] },
    });
  });
});

describe('text format', () => {
  it('one readable line: time, padded level, message, then key=value (quoted when needed, errors by message)', () => {
    const lines: string[] = [];
    const log = createLogger({ format: 'text', env: {}, now: () => NOW, write: (l) => void lines.push(l), fields: { logger: 'operator-controller' } });
    log.child({ controller: 'clusterextension' }).info('Reconcile not done yet; retrying', { key: 'demo-operator', requeues: 2, reason: 'NoMatchingBundle', err: new Error('no bundles found for "x"') });
    log.error('e', { empty: '', list: ['a', 'b'], obj: { a: 1 }, nothing: undefined, yes: true, multi: 'a\nb' });
    expect(lines).toEqual([
      '2026-11-22T07:40:00.123Z INFO  Reconcile not done yet; retrying logger=operator-controller controller=clusterextension key=demo-operator requeues=2 reason=NoMatchingBundle err="no bundles found for \\"x\\""',
      '2026-11-22T07:40:00.123Z ERROR e logger=operator-controller empty="" list=["a","b"] obj={"a":1} yes=true multi="a\\nb"',
    ]);
  });

  it('an error’s reason when the line has none; its stack only at debug', () => {
    const lines: string[] = [];
    createLogger({ format: 'text', level: 'info', env: {}, now: () => NOW, write: (l) => void lines.push(l) }).warn('w', { err: new TerminalError('Blocked', 'no') });
    expect(lines).toEqual(['2026-11-22T07:40:00.123Z WARN  w err=no err.reason=Blocked']);
    lines.length = 0;
    createLogger({ format: 'text', level: 'debug', env: {}, now: () => NOW, write: (l) => void lines.push(l) }).debug('d', { err: new Error('x') });
    expect(lines[0]).toMatch(/^2026-11-22T07:40:00.123Z DEBUG d err=x err.stack="Error: x\\n +at /);
    expect(lines).toHaveLength(1);
  });

  it('json stays the default; an unknown format is refused', () => {
    const { logger, records } = capture();
    logger.info('i');
    expect(records()).toEqual([{ ts: NOW.toISOString(), level: 'info', msg: 'i' }]);
    expect(() => createLogger({ format: 'yaml' as never, env: {} })).toThrow('unknown log format "yaml"');
  });
});
