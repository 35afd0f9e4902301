// `.indexignore` handling as opm does it (github.com/joelanford/ignore over go-git's gitignore
// patterns): every `.indexignore` in the tree contributes its lines as patterns scoped to its
// directory; later patterns (deeper or later files in walk order) win; `!` re-includes; `**`
// spans directories; a trailing `/` limits a pattern to directories but files below still
// match. Only files are ever matched (`isDir = false`); directories are always descended.

import { goTrimSpace } from './go.ts';

export const INDEX_IGNORE_FILE = '.indexignore';

interface Pattern {
  readonly domain: readonly string[];
  readonly segments: readonly string[];
  readonly matchers: readonly (RegExp | null)[]; // compiled segments; null = malformed (never matches)
  readonly inclusion: boolean;
  readonly dirOnly: boolean;
  readonly isGlob: boolean;
}

/**
 * Go path.Match syntax for one path segment: `*`, `?`, `[...]` / `[^...]` classes with ranges,
 * `\` escapes. A malformed pattern (ErrBadPattern) never matches.
 */
export function compileSegment(p: string): RegExp | null {
  const chars = [...p];
  const escOut = (c: string): string => c.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  const escIn = (c: string): string => c.replace(/[\\\]^[-]/g, '\\$&');
  let i = 0;
  // getEsc: one (possibly escaped) class character; `-` and `]` must be escaped.
  const getEsc = (): string | null => {
    let ch = chars[i];
    if (ch === undefined || ch === '-' || ch === ']') return null;
    if (ch === '\\') {
      ch = chars[++i];
      if (ch === undefined) return null;
    }
    i++;
    return i >= chars.length ? null : ch;
  };
  let re = '^';
  while (i < chars.length) {
    const c = chars[i] as string;
    if (c === '*') {
      re += '[^/]*';
      i++;
    } else if (c === '?') {
      re += '[^/]';
      i++;
    } else if (c === '\\') {
      const n = chars[i + 1];
      if (n === undefined) return null;
      re += escOut(n);
      i += 2;
    } else if (c === '[') {
      i++;
      let cls = '';
      if (chars[i] === '^') {
        cls = '^';
        i++;
      }
      let items = 0;
      for (;;) {
        if (chars[i] === ']' && items > 0) {
          i++;
          break;
        }
        const lo = getEsc();
        if (lo === null) return null;
        let item = escIn(lo);
        if (chars[i] === '-') {
          i++;
          const hi = getEsc();
          if (hi === null) return null;
          if (hi < lo) item = '';
          else item += '-' + escIn(hi);
        }
        cls += item;
        items++;
      }
      // An inverted range matches nothing in Go; an empty JS class does the same.
      re += `[${cls}]`;
    } else {
      re += escOut(c);
      i++;
    }
  }
  try {
    return new RegExp(re + '$', 'su');
  } catch {
    return null;
  }
}

function parsePattern(line: string, domain: readonly string[]): Pattern {
  let p = line;
  let inclusion = false;
  if (p.startsWith('!')) {
    inclusion = true;
    p = p.slice(1);
  }
  if (!p.endsWith('\\ ')) p = p.replace(/ +$/, '');
  let dirOnly = false;
  if (p.endsWith('/')) {
    dirOnly = true;
    p = p.slice(0, -1);
  }
  const isGlob = p.includes('/');
  const segments = p.split('/');
  return {
    domain,
    segments,
    matchers: segments.map((s) => (s === '' || s === '**' ? null : compileSegment(s))),
    inclusion,
    dirOnly,
    isGlob,
  };
}

const segMatch = (re: RegExp | null, name: string): boolean => re !== null && re.test(name);

function simpleNameMatch(p: Pattern, path: readonly string[], isDir: boolean): boolean {
  const re = p.matchers[0] ?? null;
  for (let i = 0; i < path.length; i++) {
    if (!segMatch(re, path[i] as string)) continue;
    if (p.dirOnly && !isDir && i === path.length - 1) return false;
    if (i < path.length - 1 && p.inclusion) continue;
    return true;
  }
  return false;
}

function globMatch(p: Pattern, fullPath: readonly string[], isDir: boolean): boolean {
  let path = fullPath;
  let matched = false;
  let canTraverse = false;
  let trailingStar = false;
  for (let i = 0; i < p.segments.length; i++) {
    const seg = p.segments[i] as string;
    const re = p.matchers[i] ?? null;
    if (seg === '') {
      canTraverse = false;
      continue;
    }
    if (seg === '**') {
      if (i === p.segments.length - 1) {
        matched = path.length > 0 || isDir;
        trailingStar = matched;
        break;
      }
      canTraverse = true;
      continue;
    }
    if (path.length === 0) return false;
    if (canTraverse) {
      canTraverse = false;
      for (;;) {
        const e = path[0] as string;
        path = path.slice(1);
        if (segMatch(re, e)) {
          matched = true;
          break;
        }
        if (path.length === 0) return false;
      }
    } else {
      if (!segMatch(re, path[0] as string)) return false;
      matched = true;
      path = path.slice(1);
      if (path.length === 0 && i < p.segments.length - 1) matched = false;
    }
  }
  if (matched && (path.length === 0 || trailingStar)) {
    if (p.dirOnly && !isDir) matched = false;
  } else if (matched && p.inclusion) matched = false;
  return matched;
}

type MatchResult = 'none' | 'exclude' | 'include';

function matchPattern(p: Pattern, path: readonly string[], isDir: boolean): MatchResult {
  if (path.length <= p.domain.length) return 'none';
  for (let i = 0; i < p.domain.length; i++) if (path[i] !== p.domain[i]) return 'none';
  const rel = path.slice(p.domain.length);
  const ok = p.isGlob ? globMatch(p, rel, isDir) : simpleNameMatch(p, rel, isDir);
  if (!ok) return 'none';
  return p.inclusion ? 'include' : 'exclude';
}

/** The patterns of one `.indexignore`, parsed once (see `IgnoreMatcher.addPatterns`). */
export type IgnorePatterns = readonly Pattern[];

/** Parses the lines of one `.indexignore` found in directory `dir` (relative, `/`-separated, `''` for the root). */
export function parseIgnoreFile(dir: string, content: string): IgnorePatterns {
  const domain = dir === '' || dir === '.' ? [] : dir.split('/');
  const lines = content.split('\n').map(goTrimSpace);
  return lines.filter((line) => line !== '' && !line.startsWith('#')).map((line) => parsePattern(line, domain));
}

/** Collects `.indexignore` patterns and answers "is this file ignored?". */
export class IgnoreMatcher {
  private readonly patterns: Pattern[] = [parsePattern(INDEX_IGNORE_FILE, [])];

  /** Adds the patterns of one `.indexignore`; files added later win over earlier ones. */
  addPatterns(patterns: IgnorePatterns): void {
    this.patterns.push(...patterns);
  }

  /** Whether the file (or, with isDir, directory) at `path` (relative, `/`-separated) is ignored. */
  match(path: string, isDir = false): boolean {
    const parts = path.split('/');
    for (let i = this.patterns.length - 1; i >= 0; i--) {
      const r = matchPattern(this.patterns[i] as Pattern, parts, isDir);
      if (r !== 'none') return r === 'exclude';
    }
    return false;
  }
}
