import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCaptured } from './run.ts';
import { CATALOG_SUMMARY, realCatalogDir } from '../../test/support/testdata.ts';

const expected = JSON.parse(readFileSync(CATALOG_SUMMARY, 'utf8')) as {
  catalogs: Record<string, { jsonlBytes: number }>;
};

interface Run {
  code: number;
  stdout: Buffer;
  stderr: string;
}

async function run(...argv: string[]): Promise<Run> {
  const r = await runCaptured(argv);
  return { code: r.code, stdout: Buffer.from(r.stdout), stderr: r.stderr }; // the output is UTF-8 JSON: bytes survive
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cli-catalog-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function catalog(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(tmp, name);
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(join(dir, rel, '..'), { recursive: true });
    await writeFile(join(dir, rel), content);
  }
  return dir;
}

const pkg = (name: string, extra = ''): string => `{"schema":"olm.package","name":"${name}","defaultChannel":"stable"${extra}}\n`;
const bundle = (pkgName: string, version: string, props = ''): string =>
  JSON.stringify({
    schema: 'olm.bundle',
    name: `${pkgName}.v${version}`,
    package: pkgName,
    image: `quay.io/x/${pkgName}:v${version}`,
    properties: props === '' ? [{ type: 'olm.package', value: { packageName: pkgName, version } }] : JSON.parse(props),
  }) + '\n';

describe.each(Object.keys(expected.catalogs))('real catalog %s', (name) => {
  it('validates with exit 0 and no output', async () => {
    const r = await run('catalog', 'validate', realCatalogDir(name));
    expect(r.stderr).toBe('');
    expect(r.stdout.length).toBe(0);
    expect(r.code).toBe(0);
  });
  it('renders exactly jsonlBytes of JSON lines', async () => {
    const r = await run('catalog', 'render', realCatalogDir(name));
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBe(expected.catalogs[name]?.jsonlBytes);
    const lines = r.stdout.toString().split('\n');
    expect(lines.pop()).toBe('');
    expect(() => lines.forEach((l) => JSON.parse(l))).not.toThrow();
  });
});

describe('catalog validate on invalid catalogs', () => {
  const cases: [string, Record<string, string>, string][] = [
    [
      'duplicate package',
      { 'a.json': pkg('foo') + pkg('foo') },
      'duplicate package "foo"',
    ],
    [
      'channel entry without a bundle',
      { 'a.json': pkg('foo') + '{"schema":"olm.channel","package":"foo","name":"stable","entries":[{"name":"foo.v0.1.0"}]}\n' },
      'no olm.bundle blobs found in package "foo" for olm.channel entries [foo.v0.1.0]',
    ],
    [
      'missing olm.package property',
      { 'a.json': pkg('foo') + '{"schema":"olm.channel","package":"foo","name":"stable","entries":[{"name":"foo.v0.1.0"}]}\n' + bundle('foo', '0.1.0', '[]') },
      'package "foo" bundle "foo.v0.1.0" must have exactly 1 "olm.package" property, found 0',
    ],
    [
      'non-semver version',
      {
        'a.json':
          pkg('foo') +
          '{"schema":"olm.channel","package":"foo","name":"stable","entries":[{"name":"foo.v0.1.0.1"}]}\n' +
          JSON.stringify({
            schema: 'olm.bundle',
            name: 'foo.v0.1.0.1',
            package: 'foo',
            image: 'quay.io/x/foo:1',
            properties: [{ type: 'olm.package', value: { packageName: 'foo', version: '0.1.0.1' } }],
          }) +
          '\n',
      },
      'error parsing bundle "foo.v0.1.0.1" version "0.1.0.1": Invalid character(s) found in patch number "0.1"',
    ],
  ];
  it.each(cases)('%s', async (name, files, message) => {
    const dir = await catalog(name.replaceAll(' ', '-'), files);
    const r = await run('catalog', 'validate', dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`${message}\n`);
  });

  it('prints opm’s JSON result with -o json', async () => {
    const dir = await catalog('json-out', { 'a.json': pkg('foo') + pkg('foo') });
    const r = await run('catalog', 'validate', dir, '-o', 'json');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout.toString())).toEqual({ passed: false, error: { message: 'duplicate package "foo"' } });
  });

  it('names the file of a blob that does not parse', async () => {
    const dir = await catalog('broken', { 'pkg/catalog.yaml': 'schema: olm.package\nname: [unclosed\n' });
    for (const sub of ['validate', 'render']) {
      const r = await run('catalog', sub, dir);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('pkg/catalog.yaml');
    }
  });
});

describe('usage', () => {
  it('rejects a missing directory argument with exit 2 and where the usage is', async () => {
    const r = await run('catalog', 'validate');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('expected exactly one catalog directory, got 0');
    expect(r.stderr).toBe("error: expected exactly one catalog directory, got 0\nSee 'kubectl olm catalog validate --help' for usage.\n");
  });
  it('reports a directory that does not exist with exit 1', async () => {
    const r = await run('catalog', 'render', join(tmp, 'nope'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no such file or directory');
  });
  it('lists the commands for --help', async () => {
    const r = await run('--help');
    expect(r.code).toBe(0);
    expect(r.stdout.toString()).toContain('catalog validate');
    expect(r.stdout.toString()).toContain('catalog render');
  });
  it('rejects an unknown command with exit 2', async () => {
    const r = await run('frobnicate');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command "frobnicate"');
  });
});
