// spec.updateStrategy.registryPoll.interval: a Go duration, read as upstream's UpdateStrategy
// UnmarshalJSON does — an unparsable value falls back to 15m with upstream's message.
import { DefaultRegistryPollDurationMs } from '../../../api/operators/index.ts';

const UNITS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** time.ParseDuration in milliseconds, or Go's error text. */
export function parseGoDuration(text: string): { ms: number } | { error: string } {
  const quoted = JSON.stringify(text);
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return { ms: 0 };
  if (s === '') return { error: `time: invalid duration ${quoted}` };
  let total = 0;
  while (s !== '') {
    const num = /^(\d*)(\.\d*)?/.exec(s)!;
    if (num[0] === '' || num[0] === '.') return { error: `time: invalid duration ${quoted}` };
    s = s.slice(num[0].length);
    const unit = /^[^\d.]*/.exec(s)![0];
    if (unit === '') return { error: `time: missing unit in duration ${quoted}` };
    const factor = UNITS[unit];
    if (factor === undefined) return { error: `time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}` };
    total += Number(num[0]) * factor;
    s = s.slice(unit.length);
  }
  return { ms: sign * total };
}

/** Go's Duration.String() for whole seconds and above, as upstream prints its default (`15m0s`). */
export function formatGoDuration(ms: number): string {
  const totalS = Math.floor(ms / 1000);
  const h = Math.floor(totalS / 3600);
  const m = Math.floor((totalS % 3600) / 60);
  const s = totalS % 60;
  if (h) return `${h}h${m}m${s}s`;
  if (m) return `${m}m${s}s`;
  return `${s}s`;
}

/** The poll interval and, when the text did not parse, upstream's message for `status.message`. */
export function pollInterval(raw: string | undefined): { ms: number; error?: string } {
  const r = parseGoDuration(raw ?? '');
  if ('ms' in r) return { ms: r.ms };
  return {
    ms: DefaultRegistryPollDurationMs,
    error: `error parsing spec.updateStrategy.registryPoll.interval. Using the default value of ${formatGoDuration(DefaultRegistryPollDurationMs)} instead. Error: ${r.error}`,
  };
}
