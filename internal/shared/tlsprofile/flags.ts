// Upstream's four TLS flags (internal/shared/util/tlsprofiles/flags.go) read into a TLSProfile: `--tls-profile`
// (modern, intermediate — the default —, old, custom; case-insensitive), and for `custom` `--tls-custom-version`
// (default TLSv1.2), `--tls-custom-ciphers` (Go's suite names; without it Go's default suites) and
// `--tls-custom-curves` (without it Go's default curves). The custom flags are read (and refused when wrong) whatever
// the profile, as pflag parses them, and only `custom` uses them. Errors carry pflag's wording.
import { goQuote } from '../gocompat/index.ts';
import {
  CURVES,
  GO_CIPHER_SUITES,
  GO_DEFAULT_CURVES,
  GO_DEFAULT_TLS12_CIPHERS,
  INTERMEDIATE,
  MODERN,
  OLD,
  TLS_VERSIONS,
  tls12Suites,
  type TLSProfile,
} from './profile.ts';

export interface TLSFlagValues {
  readonly 'tls-profile'?: string;
  readonly 'tls-custom-version'?: string;
  readonly 'tls-custom-ciphers'?: string;
  readonly 'tls-custom-curves'?: string;
}

/** A flag's value refused; `message` is pflag's `invalid argument "<value>" for "--<flag>" flag: <why>`. */
export class TLSFlagError extends Error {
  override readonly name = 'TLSFlagError';
  readonly flag: string;
  readonly value: string;
  constructor(flag: string, value: string, why: string) {
    super(`invalid argument ${goQuote(value)} for ${goQuote(`--${flag}`)} flag: ${why}`);
    this.flag = flag;
    this.value = value;
  }
}

const PROFILE_NAMES = ['custom', 'intermediate', 'modern', 'old'] as const;
const goSorted = (names: readonly string[]): string => `[${[...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join(' ')}]`;

/** The flags' help, upstream's words (the lists sorted as Go sorts them). */
export const TLS_FLAG_HELP = {
  'tls-profile': `The TLS profile to use. One of ${goSorted(PROFILE_NAMES)}`,
  'tls-custom-ciphers': 'List of ciphers to be used with the custom TLS profile. Use Go-language cipher names',
  'tls-custom-curves': `List of curves to be used with the custom TLS profile. Values may consist of ${goSorted(Object.keys(CURVES))}`,
  'tls-custom-version': `The TLS version to be used with the custom TLS profile. One of ${goSorted(Object.keys(TLS_VERSIONS))}`,
} as const;

/**
 * One CSV record as Go's encoding/csv reads a flag's value (pflag's string slices): commas split, a field may be
 * quoted (`""` is a quote), spaces are kept. Throws Go's parse errors.
 */
export function readCSV(text: string): string[] {
  if (text === '') return [];
  const line = text.replace(/\r?\n$/, '');
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let field = '';
      let j = i + 1;
      for (;;) {
        const q = line.indexOf('"', j);
        if (q < 0) throw new Error(`parse error on line 1, column ${line.length + 1}: extraneous or missing " in quoted-field`);
        field += line.slice(j, q);
        if (line[q + 1] === '"') {
          field += '"';
          j = q + 2;
        } else if (q + 1 === line.length || line[q + 1] === ',') {
          i = q + 1;
          break;
        } else throw new Error(`parse error on line 1, column ${q + 2}: extraneous or missing " in quoted-field`);
      }
      fields.push(field);
    } else {
      const end = line.indexOf(',', i);
      const field = end < 0 ? line.slice(i) : line.slice(i, end);
      const quote = field.indexOf('"');
      if (quote >= 0) throw new Error(`parse error on line 1, column ${i + quote + 1}: bare " in non-quoted field`);
      fields.push(field);
      i = end < 0 ? line.length : end;
    }
    if (i >= line.length) return fields;
    i++; // the comma
    if (i === line.length) return [...fields, ''];
  }
}

/**
 * The TLS profile the flags select. Undefined values are flags not given. Throws a TLSFlagError for the first flag
 * refused, checked in the order profile, version, ciphers, curves.
 */
export function tlsProfileFromFlags(values: TLSFlagValues): TLSProfile {
  const profileName = values['tls-profile'] ?? 'intermediate';
  const key = profileName.toLowerCase();
  if (!(PROFILE_NAMES as readonly string[]).includes(key)) throw new TLSFlagError('tls-profile', profileName, `unknown TLS profile: ${goQuote(profileName)}`);

  const versionText = values['tls-custom-version'];
  if (versionText !== undefined && !(versionText in TLS_VERSIONS)) {
    throw new TLSFlagError('tls-custom-version', versionText, `unknown TLS version: ${goQuote(versionText)}`);
  }
  const list = (flag: 'tls-custom-ciphers' | 'tls-custom-curves', known: Readonly<Record<string, unknown>>, what: string): string[] | undefined => {
    const text = values[flag];
    if (text === undefined) return undefined;
    let names: string[];
    try {
      names = readCSV(text);
    } catch (err) {
      throw new TLSFlagError(flag, text, (err as Error).message);
    }
    const unknown = names.find((n) => !Object.hasOwn(known, n));
    if (unknown !== undefined) throw new TLSFlagError(flag, text, `unknown ${what} ${goQuote(unknown)}`);
    return names;
  };
  const ciphers = list('tls-custom-ciphers', GO_CIPHER_SUITES, 'cipher');
  const curves = list('tls-custom-curves', CURVES, 'curve');

  switch (key) {
    case 'modern':
      return MODERN;
    case 'old':
      return OLD;
    case 'custom':
      return {
        name: 'custom',
        minVersion: TLS_VERSIONS[versionText ?? 'TLSv1.2']!,
        tls12Ciphers: ciphers === undefined ? GO_DEFAULT_TLS12_CIPHERS : tls12Suites(ciphers),
        curves: curves === undefined ? GO_DEFAULT_CURVES : curves.map((c) => CURVES[c]!),
      };
    default:
      return INTERMEDIATE;
  }
}
