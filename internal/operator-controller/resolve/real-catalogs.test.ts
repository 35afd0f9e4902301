// Both real catalogs in testdata/catalogs, every package: resolving without a version picks
// the highest bundle, and from every bundle the allowed set is exactly what replaces / skips /
// skipRange give plus the installed version — both computed here independently of the resolver
// (own version parser and comparator, edges indexed from the predecessor side).
import { beforeAll, describe, expect, it } from 'vitest';
import { parseBlang, parseBlangRange } from '../../shared/semver/index.ts';
import type { PackageBundle, PackageContent } from '../contentclient/index.ts';
import { indexFromDirectory, type CatalogIndex } from '../contentclient/index.ts';
import { StaticContentClient } from './offline.ts';
import { CatalogResolver, type ResolutionError } from './resolver.ts';
import { successorsOf } from './successors.ts';
import { buildExtension, catalogObject } from './testing.ts';
import { tryVersionAndRelease } from './version-release.ts';
import { realCatalogDir } from '../../../test/support/testdata.ts';

const CATALOGS = ['certified-operators-v4.21', 'community-operators-v4.21'];

// --- an independent reading of versions and releases -------------------------------------------
interface V {
  nums: [number, number, number];
  pre: string[];
  release: string[];
  text: string;
}
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$/;
const RELEASE_ID = /^(0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)$/;

function readVersion(b: PackageBundle): V | undefined {
  const p = b.properties.find((x) => x.type === 'olm.package')?.value as { version?: string } | undefined;
  const m = SEMVER.exec(p?.version ?? '');
  if (!m) return undefined;
  const build = m[5] ?? '';
  const isRelease = build !== '' && build.length <= 20 && build.split('.').every((s) => RELEASE_ID.test(s));
  return { nums: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ? m[4].split('.') : [], release: isRelease ? build.split('.') : [], text: p?.version ?? '' };
}
function cmpIds(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x === y) continue;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) return Number(x) - Number(y);
    if (xn !== yn) return xn ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}
function cmp(a: V, b: V): number {
  for (let i = 0; i < 3; i++) if (a.nums[i] !== b.nums[i]) return (a.nums[i] as number) - (b.nums[i] as number);
  if (a.pre.length === 0 || b.pre.length === 0) {
    if (a.pre.length !== b.pre.length) return a.pre.length === 0 ? 1 : -1;
  } else {
    const c = cmpIds(a.pre, b.pre);
    if (c !== 0) return c;
  }
  if (a.release.length === 0 || b.release.length === 0) return a.release.length - b.release.length;
  return cmpIds(a.release, b.release);
}
/** The best bundle: non-deprecated first, then highest; the first of equals in catalog order. */
function highest(bundles: readonly PackageBundle[], deprecated: ReadonlySet<string>): PackageBundle | undefined {
  let best: PackageBundle | undefined;
  for (const b of bundles) {
    if (best === undefined) {
      best = b;
      continue;
    }
    const bd = deprecated.has(b.name);
    const cd = deprecated.has(best.name);
    if (bd !== cd) {
      if (!bd) best = b;
      continue;
    }
    const vb = readVersion(b);
    const vc = readVersion(best);
    if (vb && (!vc || cmp(vb, vc) > 0)) best = b;
  }
  return best;
}

// --- edges indexed from the predecessor side ------------------------------------------------------
function successorIndex(content: PackageContent): Map<string, Set<string>> {
  const succ = new Map<string, Set<string>>();
  const add = (from: string, to: string) => {
    if (!succ.has(from)) succ.set(from, new Set());
    succ.get(from)?.add(to);
  };
  for (const ch of content.channels) {
    for (const e of ch.entries) {
      if (e.replaces !== '') add(e.replaces, e.name);
      for (const s of e.skips) add(s, e.name);
      if (e.skipRange === '') continue;
      let inRange: ((v: ReturnType<typeof parseBlang>) => boolean) | undefined;
      try {
        inRange = parseBlangRange(e.skipRange);
      } catch {
        continue;
      }
      for (const b of content.bundles) {
        const v = readVersion(b);
        if (v && inRange(parseBlang(v.text))) add(b.name, e.name);
      }
    }
  }
  return succ;
}

const deprecatedOf = (c: PackageContent): Set<string> =>
  new Set((c.deprecations[0]?.entries ?? []).filter((e) => e.reference.schema === 'olm.bundle').map((e) => e.reference.name));

describe.each(CATALOGS)('%s', (name) => {
  let index: CatalogIndex;
  const packages = (): [string, PackageContent][] => index.packageNames().map((p) => [p, index.getPackage(p)]);
  let resolver: CatalogResolver;
  let strictResolver: CatalogResolver;
  beforeAll(async () => {
    index = await indexFromDirectory(realCatalogDir(name));
    const content = new StaticContentClient(new Map([[name, index]]));
    resolver = new CatalogResolver({ listCatalogs: () => [catalogObject(name)], content, validations: [] });
    strictResolver = new CatalogResolver({ listCatalogs: () => [catalogObject(name)], content });
  }, 60_000);

  it('resolving without a version picks the highest bundle of every package', async () => {
    let refusedForDependencies = 0;
    for (const [pkg, content] of packages()) {
      const want = highest(content.bundles, deprecatedOf(content));
      expect(want, pkg).toBeDefined();
      const got = await resolver.resolveBundle(buildExtension(pkg, [], ''), undefined);
      expect(got.bundle.name, pkg).toBe(want?.name);
      expect(got.catalog).toBe(name);
      // With upstream's default validation, bundles declaring dependencies are refused instead.
      const deps = want?.properties.find((p) => ['olm.package.required', 'olm.gvk.required', 'olm.constraint'].includes(p.type));
      const strict = await strictResolver.resolveBundle(buildExtension(pkg, [], ''), undefined).then(
        (r) => r.bundle.name,
        (e: unknown) => (e as ResolutionError).message,
      );
      if (deps === undefined) expect(strict, pkg).toBe(want?.name);
      else {
        refusedForDependencies++;
        expect(strict, pkg).toBe(
          `validating bundle "${want?.name}": bundle "${want?.name}" has a dependency declared via property "${deps.type}" which is currently not supported`,
        );
      }
    }
    expect(index.packageNames().length).toBeGreaterThan(30);
    expect(refusedForDependencies).toBeLessThan(index.packageNames().length);
  });

  it('from every bundle, the allowed set is replaces/skips/skipRange edges plus the installed version', async () => {
    const edgeKinds = { replaces: 0, skips: 0, skipRange: 0, installed: 0 };
    let checked = 0;
    for (const [pkg, content] of packages()) {
      const succ = successorIndex(content);
      for (const installedBundle of content.bundles) {
        const iv = readVersion(installedBundle);
        expect(iv, installedBundle.name).toBeDefined();
        if (!iv) continue;
        const installed = { name: installedBundle.name, version: iv.text };
        const want = content.bundles
          .filter((b) => succ.get(installed.name)?.has(b.name) || (readVersion(b) !== undefined && cmp(readVersion(b) as V, iv) === 0))
          .map((b) => b.name);
        const f = successorsOf(installed, content.channels);
        const got = content.bundles.filter((b) => {
          const reason = f({ name: b.name, versionRelease: tryVersionAndRelease(b) });
          if (reason) edgeKinds[reason.kind]++;
          return reason !== undefined;
        });
        expect(got.map((b) => b.name), `${pkg} from ${installed.name}`).toEqual(want);
        // And the resolver takes the highest of them (one hop).
        const r = await resolver.resolveBundle(buildExtension(pkg, [], ''), installed);
        expect(r.bundle.name, `${pkg} from ${installed.name}`).toBe(highest(got, deprecatedOf(content))?.name);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(500);
    expect(edgeKinds.replaces).toBeGreaterThan(0);
    expect(edgeKinds.skips).toBeGreaterThan(0);
    expect(edgeKinds.skipRange).toBeGreaterThan(0);
  });
});
