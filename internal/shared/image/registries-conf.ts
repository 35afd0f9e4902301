// containers-registries.conf(5), as containers/image's sysregistriesv2 reads it, for what pulls need:
// `[[registry]]` tables (prefix, location, insecure, blocked, mirror-by-digest-only) and their
// `[[registry.mirror]]` lists (location, insecure, pull-from-mirror). The v1 format
// (`[registries.search|insecure|block]`) is converted as upstream converts it. Unqualified-search
// registries, short-name aliases, credential helpers and the other global keys are not used here (our
// references are always fully qualified) and are ignored, as are unknown keys.
//
// Files: the main file, then every `*.conf` in `registries.conf.d/` beside it in lexical order; a drop-in
// replaces the main file's (or an earlier drop-in's) `[[registry]]` of the same prefix. Within one file the
// first `[[registry]]` of a prefix wins. Every problem is one `RegistriesConfError` naming the file and,
// where it can be found, the line.
//
// The TOML parser (smol-toml) is loaded on first use, so a process without a registries.conf never loads it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Toml from 'smol-toml';
import { ImageError } from './errors.ts';
import { formatReference, parseReference, type ImageReference } from './reference.ts';

/** Where containers/image looks when nothing else is named. */
export const SYSTEM_REGISTRIES_CONF = '/etc/containers/registries.conf';

export type PullFromMirror = 'all' | 'digest-only' | 'tag-only';
const PULL_FROM_MIRROR: readonly string[] = ['all', 'digest-only', 'tag-only'];

/** A remote location of a registry: the primary one of a `[[registry]]`, or one of its mirrors. */
export interface RegistryEndpoint {
  /** `host[:port][/path]`; empty only for a `*.domain` prefix (the reference is then used as it is). */
  readonly location: string;
  /** Skip TLS verification, and fall back to plain HTTP when HTTPS does not answer. */
  readonly insecure: boolean;
  /** Mirrors only: which pulls use this mirror (default all). */
  readonly pullFromMirror?: PullFromMirror;
}

/** One `[[registry]]` after validation. */
export interface RegistryConfig extends RegistryEndpoint {
  /** `host[:port][/path]` or `*.domain`; defaults to the location. */
  readonly prefix: string;
  readonly blocked: boolean;
  readonly mirrorByDigestOnly: boolean;
  readonly mirrors: readonly RegistryEndpoint[];
  /** `<file>:<line>` (or just the file) where it was defined. */
  readonly definedAt: string;
}

/** Where one pull attempt goes: the reference rewritten for an endpoint, and that endpoint's TLS setting. */
export interface PullSource {
  readonly ref: ImageReference;
  readonly insecure: boolean;
  /** True for a mirror, false for the registry's primary location. */
  readonly mirror: boolean;
}

/** A registries.conf (or drop-in) that cannot be used: the message names the file and, where known, the line. */
export class RegistriesConfError extends Error {
  override readonly name = 'RegistriesConfError';
  readonly file: string;
  readonly line: number | undefined;
  constructor(file: string, line: number | undefined, why: string, dropIn = false) {
    super(`loading ${dropIn ? 'drop-in ' : ''}registries configuration ${JSON.stringify(file)}: ${line !== undefined ? `line ${line}: ` : ''}${why}`);
    this.file = file;
    this.line = line;
  }
}

let toml: typeof Toml | undefined;
const tomlParser = (): typeof Toml => (toml ??= createRequire(import.meta.url)('smol-toml') as typeof Toml);

type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

function typeName(v: unknown): string {
  if (Array.isArray(v)) return 'an array';
  if (v instanceof Date) return 'a date';
  if (isTable(v)) return 'a table';
  if (typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))) return 'an integer';
  if (typeof v === 'number') return 'a float';
  return `a ${typeof v}`;
}

/**
 * Lines of the `[[registry]]` and `[[registry.mirror]]` headers and of keys inside them, found by scanning
 * the text (the parser gives values without positions). When the tables are written another way (inline
 * tables, dotted keys) the counts do not match and no line is given.
 */
class LineIndex {
  private readonly lines: readonly string[];
  private readonly registries: number[] = [];
  private readonly mirrors: number[][] = [];
  private readonly headers: number[] = [];

  constructor(text: string) {
    this.lines = text.split(/\r?\n/);
    const reg = /^\s*\[\[\s*("?)registry\1\s*\]\]\s*(#.*)?$/;
    const mir = /^\s*\[\[\s*("?)registry\1\s*\.\s*("?)mirror\2\s*\]\]\s*(#.*)?$/;
    this.lines.forEach((line, i) => {
      if (/^\s*\[/.test(line)) this.headers.push(i);
      if (reg.test(line)) {
        this.registries.push(i);
        this.mirrors.push([]);
      } else if (mir.test(line)) {
        this.mirrors[this.mirrors.length - 1]?.push(i);
      }
    });
  }

  /** Checks the counts against what was parsed; a mismatch turns the index off. */
  matches(mirrorCounts: readonly number[]): boolean {
    return this.registries.length === mirrorCounts.length && mirrorCounts.every((n, i) => this.mirrors[i]?.length === n);
  }

  registry(i: number): number | undefined {
    const l = this.registries[i];
    return l === undefined ? undefined : l + 1;
  }

  mirror(i: number, j: number): number | undefined {
    const l = this.mirrors[i]?.[j];
    return l === undefined ? undefined : l + 1;
  }

  /** The first line matching `re` (1-based). */
  first(re: RegExp): number | undefined {
    const i = this.lines.findIndex((l) => re.test(l));
    return i === -1 ? undefined : i + 1;
  }

  /** The line of `key = …` in the table whose header is on (1-based) `header`, or at the top level when undefined. */
  key(header: number | undefined, key: string): number | undefined {
    // A 1-based header line is the 0-based index of the table's first key line; the table ends at the next header.
    const start = header ?? 0;
    const stop = this.headers.find((h) => h >= start) ?? this.lines.length;
    const re = new RegExp(`^\\s*(?:${escape(key)}|"${escape(key)}"|'${escape(key)}')\\s*=`);
    for (let i = start; i < stop; i++) if (re.test(this.lines[i] ?? '')) return i + 1;
    return header;
  }
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** containers/image's parseLocation: no trailing slashes, no URI scheme. */
function parseLocation(input: string): string {
  const trimmed = input.replace(/\/+$/, '');
  if (trimmed.startsWith('http://') || trimmed.startsWith('https://')) {
    throw new Error(`invalid location '${input}': URI schemes are not supported`);
  }
  return trimmed;
}

/** A location must be `host[:port][/path]` in canonical form, or the references rewritten to it would not parse. */
function checkLocation(location: string, what: string): void {
  const probe = `${location}/x:latest`;
  let ok: boolean;
  try {
    ok = formatReference(parseReference(probe)) === probe;
  } catch {
    ok = false;
  }
  if (!ok) throw new Error(`invalid ${what} '${location}': must be host[:port][/path], with the host written out (e.g. registry.example.com/ns)`);
}

interface ParseOptions {
  /** A drop-in: the v1 format is refused, and messages say "drop-in". */
  readonly dropIn?: boolean;
}

/**
 * One registries.conf file's `[[registry]]` tables, validated as containers/image validates them
 * (postProcessRegistries), deduplicated by prefix (the first wins) and sorted by prefix.
 */
export function parseRegistriesConf(text: string, file: string, options: ParseOptions = {}): RegistryConfig[] {
  const dropIn = options.dropIn ?? false;
  const fail = (line: number | undefined, why: string): never => {
    throw new RegistriesConfError(file, line, why, dropIn);
  };
  let doc: Table;
  try {
    doc = tomlParser().parse(text) as Table;
  } catch (err) {
    const e = err as Error & { line?: number; column?: number };
    const why = (e.message.split('\n')[0] ?? '').replace(/^Invalid TOML document:\s*/, '');
    return fail(typeof e.line === 'number' ? e.line : undefined, `${why}${typeof e.column === 'number' ? ` (column ${e.column})` : ''}`);
  }
  const lines = new LineIndex(text);

  const v1 = doc.registries;
  const v2Keys = ['registry', 'unqualified-search-registries', 'credential-helpers', 'short-name-mode', 'additional-layer-store-auth-helper', 'aliases'];
  if (v1 !== undefined) {
    const v1Line = lines.first(/^\s*\[\s*"?registries\b/) ?? lines.key(undefined, 'registries');
    if (dropIn) return fail(v1Line, 'registry must be in v2 format but is in v1');
    if (v2Keys.some((k) => doc[k] !== undefined)) return fail(v1Line, 'mixing sysregistry v1/v2 is not supported');
    return fromV1(v1, (why) => fail(undefined, why)).map((r) => ({ ...r, definedAt: file }));
  }

  const raw = doc.registry;
  if (raw === undefined) return [];
  if (!Array.isArray(raw) || !raw.every(isTable)) return fail(lines.key(undefined, 'registry'), `"registry" must be an array of tables ([[registry]]), not ${typeName(raw)}`);
  const tables = raw as Table[];
  const located = lines.matches(tables.map((t) => (Array.isArray(t.mirror) ? t.mirror.length : 0)));
  const regLine = (i: number): number | undefined => (located ? lines.registry(i) : undefined);
  const mirLine = (i: number, j: number): number | undefined => (located ? lines.mirror(i, j) : undefined);
  const keyLine = (header: number | undefined, key: string): number | undefined => (header === undefined ? undefined : lines.key(header, key));

  const str = (t: Table, key: string, header: number | undefined, where: string): string => {
    const v = t[key];
    if (v === undefined) return '';
    if (typeof v !== 'string') return fail(keyLine(header, key), `"${key}" of ${where} must be a string, not ${typeName(v)}`);
    return v;
  };
  const bool = (t: Table, key: string, header: number | undefined, where: string): boolean => {
    const v = t[key];
    if (v === undefined) return false;
    if (typeof v !== 'boolean') return fail(keyLine(header, key), `"${key}" of ${where} must be a boolean, not ${typeName(v)}`);
    return v;
  };
  const guard = <T>(line: number | undefined, fn: () => T): T => {
    try {
      return fn();
    } catch (err) {
      if (err instanceof RegistriesConfError) throw err;
      return fail(line, (err as Error).message);
    }
  };

  const out: RegistryConfig[] = [];
  tables.forEach((t, i) => {
    const header = regLine(i);
    const where = '[[registry]]';
    const rawLocation = str(t, 'location', header, where);
    const location = guard(keyLine(header, 'location'), () => parseLocation(rawLocation));
    let prefix = str(t, 'prefix', header, where);
    const insecure = bool(t, 'insecure', header, where);
    const blocked = bool(t, 'blocked', header, where);
    const mirrorByDigestOnly = bool(t, 'mirror-by-digest-only', header, where);
    const pullFromMirror = str(t, 'pull-from-mirror', header, where);
    if (prefix === '') {
      if (location === '') fail(header, 'invalid condition: both location and prefix are unset');
      prefix = location;
    } else {
      prefix = guard(keyLine(header, 'prefix'), () => parseLocation(prefix));
      if (!prefix.startsWith('*.') && location === '') {
        fail(header, 'invalid condition: location is unset and prefix is not in the format: *.example.com');
      }
    }
    if (pullFromMirror !== '') fail(keyLine(header, 'pull-from-mirror'), `pull-from-mirror must not be set for a non-mirror registry ${JSON.stringify(prefix)}`);
    if (prefix.startsWith('*.') && /[/@:]/.test(prefix)) {
      fail(keyLine(header, 'prefix'), `Wildcarded prefix should be in the format: *.example.com. Current prefix ${JSON.stringify(prefix)} is incorrectly formatted`);
    }
    if (location !== '') guard(keyLine(header, 'location'), () => checkLocation(location, 'location'));

    const rawMirrors = t.mirror;
    if (rawMirrors !== undefined && (!Array.isArray(rawMirrors) || !rawMirrors.every(isTable))) {
      fail(keyLine(header, 'mirror'), `"mirror" of ${where} must be an array of tables ([[registry.mirror]]), not ${typeName(rawMirrors)}`);
    }
    const mirrors = ((rawMirrors ?? []) as Table[]).map((m, j): RegistryEndpoint => {
      const mh = mirLine(i, j);
      const mwhere = '[[registry.mirror]]';
      const raw = str(m, 'location', mh, mwhere);
      const loc = guard(keyLine(mh, 'location'), () => parseLocation(raw));
      const mInsecure = bool(m, 'insecure', mh, mwhere);
      const pfm = str(m, 'pull-from-mirror', mh, mwhere);
      if (loc === '') fail(mh, 'invalid condition: mirror location is unset');
      if (mirrorByDigestOnly && pfm !== '') {
        fail(
          keyLine(mh, 'pull-from-mirror'),
          `cannot set mirror usage mirror-by-digest-only for the registry (${JSON.stringify(prefix)}) and pull-from-mirror for per-mirror (${JSON.stringify(loc)}) at the same time`,
        );
      }
      if (pfm !== '' && !PULL_FROM_MIRROR.includes(pfm)) {
        fail(keyLine(mh, 'pull-from-mirror'), `unsupported pull-from-mirror value ${JSON.stringify(pfm)} for mirror ${JSON.stringify(loc)} (all, digest-only or tag-only)`);
      }
      guard(keyLine(mh, 'location'), () => checkLocation(loc, 'mirror location'));
      return { location: loc, insecure: mInsecure, ...(pfm !== '' && { pullFromMirror: pfm as PullFromMirror }) };
    });
    out.push({ prefix, location, insecure, blocked, mirrorByDigestOnly, mirrors, definedAt: header !== undefined ? `${file}:${header}` : file });
  });

  // A registry mentioned several times (several prefixes on one location) must agree on insecure and blocked.
  const locationOf = (r: RegistryConfig): string => (r.location === '' ? r.prefix : r.location);
  out.forEach((r, i) => {
    for (const other of out.filter((o) => locationOf(o) === locationOf(r))) {
      for (const setting of ['insecure', 'blocked'] as const) {
        if (r[setting] !== other[setting]) {
          fail(regLine(Math.max(i, out.indexOf(other))), `registry '${r.location}' is defined multiple times with conflicting '${setting}' setting`);
        }
      }
    }
  });
  return byPrefix(out, true);
}

/**
 * One registry per prefix, sorted by prefix (containers/image keeps them so): the first of a prefix within one file,
 * the last across files (updateWithConfigurationFrom: a drop-in replaces the registries of the same prefix).
 */
function byPrefix(registries: readonly RegistryConfig[], firstWins: boolean): RegistryConfig[] {
  const unique = new Map<string, RegistryConfig>();
  for (const r of registries) if (!firstWins || !unique.has(r.prefix)) unique.set(r.prefix, r);
  return [...unique.values()].sort((a, b) => byteOrder(a.prefix, b.prefix));
}

const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** The v1 format: `[registries.block]` and `[registries.insecure]` lists of locations, each becoming a registry. */
function fromV1(v1: unknown, fail: (why: string) => never): RegistryConfig[] {
  if (!isTable(v1)) return fail(`"registries" must be a table, not ${typeName(v1)}`);
  const list = (name: string): string[] => {
    const t = v1[name];
    if (t === undefined) return [];
    if (!isTable(t)) return fail(`"registries.${name}" must be a table, not ${typeName(t)}`);
    const r = t.registries;
    if (r === undefined) return [];
    if (!Array.isArray(r) || !r.every((x) => typeof x === 'string')) return fail(`"registries.${name}.registries" must be an array of strings`);
    return r as string[];
  };
  const order: string[] = [];
  const regs = new Map<string, { blocked: boolean; insecure: boolean }>();
  const get = (raw: string): { blocked: boolean; insecure: boolean } => {
    let location: string;
    try {
      location = parseLocation(raw);
    } catch (err) {
      return fail((err as Error).message);
    }
    let r = regs.get(location);
    if (!r) {
      r = { blocked: false, insecure: false };
      regs.set(location, r);
      order.push(location);
    }
    return r;
  };
  for (const b of list('block')) get(b).blocked = true;
  for (const i of list('insecure')) get(i).insecure = true;
  list('search');
  return byPrefix(order.map((location) => ({ prefix: location, location, mirrors: [], mirrorByDigestOnly: false, definedAt: '', ...regs.get(location)! })), true);
}

/**
 * containers/image's refMatchingPrefix: the length of `prefix` when it matches `ref` (a registry, a
 * repository name or a full reference, starting with the host), else -1. `*.example.com` matches
 * subdomains of the host only.
 */
export function refMatchingPrefix(ref: string, prefix: string): number {
  if (prefix.startsWith('*.')) {
    const index = ref.indexOf(prefix.slice(1));
    if (index === -1 || ref.slice(0, index).includes('/')) return -1;
    const end = index + prefix.length - 1;
    if (end === ref.length) return end;
    return ':/@'.includes(ref[end] ?? '') ? end : -1;
  }
  if (ref.length < prefix.length) return -1;
  if (ref.length === prefix.length) return ref === prefix ? prefix.length : -1;
  if (!ref.startsWith(prefix)) return -1;
  // Like upstream, this lets "example.com" match "example.com:5000/…".
  return ':/@'.includes(ref[prefix.length] ?? '') ? prefix.length : -1;
}

/** The registries.conf files in force, merged; `none` when there are none. */
export class RegistriesConf {
  static readonly none = new RegistriesConf([], { file: SYSTEM_REGISTRIES_CONF, dir: `${SYSTEM_REGISTRIES_CONF}.d`, files: [] });

  /** Sorted by prefix, one per prefix. */
  readonly registries: readonly RegistryConfig[];
  /** The main file (read or not) and the drop-in directory beside it. */
  readonly file: string;
  readonly dir: string;
  /** The files actually read, in order. */
  readonly files: readonly string[];

  constructor(registries: readonly RegistryConfig[], where: { file: string; dir: string; files: readonly string[] }) {
    this.registries = registries;
    this.file = where.file;
    this.dir = where.dir;
    this.files = where.files;
  }

  get empty(): boolean {
    return this.registries.length === 0;
  }

  /** The registry with the longest prefix matching `name` (a repository name such as `quay.io/ns/img`). */
  findRegistry(name: string): RegistryConfig | undefined {
    let best: RegistryConfig | undefined;
    for (const r of this.registries) {
      if (refMatchingPrefix(name, r.prefix) !== -1 && r.prefix.length > (best?.prefix.length ?? 0)) best = r;
    }
    return best;
  }

  /** containers/image's message for a pull or push that reaches a blocked registry. */
  blockedMessage(registry: RegistryConfig): string {
    return `registry ${registry.prefix} is blocked in ${this.file} or ${this.dir}`;
  }

  /**
   * Where a pull of `ref` goes, in the order to try: the mirrors that apply to it (by digest or by tag),
   * then the primary location. Undefined when no registry matches (the reference is pulled as it is).
   */
  pullSources(ref: ImageReference): PullSource[] | undefined {
    const reg = this.findRegistry(ref.name);
    if (!reg) return undefined;
    const digested = ref.digest !== undefined;
    const mirrors = reg.mirrors.filter((m) => {
      if (reg.mirrorByDigestOnly) return digested;
      if (m.pullFromMirror === 'digest-only') return digested;
      if (m.pullFromMirror === 'tag-only') return !digested;
      return true;
    });
    return [
      ...mirrors.map((m) => ({ ref: rewrite(ref, reg.prefix, m.location), insecure: m.insecure, mirror: true })),
      { ref: rewrite(ref, reg.prefix, reg.location), insecure: reg.insecure, mirror: false },
    ];
  }
}

/** containers/image's rewriteReference: `location` + what follows the prefix in the reference. */
function rewrite(ref: ImageReference, prefix: string, location: string): ImageReference {
  const text = formatReference(ref);
  const n = refMatchingPrefix(text, prefix);
  if (n === -1) throw new ImageError('InvalidReference', `invalid prefix '${prefix}' for reference '${text}'`);
  if (location === '') return ref;
  const rewritten = location + text.slice(n);
  let parsed: ImageReference;
  try {
    parsed = parseReference(rewritten);
  } catch (err) {
    throw new ImageError('InvalidReference', `rewriting reference: ${(err as Error).message}`);
  }
  if (formatReference(parsed) !== rewritten) {
    throw new ImageError('InvalidReference', `rewriting reference: error parsing image reference ${JSON.stringify(rewritten)}: repository name must be canonical`);
  }
  return parsed;
}

export interface LoadRegistriesConfOptions {
  /** A missing main file is an error (a path that was named) rather than no configuration (the default path). */
  readonly required?: boolean;
}

/**
 * Reads `file` and the `*.conf` drop-ins of `registries.conf.d/` beside it (synchronously: this runs while a
 * binary reads its flags). A missing main file is no configuration unless `required`; a missing drop-in
 * directory is nothing. Throws RegistriesConfError.
 */
export function loadRegistriesConf(file: string, options: LoadRegistriesConfOptions = {}): RegistriesConf {
  const dir = join(dirname(file), 'registries.conf.d');
  const files: string[] = [];
  let registries: RegistryConfig[] = [];
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' || options.required) throw new RegistriesConfError(file, undefined, describeFsError(err));
  }
  if (text !== undefined) {
    registries = parseRegistriesConf(text, file);
    files.push(file);
  }
  let names: string[] = [];
  try {
    names = readdirSync(dir, { withFileTypes: true })
      .filter((d) => !d.isDirectory() && d.name.endsWith('.conf'))
      .map((d) => d.name)
      .sort(byteOrder);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new RegistriesConfError(dir, undefined, `reading registries.conf.d: ${describeFsError(err)}`);
  }
  for (const name of names) {
    const path = join(dir, name);
    let dropIn: string;
    try {
      if (statSync(path).isDirectory()) continue;
      dropIn = readFileSync(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw new RegistriesConfError(path, undefined, describeFsError(err), true);
    }
    registries = byPrefix([...registries, ...parseRegistriesConf(dropIn, path, { dropIn: true })], false);
    files.push(path);
  }
  return new RegistriesConf(registries, { file, dir, files });
}

function describeFsError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOENT') return 'no such file or directory';
  if (e.code === 'EACCES') return 'permission denied';
  if (e.code === 'EISDIR') return 'is a directory';
  return e.message;
}
