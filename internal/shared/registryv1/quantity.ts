// resource.Quantity as Go writes it after a typed decode (k8s.io/apimachinery/pkg/api/resource):
// the canonical form of the value in its format — DecimalSI (`500m`, `1`, `12k`), BinarySI
// (`512Mi`, `1Gi`; falls back to DecimalSI below 1024 or when not an integer) or DecimalExponent
// (`1e3`). Precision below 1n is rounded up, as ParseQuantity does. Exact (BigInt) arithmetic.

const DECIMAL_SI: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SI: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const SI_SUFFIX: Readonly<Record<number, string>> = Object.fromEntries(Object.entries(DECIMAL_SI).map(([k, v]) => [v, k]));
const BIN_SUFFIX: Readonly<Record<number, string>> = Object.fromEntries(Object.entries(BINARY_SI).map(([k, v]) => [v / 10, k]));

const pow10 = (n: number): bigint => 10n ** BigInt(n);
const abs = (n: bigint): bigint => (n < 0n ? -n : n);

/** value = n × 10^scale, trailing zeros moved into the scale. */
function normalize(n: bigint, scale: number): [bigint, number] {
  if (n === 0n) return [0n, 0];
  while (n % 10n === 0n) {
    n /= 10n;
    scale++;
  }
  return [n, scale];
}

function formatDecimal(n: bigint, scale: number, exponentForm: boolean): string | undefined {
  [n, scale] = normalize(n, scale);
  if (n === 0n) return '0';
  const exp = Math.floor(scale / 3) * 3;
  const mantissa = n * pow10(scale - exp);
  if (exponentForm) return exp === 0 ? `${mantissa}` : `${mantissa}e${exp}`;
  const suffix = SI_SUFFIX[exp];
  return suffix === undefined ? undefined : `${mantissa}${suffix}`;
}

/** The canonical text of a quantity, or undefined when `input` is not one (left untouched by callers). */
export function canonicalQuantity(input: unknown): string | undefined {
  const text = typeof input === 'number' ? String(input) : input;
  if (typeof text !== 'string') return undefined;
  const m = /^([+-]?)(\d*)(?:\.(\d*))?([a-zA-Z]*|[eE][+-]?\d+)$/.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
  const [, sign, whole = '', frac = '', suffix = ''] = m;
  let n = BigInt(`${whole}${frac}` || '0') * (sign === '-' ? -1n : 1n);
  let scale = -frac.length;
  let format: 'dec' | 'bin' | 'exp';
  if (Object.hasOwn(DECIMAL_SI, suffix)) {
    format = 'dec';
    scale += DECIMAL_SI[suffix]!;
  } else if (Object.hasOwn(BINARY_SI, suffix)) {
    format = 'bin';
    n *= 2n ** BigInt(BINARY_SI[suffix]!);
  } else if (/^[eE]/.test(suffix)) {
    format = 'exp';
    scale += Number(suffix.slice(1));
  } else {
    return undefined;
  }
  // Round up (away from zero) to nano precision.
  if (scale < -9) {
    const div = pow10(-9 - scale);
    const q = abs(n) / div + (abs(n) % div === 0n ? 0n : 1n);
    n = n < 0n ? -q : q;
    scale = -9;
  }
  if (format === 'bin') {
    const denom = scale < 0 ? pow10(-scale) : 1n;
    const value = scale < 0 ? n : n * pow10(scale);
    if (value % denom === 0n) {
      const v = value / denom;
      if (abs(v) >= 1024n) {
        let k = 0;
        let mant = v;
        while (k < 6 && mant % 1024n === 0n) {
          mant /= 1024n;
          k++;
        }
        return k === 0 ? `${mant}` : `${mant}${BIN_SUFFIX[k]!}`;
      }
    }
    return formatDecimal(n, scale, false);
  }
  return formatDecimal(n, scale, format === 'exp');
}

/** Canonicalizes `requests`/`limits` of a ResourceRequirements object in place. */
export function canonicalizeResources(resources: unknown): void {
  if (typeof resources !== 'object' || resources === null) return;
  for (const key of ['limits', 'requests']) {
    const list = (resources as Record<string, unknown>)[key];
    if (typeof list !== 'object' || list === null) continue;
    const rec = list as Record<string, unknown>;
    for (const [name, q] of Object.entries(rec)) {
      const c = canonicalQuantity(q);
      if (c !== undefined) rec[name] = c;
    }
  }
}

const QUANTITY_FORMAT = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;

/** ParseQuantity's error for `input`, or undefined when it parses (numbers always do). */
export function quantityError(input: unknown): string | undefined {
  if (typeof input === 'number') return undefined;
  if (typeof input !== 'string' || !QUANTITY_FORMAT.test(input)) {
    return "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  }
  // What follows the number (digits, one optional fraction) is the suffix; one Go cannot read is ErrSuffix.
  return canonicalQuantity(input) === undefined ? "unable to parse quantity's suffix" : undefined;
}
