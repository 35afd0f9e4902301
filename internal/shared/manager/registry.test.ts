import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseManagerArgs, UsageError } from './options.ts';
import { registriesConfFile, registryFlags, registryOptions, type RegistryFlagValues } from './registry.ts';

const values = (v: Partial<RegistryFlagValues> = {}): RegistryFlagValues => ({
  'global-pull-secret': undefined,
  'pull-cas-dir': undefined,
  'insecure-registries': '',
  'registries-conf': undefined,
  ...v,
});

function usageError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('expected a UsageError');
}

describe('--registries-conf', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'registries-flag-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('defaults to $CONTAINERS_REGISTRIES_CONF, else the system file when it exists; "" turns it off', () => {
    expect(registriesConfFile(undefined, { env: {} })).toEqual({ file: '/etc/containers/registries.conf', required: false });
    expect(registriesConfFile(undefined, { env: { CONTAINERS_REGISTRIES_CONF: '/conf/r.conf' } })).toEqual({
      file: '/conf/r.conf',
      required: true,
      from: 'env CONTAINERS_REGISTRIES_CONF',
    });
    expect(registriesConfFile('/x/registries.conf', { env: { CONTAINERS_REGISTRIES_CONF: '/conf/r.conf' } })).toEqual({ file: '/x/registries.conf', required: true });
    expect(registriesConfFile('', {})).toEqual({ file: '', required: true });
  });

  it('reads the file and its drop-ins into the options; an empty configuration is none', async () => {
    const file = join(dir, 'registries.conf');
    await writeFile(file, '[[registry]]\nprefix = "mirrored.example:5000"\nlocation = "real.example:5000"\n');
    await mkdir(join(dir, 'registries.conf.d'));
    await writeFile(join(dir, 'registries.conf.d', 'z.conf'), '[[registry]]\nlocation = "quay.io"\n[[registry.mirror]]\nlocation = "mirror.example/quay"\n');
    const o = registryOptions('catalogd', values({ 'registries-conf': file }), { env: {} });
    expect(o.registriesConf?.files).toEqual([file, join(dir, 'registries.conf.d', 'z.conf')]);
    expect(o.registriesConf?.registries.map((r) => r.prefix)).toEqual(['mirrored.example:5000', 'quay.io']);

    // The default file may be missing; the system one is read like any other.
    expect(registryOptions('catalogd', values(), { env: {}, systemFile: join(dir, 'missing', 'registries.conf') })).toEqual({ insecureRegistries: [] });
    expect(registryOptions('catalogd', values(), { env: {}, systemFile: file }).registriesConf?.registries).toHaveLength(2);
    expect(registryOptions('catalogd', values(), { env: { CONTAINERS_REGISTRIES_CONF: file } }).registriesConf?.registries).toHaveLength(2);
    expect(registryOptions('catalogd', values({ 'registries-conf': '' }), { env: { CONTAINERS_REGISTRIES_CONF: file } })).toEqual({ insecureRegistries: [] });
    await mkdir(join(dir, 'other'));
    await writeFile(join(dir, 'other', 'empty.conf'), '# nothing\n');
    expect(registryOptions('catalogd', values({ 'registries-conf': join(dir, 'other', 'empty.conf') }))).toEqual({ insecureRegistries: [] });
  });

  it('stops the binary with one line naming the file (and line) when a named file is missing or bad', async () => {
    const missing = join(dir, 'nope.conf');
    expect(usageError(() => registryOptions('operator-controller', values({ 'registries-conf': missing })))).toBe(
      `operator-controller: --registries-conf: loading registries configuration ${JSON.stringify(missing)}: no such file or directory`,
    );
    expect(usageError(() => registryOptions('olm-classic', values(), { env: { CONTAINERS_REGISTRIES_CONF: missing } }))).toBe(
      `olm-classic: --registries-conf (env CONTAINERS_REGISTRIES_CONF): loading registries configuration ${JSON.stringify(missing)}: no such file or directory`,
    );
    const bad = join(dir, 'bad.conf');
    await writeFile(bad, '[[registry]]\nprefix = "a.example"\nlocation = "b.example"\n\n[[registry.mirror]]\nlocation = "m.example"\npull-from-mirror = "never"\n');
    expect(usageError(() => registryOptions('catalogd', values({ 'registries-conf': bad })))).toBe(
      `catalogd: --registries-conf: loading registries configuration ${JSON.stringify(bad)}: line 7: unsupported pull-from-mirror value "never" for mirror "m.example" (all, digest-only or tag-only)`,
    );
    // A bad default drop-in stops it too.
    await mkdir(join(dir, 'registries.conf.d'));
    await writeFile(join(dir, 'registries.conf.d', 'x.conf'), '[[registry]\n');
    expect(usageError(() => registryOptions('catalogd', values(), { env: {}, systemFile: join(dir, 'registries.conf') }))).toMatch(
      /^catalogd: --registries-conf: loading drop-in registries configuration ".*x\.conf": line 1: .+$/,
    );
  });

  it('is in the help of every binary that spreads registryFlags', () => {
    const help = parseManagerArgs('catalogd', ['--help'], registryFlags).help ?? '';
    expect(help).toContain('--registries-conf');
    expect(help).toContain('CONTAINERS_REGISTRIES_CONF');
  });
});
