// `.indexignore` matching, with joelanford/ignore's test vectors (ignore_test.go) and go-git
// gitignore pattern rules.

import { describe, expect, it } from 'vitest';
import { IgnoreMatcher, compileSegment, parseIgnoreFile } from './ignore.ts';

describe('IgnoreMatcher (joelanford/ignore vectors)', () => {
  const m = new IgnoreMatcher();
  m.addPatterns(parseIgnoreFile('', '\n\t# Always ignore a anywhere\n\ta\n\n\t# Ignore the root ignore directory\n\t/ignore\n\n\t# Ignore files named "file1" in dir "really"\n\t/really/**/file1\n'));
  m.addPatterns(parseIgnoreFile('dir1', '\n\t# Always ignore b anywhere in dir1\n\tb\n\n\t# Ignore the root/dir1/ignore directory\n\t/ignore\n\n\t# Don\'t ignore a in dir1\n\t!a\n'));

  it.each<[string, boolean, boolean]>([
    ['.indexignore', false, true], // the ignore files themselves are skipped by name
    ['a', false, true],
    ['b', false, false],
    ['c', false, false],
    ['ignore', true, true],
    ['ignore/a', false, true],
    ['ignore/b', false, true],
    ['ignore/c', false, true],
    ['dir1', true, false],
    ['dir1/a', false, false],
    ['dir1/b', false, true],
    ['dir1/c', false, false],
    ['dir1/ignore', true, true],
    ['dir1/ignore/a', false, false],
    ['dir1/ignore/b', false, true],
    ['dir1/ignore/c', false, true],
    ['really', true, false],
    ['really/file1', false, true],
    ['really/file2', false, false],
    ['really/long', true, false],
    ['really/long/file1', false, true],
    ['really/long/file2', false, false],
    ['really/long/path/file1', false, true],
    ['really/long/path/to/the/file1', false, true],
    ['really/long/path/to/the/file2', false, false],
  ])('%s', (path, isDir, ignored) => {
    expect(m.match(path, isDir)).toBe(ignored);
  });

  it('upstream example: everything but JSON/YAML, and not CSVs', () => {
    const x = new IgnoreMatcher();
    x.addPatterns(parseIgnoreFile('', '*\n!*.json\n!*.yaml\n*.clusterserviceversion.yaml\n'));
    expect(['a.json', 'pkg/b.yaml', 'README.md', 'pkg/x.clusterserviceversion.yaml', 'pkg/c.yml'].map((p) => x.match(p))).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
  });

  it('a directory pattern ignores the files below it, not a file of that name', () => {
    const x = new IgnoreMatcher();
    x.addPatterns(parseIgnoreFile('', 'objects/\n'));
    expect(x.match('objects/a.yaml')).toBe(true);
    expect(x.match('pkg/objects/deep/a.yaml')).toBe(true);
    expect(x.match('objects')).toBe(false);
  });
});

describe('compileSegment (Go path.Match)', () => {
  it.each<[string, string, boolean]>([
    ['*.yaml', 'catalog.yaml', true],
    ['*.yaml', 'catalog.yml', false],
    ['catalog.?son', 'catalog.json', true],
    ['[a-c]*', 'bar', true],
    ['[^a-c]*', 'bar', false],
    ['[^a-c]*', 'zed', true],
    ['\\*', '*', true],
    ['\\*', 'x', false],
    ['a.b', 'axb', false],
  ])('%s ~ %s', (pattern, name, want) => {
    expect(compileSegment(pattern)?.test(name) ?? false).toBe(want);
  });

  it.each(['[', '[]', '[a-]', 'a\\', '[-a]'])('malformed %s never matches', (pattern) => {
    expect(compileSegment(pattern)).toBeNull();
  });
});
