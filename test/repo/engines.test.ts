// `npm ci` on Node 22 and 24 prints no engine warnings: every package in package-lock.json accepts the oldest Node this
// project supports and the Node running the tests. npm checks `engines` with node-semver ranges, so node-semver
// (the `semver` package) is the exact judge here.
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

interface LockPackage {
  readonly version?: string;
  readonly engines?: Record<string, string> | readonly string[];
  readonly dev?: boolean;
}

const root = new URL('../../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as { packages: Record<string, LockPackage> };

function nodeRange(engines: LockPackage['engines']): string | undefined {
  if (!engines || Array.isArray(engines)) return undefined; // the old array form is never enforced by npm
  return (engines as Record<string, string>).node;
}

describe('package-lock.json engines', () => {
  const oldest = semver.minVersion(manifest.engines.node)?.version ?? '';

  it('the oldest supported Node is a Node 22 release (Node 24 LTS is the one make installs)', () => {
    expect(oldest).toBe('22.13.0');
  });

  it.each([
    ['the oldest supported Node', oldest],
    ['the Node running the tests', process.versions.node],
  ])('every locked package accepts %s (%s)', (_what, version) => {
    const refused = Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .flatMap(([path, pkg]) => {
        const range = nodeRange(pkg.engines);
        return range && !semver.satisfies(version, range) ? [`${path.replace(/^.*node_modules\//, '')}@${pkg.version ?? '?'} wants node ${range}`] : [];
      });
    expect(refused).toEqual([]);
  });
});
