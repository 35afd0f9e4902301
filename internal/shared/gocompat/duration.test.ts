import { describe, expect, it } from 'vitest';
import { formatGoDuration, humanDuration, parseGoDuration } from './index.ts';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('parseGoDuration (time.ParseDuration)', () => {
  it.each([
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['1.5s', 1500],
    ['-2s', -2000],
    ['0', 0],
    ['250ms', 250],
  ])('%s', (text, ms) => expect(parseGoDuration(text)).toEqual({ ms }));

  it("returns Go's messages", () => {
    expect(parseGoDuration('10')).toEqual({ error: 'time: missing unit in duration "10"' });
    expect(parseGoDuration('soon')).toEqual({ error: 'time: invalid duration "soon"' });
    expect(parseGoDuration('')).toEqual({ error: 'time: invalid duration ""' });
    expect(parseGoDuration('5d')).toEqual({ error: 'time: unknown unit "d" in duration "5d"' });
  });
});

describe('formatGoDuration (Duration.String)', () => {
  it('prints whole seconds and above as Go does', () => {
    expect(formatGoDuration(15 * M)).toBe('15m0s');
    expect(formatGoDuration(H)).toBe('1h0m0s');
    expect(formatGoDuration(42 * S)).toBe('42s');
  });
});

// apimachinery pkg/util/duration TestHumanDuration and TestHumanDurationBoundaries (nanoseconds as 1 ms).
describe('humanDuration (duration.HumanDuration)', () => {
  const Y = 365 * D;
  it.each([
    [S, '1s'],
    [70 * S, '70s'],
    [190 * S, '3m10s'],
    [70 * M, '70m'],
    [47 * H, '47h'],
    [49 * H, '2d1h'],
    [(8 * 24 + 2) * H, '8d'],
    [367 * 24 * H, '367d'],
    [(365 * 2 * 24 + 25) * H, '2y1d'],
    [(365 * 8 * 24 + 2) * H, '8y'],
    [-2 * S, '<invalid>'],
    [-2 * S + 1, '0s'],
    [0, '0s'],
    [S - 1, '0s'],
    [2 * M - 1, '119s'],
    [2 * M, '2m'],
    [2 * M + S, '2m1s'],
    [10 * M - 1, '9m59s'],
    [10 * M, '10m'],
    [10 * M + S, '10m'],
    [3 * H - 1, '179m'],
    [3 * H, '3h'],
    [3 * H + M, '3h1m'],
    [8 * H - 1, '7h59m'],
    [8 * H, '8h'],
    [8 * H + 59 * M, '8h'],
    [2 * D - 1, '47h'],
    [2 * D, '2d'],
    [2 * D + H, '2d1h'],
    [8 * D - 1, '7d23h'],
    [8 * D, '8d'],
    [8 * D + 23 * H, '8d'],
    [2 * Y - 1, '729d'],
    [2 * Y, '2y'],
    [2 * Y + 23 * H, '2y'],
    [2 * Y + D - 1, '2y'],
    [2 * Y + D, '2y1d'],
    [3 * Y, '3y'],
    [8 * Y, '8y'],
  ])('%d ms → %s', (ms, want) => expect(humanDuration(ms)).toBe(want));
});
