// search --classic / list-available --classic: a PackageManifest as the v1 forms show a package (the mapping), the
// list-available table, and that --classic selects these forms.
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CatalogSource } from '../../../api/operators/index.ts';
import { contentFromFbc } from '../../classic/catalogsource/index.ts';
import { contentManifests, packageManifest, type PackageManifest } from '../../classic/packageserver/index.ts';
import { loadCatalog } from '../../shared/fbc/index.ts';
import { runCaptured } from '../run.ts';
import { availableTable, catalogColumn, summarizeManifest } from './search.ts';

const demo = fileURLToPath(new URL('../../../demo/catalog', import.meta.url));
const source = (namespace: string, name: string): CatalogSource => ({
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'CatalogSource',
  metadata: { name, namespace, creationTimestamp: '2026-11-01T00:00:00Z' },
  spec: { sourceType: 'grpc', displayName: 'Demo' },
});
let pm: PackageManifest;
beforeAll(async () => {
  const content = contentFromFbc(await loadCatalog(demo), 'example.com/demo@sha256:1', new Date());
  pm = packageManifest(source('olm', 'global'), contentManifests(content)[0]!, 'ops');
});

describe('a PackageManifest as search shows a package', () => {
  it('the demo package: default channel first, heads, entries newest first with deprecations, latest, CSV metadata', () => {
    const s = summarizeManifest(pm);
    expect(s).toMatchObject({ package: 'demo-operator', catalog: 'global', catalogNamespace: 'olm', provider: 'OLM demo', displayName: 'Demo Operator', defaultChannel: 'stable', latest: '0.4.0' });
    expect(s.channels.map((c) => [c.name, c.default, c.head])).toEqual([
      ['stable', true, 'demo-operator.v0.3.0'],
      ['candidate', false, 'demo-operator.v0.4.0'],
    ]);
    expect(s.channels[0]!.bundles.map((b) => [b.name, b.version, b.deprecated !== undefined])).toEqual([
      ['demo-operator.v0.3.0', '0.3.0', false],
      ['demo-operator.v0.2.0', '0.2.0', true],
      ['demo-operator.v0.1.0', '0.1.0', false],
    ]);
    expect(s.channels[0]!.bundles[1]!.deprecated).not.toMatch(/\n|\s{2}/);
    expect(s.keywords.length).toBeGreaterThan(0);
  });

  it('deprecations of the package and a channel; a channel without entries shows its head', () => {
    const dep: PackageManifest = structuredClone(pm);
    dep.status.deprecation = { message: ' gone \n soon ' };
    dep.status.channels[0]!.deprecation = { message: 'use stable' };
    dep.status.channels[1]!.entries = null;
    const s = summarizeManifest(dep);
    expect(s.deprecated).toBe('gone soon');
    expect(s.channels.find((c) => c.name === 'candidate')?.deprecated).toBe('use stable');
    expect(s.channels.find((c) => c.name === 'stable')?.bundles).toEqual([{ name: 'demo-operator.v0.3.0', version: '0.3.0' }]);
  });

  it('the catalog column names the namespace of a CatalogSource from elsewhere; the list-available table', () => {
    const s = summarizeManifest(pm);
    expect(catalogColumn(s, 'olm')).toBe('global');
    expect(catalogColumn(s, 'ops')).toBe('olm/global');
    const text = availableTable([s], 'ops');
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^CATALOG\s+CHANNEL\s+VERSION\s+CSV\s+NOTES$/);
    expect(lines[1]).toMatch(/^olm\/global\s+stable \(default\)\s+0\.3\.0\s+demo-operator\.v0\.3\.0\s+head$/);
    expect(text).toMatch(/\nDeprecations:\n {2}bundle demo-operator\.v0\.2\.0 \(catalog olm\/global\): /);
  });
});

describe('--classic selects the classic search forms', () => {
  it('help of each, with an example; the v1 forms mention --classic', async () => {
    for (const argv of [['search', '--classic', '--help'], ['list-available', '--classic', '--help']]) {
      const r = await runCaptured(argv);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: kubectl olm ${argv[0]!} --classic `));
      expect(r.stdout).toMatch(/\nExamples:\n {2}kubectl olm /);
    }
    expect((await runCaptured(['search', '--help'])).stdout).toContain('--classic');
  });

  it('usage errors exit 2 before any cluster access', async () => {
    for (const [argv, err] of [
      [['search', '--classic', 'a', 'b'], 'error: expected at most one search text, got 2'],
      [['list-available', '--classic', 'a', 'b'], 'error: expected one package, got 2'],
      [['list-available', '--classic', 'a', '-o', 'name'], 'error: unrecognized output format "name"'],
    ] as const) {
      const r = await runCaptured([...argv], { env: { KUBECONFIG: '/nonexistent' } });
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toContain(err);
    }
  });
});
