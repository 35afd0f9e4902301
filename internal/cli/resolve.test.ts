import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCaptured } from './run.ts';
import { realCatalogDir } from '../../test/support/testdata.ts';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const run = (...argv: string[]): Promise<Run> => runCaptured(argv, { cwd: tmp });

let tmp: string;

// upstream's genPackage fixture as an FBC directory: channels alpha, beta, gamma; 1.0.0 and 1.0.1 deprecated.
const P = 'foo';
const b = (v: string) => `${P}.v${v}`;
const entry = (v: string, skipRange?: string) => (skipRange ? { name: b(v), skipRange } : { name: b(v) });
function genPackageFiles(opts: { deprecations?: boolean; versions?: string[] } = {}): string {
  const versions = opts.versions ?? ['0.1.0', '1.0.0', '1.0.1', '1.0.2', '2.0.0', '3.0.0'];
  const blobs: unknown[] = [
    { schema: 'olm.package', name: P, defaultChannel: 'alpha' },
    {
      schema: 'olm.channel',
      package: P,
      name: 'alpha',
      entries: [entry('0.1.0'), entry('1.0.0', '<1.0.0'), entry('1.0.1', '<1.0.1'), entry('1.0.2', '<1.0.2'), entry('2.0.0', '>=1.0.0 <2.0.0')].filter((e) =>
        versions.some((v) => e.name === b(v)),
      ),
    },
    { schema: 'olm.channel', package: P, name: 'beta', entries: [entry('0.1.0'), entry('1.0.2', '<1.0.2')].filter((e) => versions.some((v) => e.name === b(v))) },
    { schema: 'olm.channel', package: P, name: 'gamma', entries: [entry('3.0.0', '>=2.0.0 <3.0.0')].filter((e) => versions.some((v) => e.name === b(v))) },
    ...versions.map((v) => ({
      schema: 'olm.bundle',
      name: b(v),
      package: P,
      image: `quay.io/test/${P}:v${v}`,
      properties: [{ type: 'olm.package', value: { packageName: P, version: v } }],
    })),
  ];
  if (opts.deprecations ?? true) {
    blobs.push({
      schema: 'olm.deprecations',
      package: P,
      entries: ['1.0.0', '1.0.1'].map((v) => ({ reference: { schema: 'olm.bundle', name: b(v) }, message: `bundle ${b(v)} is deprecated` })),
    });
  }
  return blobs.map((x) => JSON.stringify(x)).join('\n') + '\n';
}

async function catalogDir(path: string, content: string): Promise<void> {
  await mkdir(join(tmp, path), { recursive: true });
  await writeFile(join(tmp, path, 'catalog.json'), content);
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cli-resolve-'));
  await catalogDir('main', genPackageFiles());
  await catalogDir('other', genPackageFiles({ deprecations: false, versions: ['0.1.0', '1.0.2', '3.0.0'] }));
  await catalogDir('x/main', genPackageFiles());
  await catalogDir('broken', '{"schema":"olm.package","name":');
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('kubectl olm resolve', () => {
  it('prints the chosen bundle', async () => {
    const r = await run('resolve', '--catalog', 'main', '--package', P);
    expect(r).toEqual({ code: 0, stdout: `bundle: foo.v3.0.0\nversion: 3.0.0\ncatalog: main\nimage: quay.io/test/foo:v3.0.0\n`, stderr: '' });
  });

  it('follows upgrade edges from --installed, one hop', async () => {
    const r = await run('resolve', '--catalog', 'main', '--package', P, '--installed', 'foo.v0.1.0');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('bundle: foo.v1.0.2\n');
  });

  it('SelfCertified allows a downgrade', async () => {
    const r = await run('resolve', '--catalog', 'main', '--package', P, '--installed', 'foo.v1.0.2', '--version', '<1.0.2', '--upgrade-constraint-policy', 'SelfCertified');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('bundle: foo.v0.1.0\n');
  });

  it('fails with upstream’s message followed by the explanation', async () => {
    const r = await run('resolve', '--catalog', 'main', '--package', P, '--installed', 'foo.v0.1.0', '--version', '<1.0.0 >=2.0.0');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      [
        'error upgrading from currently installed version "0.1.0": no bundles found for package "foo" matching version "<1.0.0 >=2.0.0"',
        '',
        'catalog "main" (priority 0): no bundle passed the filters',
        '  foo.v0.1.0 0.1.0: version 0.1.0 does not satisfy range "<1.0.0 >=2.0.0"',
        '  foo.v1.0.0 1.0.0 (deprecated): version 1.0.0 does not satisfy range "<1.0.0 >=2.0.0"',
        '  foo.v1.0.1 1.0.1 (deprecated): version 1.0.1 does not satisfy range "<1.0.0 >=2.0.0"',
        '  foo.v1.0.2 1.0.2: version 1.0.2 does not satisfy range "<1.0.0 >=2.0.0"',
        '  foo.v2.0.0 2.0.0: version 2.0.0 does not satisfy range "<1.0.0 >=2.0.0"; not a successor of installed foo.v0.1.0 (0.1.0): no replaces, skips or skipRange edge',
        '  foo.v3.0.0 3.0.0: version 3.0.0 does not satisfy range "<1.0.0 >=2.0.0"; not a successor of installed foo.v0.1.0 (0.1.0): no replaces, skips or skipRange edge',
        '',
      ].join('\n'),
    );
  });

  it('two catalogs with the same priority are ambiguous; --priority decides', async () => {
    const tie = await run('resolve', '--catalog', 'main', '--catalog', 'other', '--package', P);
    expect(tie.code).toBe(1);
    expect(tie.stderr.split('\n')[0]).toBe('found bundles for package "foo" in multiple catalogs with the same priority [main other]');
    expect(tie.stderr).toContain('catalog "main" (priority 0): candidate foo.v3.0.0, dropped: same priority as [other]: ambiguous');
    const ranked = await run('resolve', '--catalog', 'main', '--catalog', 'other', '--priority', '10', '--package', P, '--explain');
    expect(ranked.code).toBe(0);
    expect(ranked.stdout).toContain('catalog: other\n');
    expect(ranked.stdout).toContain('catalog "main" (priority 0): candidate foo.v3.0.0, dropped: lower priority than catalog "other" (priority 10)');
    expect(ranked.stdout).toContain('catalog "other" (priority 10): chosen foo.v3.0.0');
  });

  it('channels restrict candidates', async () => {
    const r = await run('resolve', '--catalog', 'main', '--package', P, '--channel', 'beta', '--channel', 'alpha');
    expect(r.stdout).toContain('bundle: foo.v2.0.0\n');
    const none = await run('resolve', '--catalog', 'main', '--package', P, '--channel', 'stable');
    expect(none.code).toBe(1);
    expect(none.stderr.split('\n')[0]).toBe('no bundles found for package "foo" in channels [stable]');
  });

  it.each([
    [['--version', 'foobar'], 'desired version range "foobar" is invalid: improper constraint: "foobar"\n'],
    [['--installed', 'foo.v9.9.9'], 'installed bundle "foo.v9.9.9" not found in package "foo" of any catalog\n'],
  ])('input problems exit 1: %j', async (extra, stderr) => {
    const r = await run('resolve', '--catalog', 'main', '--package', P, ...extra);
    expect(r).toEqual({ code: 1, stdout: '', stderr });
  });

  it('a catalog that does not load exits 1 with the load error', async () => {
    const r = await run('resolve', '--catalog', 'broken', '--package', P);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^catalog\.json/);
  });

  it.each([
    [['--package', P], 'error: at least one --catalog <dir> is required'],
    [['--catalog', 'main'], 'error: --package is required'],
    [['--priority', '1', '--catalog', 'main', '--package', P], 'error: --priority must follow the --catalog it applies to'],
    [['--catalog', 'main', '--priority', 'high', '--package', P], 'error: invalid --priority "high": want a 32-bit integer'],
    [['--catalog', 'main', '--priority', '2147483648', '--package', P], 'error: invalid --priority "2147483648": want a 32-bit integer'],
    [['--catalog', 'main', '--priority', '1', '--priority', '2', '--package', P], 'error: --priority given twice for --catalog main'],
    [['--catalog', 'main', '--package', P, '--upgrade-constraint-policy', 'Never'], 'error: invalid --upgrade-constraint-policy "Never": want CatalogProvided or SelfCertified'],
    [['--catalog', 'main', '--catalog', 'x/main', '--package', P], 'error: two catalogs named "main": catalog names are directory basenames and must differ'],
    [['--catalog', 'main', '--package', P, 'extra'], "error: Unexpected argument 'extra'"],
  ])('usage errors exit 2: %j', async (args, first) => {
    const r = await run('resolve', ...args);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toContain(first);
    expect(r.stderr).toContain("See 'kubectl olm resolve --help' for usage.");
  });

  it('resolves a package of a real catalog', async () => {
    const r = await run('resolve', '--catalog', realCatalogDir('community-operators-v4.21'), '--package', 'kube-green', '--installed', 'kube-green.v0.5.0', '--explain');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // One hop along the catalog's edge: kube-green.v0.5.1 replaces kube-green.v0.5.0 in channel alpha.
    expect(r.stdout).toMatch(/^bundle: kube-green\.v0\.5\.1\nversion: 0\.5\.1\ncatalog: community-operators-v4\.21\nimage: \S+@sha256:[0-9a-f]{64}\n/);
    expect(r.stdout).toContain('  kube-green.v0.5.1 0.5.1: best in catalog [replaces installed, channel alpha]\n');
    expect(r.stdout).toContain('  kube-green.v0.5.0 0.5.0: lower than kube-green.v0.5.1 [installed version]\n');
  }, 30_000);
});
