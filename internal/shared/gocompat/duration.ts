// Go's time.Duration as text: time.ParseDuration, Duration.String() (whole seconds and above), and
// apimachinery's duration.HumanDuration (kubectl's AGE column).

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

/** Go's Duration.String() for whole seconds and above (`15m0s`, `1h0m0s`). */
export function formatGoDuration(ms: number): string {
  const totalS = Math.floor(ms / 1000);
  const h = Math.floor(totalS / 3600);
  const m = Math.floor((totalS % 3600) / 60);
  const s = totalS % 60;
  if (h) return `${h}h${m}m${s}s`;
  if (m) return `${m}m${s}s`;
  return `${s}s`;
}

/** `<a><unitA><b><unitB>`, or `<a><unitA>` when b is 0 (`3m20s`, `3m`). */
const twoUnits = (a: number, unitA: string, b: number, unitB: string): string =>
  b === 0 ? `${a}${unitA}` : `${a}${unitA}${b}${unitB}`;

/**
 * k8s.io/apimachinery/pkg/util/duration.HumanDuration: kubectl's AGE (`45s`, `3m20s`, `2d5h`, `3y12d`).
 * Up to two seconds in the future reads as `0s` (clock skew); more is `<invalid>`.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 10) return twoUnits(minutes, 'm', seconds % 60, 's');
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 8) return twoUnits(hours, 'h', minutes % 60, 'm');
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) return twoUnits(days, 'd', hours % 24, 'h');
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) return twoUnits(years, 'y', days % 365, 'd');
  return `${years}y`;
}
