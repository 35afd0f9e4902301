// ConvertToModel + model.Validate messages, with upstream's test vectors
// (alpha/declcfg/declcfg_to_model_test.go, alpha/model/model_test.go) and the checks of
// fbc.md §2.1/§2.2. Each row is a small catalog and the exact text `opm validate` prints.

import { describe, expect, it } from 'vitest';
import { channelHead, replacesChainError } from './model.ts';
import {
  newTestBundle,
  newTestChannel,
  newTestPackage,
  packageProperty,
  plainBundle,
  testBundleName,
  validationError,
  validationMessage,
  type Blob,
} from './testing.ts';

const pkgFoo = newTestPackage('foo', 'alpha');
const chFoo = newTestChannel('foo', 'alpha', { name: 'foo.v0.1.0' });

describe('ConvertToModel (declcfg_to_model_test.go vectors)', () => {
  it.each<{ name: string; blobs: Blob[]; want: string | undefined }>([
    {
      name: 'Error/PackageNoName',
      blobs: [newTestPackage('', 'alpha'), { schema: 'olm.bundle', name: 'foo.v0.1.0' }],
      want: 'config contains package with no name',
    },
    {
      name: 'Error/BundleMissingPackageName',
      blobs: [pkgFoo, { schema: 'olm.bundle', name: 'foo.v0.1.0' }],
      want: 'package name must be set for bundle "foo.v0.1.0"',
    },
    {
      name: 'Error/BundleUnknownPackage',
      blobs: [pkgFoo, newTestBundle('bar', '0.1.0')],
      want: 'unknown package "bar" for bundle "bar.v0.1.0"',
    },
    {
      name: 'Error/BundleMissingChannel',
      blobs: [pkgFoo, newTestBundle('foo', '0.1.0')],
      want: 'package "foo", bundle "foo.v0.1.0" not found in any channel entries',
    },
    {
      // Upstream's value is the invalid JSON `{`; a blob from YAML/JSON can only lack the value,
      // which json.Unmarshal reports the same way.
      name: 'Error/BundleInvalidProperties',
      blobs: [pkgFoo, newTestBundle('foo', '0.1.0', (b) => b.properties.push({ type: 'olm.foo' }))],
      want: 'parse properties for bundle "foo.v0.1.0": parse property[2] of type "olm.foo": unexpected end of JSON input',
    },
    {
      name: 'Error/BundlePackageMismatch',
      blobs: [pkgFoo, newTestBundle('foo', '0.1.0', (b) => (b.properties = [packageProperty('foooperator', '0.1.0')]))],
      want: 'package "foo" does not match "olm.package" property "foooperator"',
    },
    {
      name: 'Error/BundleInvalidVersion',
      blobs: [pkgFoo, newTestBundle('foo', '0.1.0', (b) => (b.properties = [packageProperty('foo', '0.1.0.1')]))],
      want: 'error parsing bundle "foo.v0.1.0" version "0.1.0.1": Invalid character(s) found in patch number "0.1"',
    },
    {
      name: 'Error/BundleMissingVersion',
      blobs: [pkgFoo, newTestBundle('foo', '')],
      want: 'error parsing bundle "foo.v" version "": Version string empty',
    },
    {
      name: 'Error/PackageMissingDefaultChannel',
      blobs: [
        newTestPackage('foo', ''),
        newTestChannel('foo', 'bar', { name: testBundleName('foo', '0.1.0') }),
        newTestBundle('foo', '0.1.0'),
      ],
      want: 'invalid index:\n└── invalid package "foo":\n    └── default channel must be set',
    },
    {
      name: 'Error/PackageNonExistentDefaultChannel',
      blobs: [newTestPackage('foo', 'bar'), newTestChannel('foo', 'bar')],
      want: 'invalid index:\n└── invalid package "foo":\n    └── invalid channel "bar":\n        └── channel must contain at least one bundle',
    },
    {
      name: 'Error/BundleMissingPackageProperty',
      blobs: [pkgFoo, newTestBundle('foo', '0.1.0', (b) => (b.properties = []))],
      want: 'package "foo" bundle "foo.v0.1.0" must have exactly 1 "olm.package" property, found 0',
    },
    {
      name: 'Error/BundleMultiplePackageProperty',
      blobs: [
        pkgFoo,
        newTestBundle('foo', '0.1.0', (b) => (b.properties = [packageProperty('foo', '0.1.0'), packageProperty('foo', '0.1.0')])),
      ],
      want: 'package "foo" bundle "foo.v0.1.0" must have exactly 1 "olm.package" property, found 2',
    },
    {
      name: 'Success/BundleWithDataButMissingImage',
      blobs: [
        pkgFoo,
        newTestChannel('foo', 'alpha', { name: testBundleName('foo', '0.1.0') }),
        newTestBundle('foo', '0.1.0', (b) => (b.image = '')),
      ],
      want: undefined,
    },
    {
      name: 'Error/ChannelEntryWithoutBundle',
      blobs: [pkgFoo, chFoo],
      want: 'no olm.bundle blobs found in package "foo" for olm.channel entries [foo.v0.1.0]',
    },
    {
      name: 'Error/BundleWithoutChannelEntry',
      blobs: [pkgFoo, chFoo, newTestBundle('foo', '0.2.0')],
      want: 'package "foo", bundle "foo.v0.2.0" not found in any channel entries',
    },
    {
      name: 'Error/ChannelMissingName',
      blobs: [pkgFoo, newTestChannel('foo', '', { name: 'foo.v0.1.0' }), newTestBundle('foo', '0.2.0')],
      want: 'package "foo" contains channel with no name',
    },
    {
      name: 'Error/ChannelMissingPackageName',
      blobs: [pkgFoo, newTestChannel('', 'alpha', { name: 'foo.v0.1.0' }), newTestBundle('foo', '0.2.0')],
      want: 'unknown package "" for channel "alpha"',
    },
    {
      name: 'Error/ChannelNonExistentPackage',
      blobs: [pkgFoo, newTestChannel('non-existent', 'alpha', { name: 'foo.v0.1.0' }), newTestBundle('foo', '0.1.0')],
      want: 'unknown package "non-existent" for channel "alpha"',
    },
    {
      name: 'Error/ChannelDuplicateEntry',
      blobs: [pkgFoo, newTestChannel('foo', 'alpha', { name: 'foo.v0.1.0' }, { name: 'foo.v0.1.0' }), newTestBundle('foo', '0.1.0')],
      want: 'invalid package "foo", channel "alpha": duplicate entry "foo.v0.1.0"',
    },
    {
      name: 'Error/DuplicatePackage',
      blobs: [pkgFoo, pkgFoo, chFoo, newTestBundle('foo', '0.1.0')],
      want: 'duplicate package "foo"',
    },
    {
      name: 'Error/PackageBreaksRFC1123',
      blobs: [newTestPackage('foo.bar', 'alpha'), chFoo, newTestBundle('foo', '0.1.0')],
      want: 'invalid package name "foo.bar": [must not contain dots]',
    },
    {
      name: 'Error/DuplicateChannel',
      blobs: [pkgFoo, chFoo, chFoo, newTestBundle('foo', '0.1.0')],
      want: 'package "foo" has duplicate channel "alpha"',
    },
    {
      name: 'Error/DuplicateBundle',
      blobs: [pkgFoo, chFoo, newTestBundle('foo', '0.1.0'), newTestBundle('foo', '0.1.0')],
      want: 'package "foo" has duplicate bundle "foo.v0.1.0"',
    },
    { name: 'Success/ValidModel', blobs: [pkgFoo, chFoo, newTestBundle('foo', '0.1.0')], want: undefined },
    {
      name: 'Success/ValidModelWithChannelProperties',
      blobs: [
        pkgFoo,
        { ...chFoo, properties: [{ type: 'user', value: { group: 'xyz.com', name: 'account' } }] },
        newTestBundle('foo', '0.1.0'),
      ],
      want: undefined,
    },
    {
      name: 'Success/ValidModelWithPackageProperties',
      blobs: [newTestPackage('foo', 'alpha', { properties: [{ type: 'owner', value: { group: 'abc.com', name: 'admin' } }] }), chFoo, newTestBundle('foo', '0.1.0')],
      want: undefined,
    },
  ])('$name', ({ blobs, want }) => {
    expect(validationMessage(blobs)).toBe(want);
  });

  it('reports the other DNS-1123 label problems as a Go slice', () => {
    expect(validationMessage([newTestPackage('Foo_bar', 'alpha')])).toBe(
      "invalid package name \"Foo_bar\": [a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')]",
    );
    const long = 'a'.repeat(64);
    expect(validationMessage([newTestPackage(long, 'alpha')])).toBe(`invalid package name "${long}": [must be no more than 63 characters]`);
  });

  it('checks only the last channel of a package for entries without a bundle (opm quirk)', () => {
    // beta's missing bundle is not reported at conversion; model validation catches it instead.
    const msg = validationMessage([
      newTestPackage('foo', 'alpha'),
      newTestChannel('foo', 'beta', { name: 'foo.v0.1.0' }, { name: 'foo.v0.2.0', replaces: 'foo.v0.1.0' }),
      newTestChannel('foo', 'alpha', { name: 'foo.v0.1.0' }),
      plainBundle('foo', '0.1.0'),
    ]);
    expect(msg).toBe(
      [
        'invalid index:',
        '└── invalid package "foo":',
        '    └── invalid channel "beta":',
        '        └── invalid bundle "foo.v0.2.0":',
        '            ├── must be exactly one property with type "olm.package"',
        '            └── bundle image must be set',
      ].join('\n'),
    );
  });

  it('names the offending blob', () => {
    const e = validationError([pkgFoo, chFoo, plainBundle('foo', '0.1.0'), plainBundle('foo', '0.1.0')]);
    expect(e.code).toBe('FBC_DUPLICATE_BUNDLE');
    expect(e.ref).toMatchObject({ file: 'catalog.json', document: 4, schema: 'olm.bundle', name: 'foo.v0.1.0' });
  });
});

describe('image pull specs', () => {
  const withImage = (image: string, related?: string): Blob[] => [
    pkgFoo,
    chFoo,
    plainBundle('foo', '0.1.0', { image, ...(related === undefined ? {} : { relatedImages: [{ name: 'x', image: related }] }) }),
  ];
  it.each([
    ['quay.io/Foo/bar:v1', 'invalid reference format: repository name must be lowercase'],
    ['quay.io/foo/bar:v1@ssha256:' + 'a'.repeat(64), 'unsupported digest algorithm'],
    ['quay.io/foo/bar@md5:' + 'a'.repeat(32), 'unsupported digest algorithm'],
    ['quay.io/foo/bar@sha256:' + 'a'.repeat(40), 'invalid checksum digest length'],
    ['quay.io/foo/bar:v1 ', 'invalid reference format'],
    ['a'.repeat(64), `invalid repository name (${'a'.repeat(64)}), cannot specify 64-byte hexadecimal strings`],
  ])('%s', (image, err) => {
    expect(validationMessage(withImage(image))).toBe(`package "foo" bundle "foo.v0.1.0" image: invalid image pull spec "${image}": ${err}`);
  });

  it('accepts tag plus digest, ports, registries and an upper-case registry host', () => {
    expect(validationMessage(withImage('UPPER/case'))).toBeUndefined();
    expect(validationMessage(withImage(`quay.io:443/foo/bar:v1@sha256:${'0'.repeat(64)}`))).toBeUndefined();
    expect(validationMessage(withImage('localhost:5000/foo'))).toBeUndefined();
    expect(validationMessage(withImage('registry.redhat.io/ubi9/ubi-minimal'))).toBeUndefined();
  });

  it('checks related images with their index', () => {
    expect(validationMessage(withImage('quay.io/foo/bar:v1', 'quay.io/UPPER/case'))).toBe(
      'package "foo" bundle "foo.v0.1.0" relatedImages[0].image: invalid image pull spec "quay.io/UPPER/case": invalid reference format: repository name must be lowercase',
    );
  });
});

describe('deprecations (declcfg_to_model_test.go vectors)', () => {
  const base = [
    newTestPackage('foo', 'alpha', { properties: [{ type: 'owner', value: { group: 'abc.com', name: 'admin' } }] }),
    chFoo,
    newTestBundle('foo', '0.1.0'),
  ];
  const dep = (pkg: string, entries: unknown[] = []): Blob => ({ schema: 'olm.deprecations', package: pkg, entries });
  const ref = (schema: string, name: string | undefined, message: string): unknown => ({
    reference: name === undefined ? { schema } : { schema, name },
    message,
  });

  it.each<{ name: string; blobs: Blob[]; want: string | undefined }>([
    { name: 'Error/UnspecifiedPackage', blobs: [...base, { schema: 'olm.deprecations' }], want: 'package name must be set for deprecation item 0' },
    {
      name: 'Error/OutOfBoundsBundle',
      blobs: [...base, dep('foo', [ref('olm.bundle', 'foo.v2.0.0', "foo.v2.0.0 doesn't exist in the first place")])],
      want: 'cannot deprecate bundle "foo.v2.0.0" for package "foo": bundle not found',
    },
    { name: 'Error/OutOfBoundsPackage', blobs: [...base, dep('nyarl')], want: 'cannot apply deprecations to an unknown package "nyarl"' },
    {
      name: 'Error/MultiplePerPackage',
      blobs: [
        ...base,
        dep('foo', [ref('olm.channel', 'alpha', 'no more alpha channel')]),
        dep('foo', [ref('olm.bundle', 'foo.v0.1.0', 'foo.v0.1.0 is dead.  do another thing')]),
      ],
      want: 'expected a maximum of one deprecation per package: "foo"',
    },
    {
      name: 'Error/BadRefSchema',
      blobs: [...base, dep('foo', [ref('badschema', 'foo.v2.0.0', "foo.v2.0.0 doesn't exist in the first place")])],
      want: 'cannot deprecate object declcfg.PackageScopedReference{Schema:"badschema", Name:"foo.v2.0.0"} referenced by entry 0 for package "foo": object schema unknown',
    },
    {
      name: 'Error/DuplicateRef',
      blobs: [...base, dep('foo', [ref('olm.bundle', 'foo.v0.1.0', 'foo.v0.1.0 is bad'), ref('olm.bundle', 'foo.v0.1.0', 'foo.v0.1.0 is bad')])],
      want: 'duplicate deprecation entry declcfg.PackageScopedReference{Schema:"olm.bundle", Name:"foo.v0.1.0"} for package "foo"',
    },
    {
      name: 'Error/ChannelNotFound',
      blobs: [...base, dep('foo', [ref('olm.channel', 'beta', 'gone')])],
      want: 'cannot deprecate channel "beta" for package "foo": channel not found',
    },
    {
      name: 'Error/PackageNameNotEmpty',
      blobs: [...base, dep('foo', [ref('olm.package', 'foo', 'gone')])],
      want: 'package name must be empty for deprecated package "foo" (specified "foo")',
    },
    {
      name: 'Error/EntryWithoutSchema',
      blobs: [...base, dep('foo', [ref('olm.package', undefined, 'ok'), ref('', 'x', 'gone')])],
      want: 'schema must be set for deprecation entry [1] for package "foo"',
    },
    {
      name: 'Error/EmptyMessage',
      blobs: [...base, dep('foo', [ref('olm.channel', 'alpha', ''), ref('olm.package', undefined, '')])],
      want: [
        'invalid index:',
        '└── invalid package "foo":',
        '    ├── invalid channel "alpha":',
        '    │   └── invalid deprecation: message must be set',
        '    └── invalid deprecation: message must be set',
      ].join('\n'),
    },
    {
      name: 'Success/AllKinds',
      blobs: [
        ...base,
        dep('foo', [ref('olm.bundle', 'foo.v0.1.0', 'old'), ref('olm.channel', 'alpha', 'old'), ref('olm.package', undefined, 'old')]),
      ],
      want: undefined,
    },
  ])('$name', ({ blobs, want }) => {
    expect(validationMessage(blobs)).toBe(want);
  });
});

describe('bundle release (versionrelease)', () => {
  const withRelease = (name: string, version: string, release: string): Blob[] => [
    pkgFoo,
    newTestChannel('foo', 'alpha', { name }),
    plainBundle('foo', '0', { name, properties: [packageProperty('foo', version, release)] }),
  ];

  it('requires the normalized name <pkg>-v<version>-<release>', () => {
    expect(validationMessage(withRelease('foo.v0.1.0-alpha.1.0.0', '0.1.0', 'alpha.1.0.0'))).toBe(
      [
        'invalid index:',
        '└── invalid package "foo":',
        '    └── invalid channel "alpha":',
        '        └── invalid bundle "foo.v0.1.0-alpha.1.0.0":',
        '            └── name "foo.v0.1.0-alpha.1.0.0" does not match normalized name "foo-v0.1.0-alpha.1.0.0"',
      ].join('\n'),
    );
    expect(validationMessage(withRelease('foo-v0.1.0-alpha.1.0.0', '0.1.0', 'alpha.1.0.0'))).toBeUndefined();
  });

  it('rejects build metadata together with a release', () => {
    const msg = validationMessage(withRelease('foo-v0.1.0+alpha.1.0.0-0.0.1', '0.1.0+alpha.1.0.0', '0.0.1'));
    expect(msg).toContain('└── cannot use build metadata in version with a release version');
  });

  it('rejects malformed releases', () => {
    expect(validationMessage(withRelease('foo-v0.1.0-!!!', '0.1.0', '!!!'))).toBe(
      'error parsing bundle "foo-v0.1.0-!!!" release version "!!!": invalid release "!!!": segment 0: Invalid character(s) found in prerelease "!!!"',
    );
    const long = 'a'.repeat(21);
    expect(validationMessage(withRelease(`foo-v0.1.0-${long}`, '0.1.0', long))).toBe(
      `error parsing bundle "foo-v0.1.0-${long}" release version "${long}": invalid release "${long}": exceeds maximum length of 20 characters`,
    );
    expect(validationMessage(withRelease('foo-v0.1.0-1.01', '0.1.0', '1.01'))).toBe(
      'error parsing bundle "foo-v0.1.0-1.01" release version "1.01": invalid release "1.01": segment 1: Numeric PreRelease version must not contain leading zeroes "01"',
    );
  });
});

describe('model.Validate', () => {
  const tree = (pkg: string, channel: string, ...lines: string[]): string =>
    ['invalid index:', `└── invalid package "${pkg}":`, `    └── invalid channel "${channel}":`, ...lines.map((l) => `        ${l}`)].join('\n');

  it('multiple channel heads', () => {
    const blobs = [
      pkgFoo,
      newTestChannel('foo', 'alpha', { name: 'foo.v0.1.0' }, { name: 'foo.v0.2.0' }),
      plainBundle('foo', '0.1.0'),
      plainBundle('foo', '0.2.0'),
    ];
    expect(validationMessage(blobs)).toBe(tree('foo', 'alpha', '└── multiple channel heads found in graph: foo.v0.1.0, foo.v0.2.0'));
  });

  it('replaces cycle', () => {
    const blobs = [
      pkgFoo,
      newTestChannel(
        'foo',
        'alpha',
        { name: 'foo.v0.1.0', replaces: 'foo.v0.3.0' },
        { name: 'foo.v0.2.0', replaces: 'foo.v0.1.0' },
        { name: 'foo.v0.3.0', replaces: 'foo.v0.2.0' },
        { name: 'foo.v0.4.0', replaces: 'foo.v0.3.0' },
      ),
      ...['0.1.0', '0.2.0', '0.3.0', '0.4.0'].map((v) => plainBundle('foo', v)),
    ];
    expect(validationMessage(blobs)).toBe(
      tree('foo', 'alpha', '└── detected cycle in replaces chain of upgrade graph: foo.v0.3.0 -> foo.v0.2.0 -> foo.v0.1.0 -> foo.v0.3.0'),
    );
  });

  it('no channel head', () => {
    const blobs = [
      pkgFoo,
      newTestChannel('foo', 'alpha', { name: 'foo.v0.1.0', replaces: 'foo.v0.2.0' }, { name: 'foo.v0.2.0', replaces: 'foo.v0.1.0' }),
      plainBundle('foo', '0.1.0'),
      plainBundle('foo', '0.2.0'),
    ];
    expect(validationMessage(blobs)).toBe(tree('foo', 'alpha', '└── no channel head found in graph'));
  });

  it('bad skipRange and empty skips, all errors of a bundle together', () => {
    const blobs = [
      pkgFoo,
      newTestChannel(
        'foo',
        'alpha',
        { name: 'foo.v0.1.0' },
        { name: 'foo.v0.2.0', replaces: 'foo.v0.1.0', skips: [''], skipRange: '>v0.1.0' },
        { name: 'foo.v0.3.0', replaces: 'foo.v0.2.0', skipRange: '>1.00.1' },
      ),
      ...['0.1.0', '0.2.0', '0.3.0'].map((v) => plainBundle('foo', v)),
    ];
    expect(validationMessage(blobs)).toBe(
      tree(
        'foo',
        'alpha',
        '├── invalid bundle "foo.v0.2.0":',
        '│   ├── skip[0] is empty',
        '│   └── invalid skipRange ">v0.1.0": Could not parse Range ">v0.1.0": Could not parse comparator ">v" in ">v0.1.0"',
        '└── invalid bundle "foo.v0.3.0":',
        '    └── invalid skipRange ">1.00.1": Could not parse Range ">1.00.1": Could not parse version "1.00.1" in ">1.00.1": Minor number must not contain leading zeroes "00"',
      ),
    );
  });

  it('duplicate versions across channels', () => {
    const blobs = [
      newTestPackage('anakin', 'light'),
      newTestChannel('anakin', 'light', { name: 'anakin.v0.0.1' }, { name: 'anakin.v0.0.2', replaces: 'anakin.v0.0.1' }),
      newTestChannel('anakin', 'dark', { name: 'anakin.v1.0.1' }, { name: 'anakin.v1.0.2', replaces: 'anakin.v1.0.1' }),
      plainBundle('anakin', '0.0.1'),
      plainBundle('anakin', '0.0.2', { properties: [packageProperty('anakin', '0.0.1')] }),
      plainBundle('anakin', '1.0.1'),
      plainBundle('anakin', '1.0.2', { properties: [packageProperty('anakin', '1.0.1')] }),
    ];
    expect(validationMessage(blobs)).toBe(
      [
        'invalid index:',
        '└── invalid package "anakin":',
        '    └── duplicate versions found in bundles: [{0.0.1: [anakin.v0.0.1, anakin.v0.0.2]} {1.0.1: [anakin.v1.0.1, anakin.v1.0.2]}]',
      ].join('\n'),
    );
  });

  it('build metadata makes versions distinct', () => {
    const blobs = [
      pkgFoo,
      newTestChannel('foo', 'alpha', { name: 'a' }, { name: 'b', replaces: 'a' }),
      plainBundle('foo', '1', { name: 'a', properties: [packageProperty('foo', '1.0.0+1')] }),
      plainBundle('foo', '1', { name: 'b', properties: [packageProperty('foo', '1.0.0+2')] }),
    ];
    expect(validationMessage(blobs)).toBeUndefined();
  });

  it('several packages and channels are siblings in the tree, in name order', () => {
    const blobs = [
      newTestPackage('b', 'x'),
      newTestPackage('a', 'y'),
      newTestChannel('b', 'x'),
      newTestChannel('a', 'y'),
      newTestChannel('a', 'z'),
    ];
    expect(validationMessage(blobs)).toBe(
      [
        'invalid index:',
        '├── invalid package "a":',
        '│   ├── invalid channel "y":',
        '│   │   └── channel must contain at least one bundle',
        '│   └── invalid channel "z":',
        '│       └── channel must contain at least one bundle',
        '└── invalid package "b":',
        '    └── invalid channel "x":',
        '        └── channel must contain at least one bundle',
      ].join('\n'),
    );
  });

  it('a package without channels', () => {
    expect(validationMessage([newTestPackage('foo', '')])).toBe(
      ['invalid index:', '└── invalid package "foo":', '    ├── default channel must be set', '    └── package must contain at least one channel'].join('\n'),
    );
  });
});

describe('Channel.Head and validateReplacesChain (model_test.go vectors)', () => {
  const n = (name: string, replaces = '', skips: string[] = []): { name: string; replaces: string; skips: string[] } => ({ name, replaces, skips });
  const head = n('anakin.v0.0.3', 'anakin.v0.0.1', ['anakin.v0.0.2']);

  it('finds the head', () => {
    expect(channelHead([n('anakin.v0.0.1'), n('anakin.v0.0.2'), head])).toEqual({ head: 'anakin.v0.0.3' });
    expect(channelHead([n('anakin.v0.0.1', 'anakin.v0.0.3'), head])).toEqual({ error: 'no channel head found in graph' });
    expect(channelHead([n('anakin.v0.0.1'), head, n('anakin.v0.0.4', 'anakin.v0.0.1')])).toEqual({
      error: 'multiple channel heads found in graph: anakin.v0.0.3, anakin.v0.0.4',
    });
  });

  it.each([
    { name: 'Success/Valid', nodes: [n('anakin.v0.0.1'), n('anakin.v0.0.2', '', ['anakin.v0.0.1']), n('anakin.v0.0.3', '', ['anakin.v0.0.2']), n('anakin.v0.0.4', 'anakin.v0.0.3')], want: undefined },
    {
      name: 'Error/CycleNoHops',
      nodes: [n('anakin.v0.0.4', 'anakin.v0.0.4'), n('anakin.v0.0.5', 'anakin.v0.0.4')],
      want: 'detected cycle in replaces chain of upgrade graph: anakin.v0.0.4 -> anakin.v0.0.4',
    },
    {
      name: 'Error/CycleMultipleHops',
      nodes: [n('anakin.v0.0.1', 'anakin.v0.0.3'), n('anakin.v0.0.2', 'anakin.v0.0.1'), n('anakin.v0.0.3', 'anakin.v0.0.2'), n('anakin.v0.0.4', 'anakin.v0.0.3')],
      want: 'detected cycle in replaces chain of upgrade graph: anakin.v0.0.3 -> anakin.v0.0.2 -> anakin.v0.0.1 -> anakin.v0.0.3',
    },
    {
      name: 'Error/Stranded',
      nodes: [n('anakin.v0.0.1'), n('anakin.v0.0.2', 'anakin.v0.0.1'), n('anakin.v0.0.3', '', ['anakin.v0.0.2'])],
      want: 'channel contains one or more stranded bundles: anakin.v0.0.1',
    },
    {
      name: 'Success/ReplacesSkippedEntry',
      nodes: [n('a.v1'), n('a.v2', 'a.v1'), n('a.v3', 'a.v2', ['a.v2'])],
      want: 'channel contains one or more stranded bundles: a.v1',
    },
    { name: 'Success/TailReplacesMissing', nodes: [n('a.v2', 'a.v1'), n('a.v3', 'a.v2')], want: undefined },
  ])('$name', ({ nodes, want }) => {
    expect(replacesChainError(nodes)).toBe(want);
  });
});
