import { describe, expect, it } from 'vitest';
import { TerminalError, errorMessage, isTerminal, routine, routineOf, sanitizeNetworkError, withContext } from './errors.ts';

/** The condition reason a terminal error carries, or undefined for retryable errors. */
const terminalReason = (err: unknown): string | undefined => (isTerminal(err) ? err.reason : undefined);

describe('TerminalError', () => {
  it('carries reason, message and cause', () => {
    const cause = new Error('root');
    const err = new TerminalError('InvalidConfiguration', 'bad config', { cause });
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('TerminalError');
    expect(err.reason).toBe('InvalidConfiguration');
    expect(err.message).toBe('bad config');
    expect(err.cause).toBe(cause);
  });

  it.each([
    { name: 'terminal', err: new TerminalError('Blocked', 'x'), terminal: true, reason: 'Blocked' },
    { name: 'plain error', err: new Error('x'), terminal: false, reason: undefined },
    { name: 'error caused by a terminal one is not terminal', err: new Error('x', { cause: new TerminalError('Blocked', 'y') }), terminal: false, reason: undefined },
    { name: 'string', err: 'boom', terminal: false, reason: undefined },
    { name: 'undefined', err: undefined, terminal: false, reason: undefined },
  ])('isTerminal: $name', ({ err, terminal, reason }) => {
    expect(isTerminal(err)).toBe(terminal);
    expect(terminalReason(err)).toBe(reason);
  });

  it('is recognised when made by another copy of the class (brand, not identity)', () => {
    const foreign = Object.defineProperty(new Error('x'), Symbol.for('olmv1.controller.TerminalError'), { value: true });
    expect(isTerminal(foreign)).toBe(true);
  });

  it('keeps ordinary instanceof for subclasses', () => {
    class Special extends TerminalError {}
    expect(new Special('R', 'm')).toBeInstanceOf(TerminalError);
    expect(new TerminalError('R', 'm')).not.toBeInstanceOf(Special);
  });
});

describe('withContext', () => {
  it.each([
    { name: 'retryable stays retryable', err: new Error('503'), terminal: false, reason: undefined },
    { name: 'terminal keeps terminal-ness and reason', err: new TerminalError('InvalidConfiguration', '503'), terminal: true, reason: 'InvalidConfiguration' },
    { name: 'non-error value', err: '503', terminal: false, reason: undefined },
  ])('$name', ({ err, terminal, reason }) => {
    const wrapped = withContext(err, 'pulling bundle');
    expect(wrapped.message).toBe('pulling bundle: 503');
    expect(wrapped.cause).toBe(err);
    expect(isTerminal(wrapped)).toBe(terminal);
    expect(terminalReason(wrapped)).toBe(reason);
  });

  it('nests', () => {
    const err = withContext(withContext(new TerminalError('Blocked', 'no'), 'inner'), 'outer');
    expect(err.message).toBe('outer: inner: no');
    expect(terminalReason(err)).toBe('Blocked');
  });
});

describe('errorMessage', () => {
  it.each([
    { value: new Error('m'), want: 'm' },
    { value: 'text', want: 'text' },
    { value: 42, want: '42' },
    { value: undefined, want: '' },
    { value: null, want: '' },
  ])('$value → "$want"', ({ value, want }) => {
    expect(errorMessage(value)).toBe(want);
  });
});

// Cases from upstream's sanitize_test.go (the regex version), written as the strings Go's
// net errors produce.
describe('sanitizeNetworkError', () => {
  it.each([
    { name: 'nothing', input: undefined, want: '' },
    { name: 'non-network error unchanged', input: 'some random error', want: 'some random error' },
    {
      name: 'read udp inside a DNS error',
      input: 'dial tcp: lookup docker-registry.operator-controller.svc on 10.96.0.10:53: read udp 10.244.0.8:46753->10.96.0.10:53: i/o timeout',
      want: 'dial tcp: lookup docker-registry.operator-controller.svc on 10.96.0.10:53: i/o timeout',
    },
    {
      name: 'wrapped, outer context kept',
      input: 'source catalog content: error creating image source: dial tcp: lookup r.svc on 10.96.0.10:53: read udp 10.244.0.8:46753->10.96.0.10:53: i/o timeout',
      want: 'source catalog content: error creating image source: dial tcp: lookup r.svc on 10.96.0.10:53: i/o timeout',
    },
    { name: 'read tcp', input: 'read tcp 10.0.0.1:52341->192.168.1.100:443: connection reset by peer', want: 'connection reset by peer' },
    { name: 'write tcp', input: 'write tcp 10.0.0.1:52341->192.168.1.100:443: broken pipe', want: 'broken pipe' },
    { name: 'IPv6', input: 'read udp [::1]:52341->[fd00::1]:53: i/o timeout', want: 'i/o timeout' },
    {
      name: 'dial with source and destination unchanged (not read/write)',
      input: 'dial tcp 10.0.0.1:52341->192.168.1.100:443: connect: connection refused',
      want: 'dial tcp 10.0.0.1:52341->192.168.1.100:443: connect: connection refused',
    },
    { name: 'DNS error without the pattern unchanged', input: 'lookup r.example.com on 10.96.0.10:53: no such host', want: 'lookup r.example.com on 10.96.0.10:53: no such host' },
    { name: 'every occurrence', input: 'a: read tcp 1.2.3.4:1->5.6.7.8:2: x; b: write udp 1.2.3.4:3->5.6.7.8:4: y', want: 'a: x; b: y' },
    { name: 'no trailing colon', input: 'read tcp 1.2.3.4:1->5.6.7.8:2', want: '' },
    { name: 'an Error is read by its message', input: new Error('read tcp 10.0.0.1:5->10.0.0.2:443: EOF'), want: 'EOF' },
  ])('$name', ({ input, want }) => {
    expect(sanitizeNetworkError(input)).toBe(want);
  });

  it('gives the same text whatever the ephemeral port', () => {
    const msg = (port: number) => `dial tcp: lookup r.svc on 10.96.0.10:53: read udp 10.244.0.8:${port}->10.96.0.10:53: i/o timeout`;
    const got = new Set([46753, 51234, 60000].map((p) => sanitizeNetworkError(msg(p))));
    expect([...got]).toEqual(['dial tcp: lookup r.svc on 10.96.0.10:53: i/o timeout']);
  });
});

describe('routine', () => {
  it('marks the error itself (same object, class, message) and is found through causes and withContext', () => {
    const err = new Error('requirements were not met');
    expect(routine(err, 'RequirementsNotMet')).toBe(err);
    expect(err.message).toBe('requirements were not met');
    expect(routineOf(err)).toEqual({ reason: 'RequirementsNotMet', level: 'debug' });
    expect(routineOf(withContext(err, 'outer'))).toEqual({ reason: 'RequirementsNotMet', level: 'debug' });
    expect(routineOf(new Error('x', { cause: new Error('y', { cause: err }) }))).toEqual({ reason: 'RequirementsNotMet', level: 'debug' });
  });

  it('keeps a terminal error terminal; plain errors and non-objects are not routine', () => {
    const t = routine(new TerminalError('Blocked', 'no'), 'Blocked', 'info');
    expect(isTerminal(t)).toBe(true);
    expect(routineOf(t)).toEqual({ reason: 'Blocked', level: 'info' });
    expect(routineOf(new Error('boom'))).toBeUndefined();
    expect(routine('text', 'X')).toBe('text');
    expect(routineOf('text')).toBeUndefined();
    expect(routineOf(undefined)).toBeUndefined();
  });
});
