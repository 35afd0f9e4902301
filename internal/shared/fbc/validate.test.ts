// catalogProblem / describeProblem: opm validate's rules and texts (validate), in one line naming the blob's file —
// what a CatalogSource's status says when it refuses a catalog. Messages pinned.

import { describe, expect, it } from 'vitest';
import { catalogFromFiles } from './load.ts';
import { FbcLoadError } from './messages.ts';
import { renderTreeLine } from './tree.ts';
import { catalogProblem, describeProblem, validate } from './validate.ts';

const pkg = (name: string, defaultChannel: string): string => `---\nschema: olm.package\nname: ${name}\ndefaultChannel: ${defaultChannel}\n`;
const channel = (p: string, name: string, ...entries: string[]): string =>
  `---\nschema: olm.channel\npackage: ${p}\nname: ${name}\nentries:\n${entries.map((e) => `  - ${e}\n`).join('')}`;
const bundle = (p: string, version: string): string =>
  `---\nschema: olm.bundle\nname: ${p}.v${version}\npackage: ${p}\nimage: quay.io/example/${p}-bundle:v${version}\nproperties:\n  - type: olm.package\n    value: {packageName: ${p}, version: ${version}}\n`;

const problem = (files: Record<string, string>): string | undefined => catalogProblem(catalogFromFiles(files));

describe('catalogProblem', () => {
  it('a valid catalog has none', () => {
    expect(problem({ 'foo/catalog.yaml': pkg('foo', 'stable') + channel('foo', 'stable', 'name: foo.v0.1.0') + bundle('foo', '0.1.0') })).toBeUndefined();
  });

  it('a channel entry naming a bundle that does not exist: the channel blob and opm’s message', () => {
    expect(
      problem({ 'foo/catalog.yaml': pkg('foo', 'stable') + channel('foo', 'stable', 'name: foo.v0.1.0', 'name: foo.v0.2.0\n    replaces: foo.v0.1.0') + bundle('foo', '0.1.0') }),
    ).toBe('foo/catalog.yaml: document 2 (line 6), olm.channel "stable": no olm.bundle blobs found in package "foo" for olm.channel entries [foo.v0.2.0]');
  });

  it('a bundle in no channel: the bundle blob', () => {
    expect(
      problem({
        'foo/bundles.yaml': bundle('foo', '0.1.0') + bundle('foo', '0.2.0'),
        'foo/package.yaml': pkg('foo', 'stable') + channel('foo', 'stable', 'name: foo.v0.1.0'),
      }),
    ).toBe('foo/bundles.yaml: document 2 (line 10), olm.bundle "foo.v0.2.0": package "foo", bundle "foo.v0.2.0" not found in any channel entries');
  });

  it('a package with no channels: the package blob and the `invalid index` tree in one line', () => {
    expect(problem({ 'bar/catalog.yaml': pkg('bar', 'stable'), 'foo/catalog.yaml': pkg('foo', 'stable') + channel('foo', 'stable', 'name: foo.v0.1.0') + bundle('foo', '0.1.0') })).toBe(
      'bar/catalog.yaml: document 1 (line 2), olm.package "bar": invalid index: invalid package "bar": invalid channel "stable": channel must contain at least one bundle',
    );
  });

  it('several problems under one node: [a; b], the first path names the blob', () => {
    const c = catalogFromFiles({
      'foo/catalog.yaml': pkg('foo', 'stable') + channel('foo', 'stable', 'name: foo.v0.1.0', 'name: foo.v0.2.0') + bundle('foo', '0.1.0') + bundle('foo', '0.2.0'),
    });
    const err = validate(c).errors[0]!;
    expect(err.code).toBe('FBC_INVALID_MODEL');
    // opm's own text is unchanged
    expect(err.message).toBe(
      'invalid index:\n└── invalid package "foo":\n    └── invalid channel "stable":\n        └── multiple channel heads found in graph: foo.v0.1.0, foo.v0.2.0',
    );
    expect(describeProblem(err)).toBe(
      'foo/catalog.yaml: document 2 (line 6), olm.channel "stable": invalid index: invalid package "foo": invalid channel "stable": multiple channel heads found in graph: foo.v0.1.0, foo.v0.2.0',
    );
    expect(
      renderTreeLine({ message: 'invalid index', children: [{ message: 'invalid package "a"', children: ['one', { message: 'invalid channel "x"', children: ['two'] }] }] }),
    ).toBe('invalid index: invalid package "a": [one; invalid channel "x": two]');
  });

  it('a load error keeps its location, in one line', () => {
    let err: unknown;
    try {
      catalogFromFiles({ 'foo/catalog.yaml': 'schema: olm.package\nname: [unclosed\n' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FbcLoadError);
    const line = describeProblem(err as FbcLoadError);
    expect(line).toMatch(/^foo\/catalog\.yaml: /);
    expect(line).not.toContain('\n');
  });
});
