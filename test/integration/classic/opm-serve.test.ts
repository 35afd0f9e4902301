// The registry gRPC client against a real `opm serve` (operator-registry, built by test/envtest/build.sh)
// serving the demo catalog: every call of the client answers what the FBC files say.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryClient, RegistryStatus } from '../../../internal/classic/registryclient/index.ts';
import { OpmServe } from '../../support/opm.ts';

const catalogDir = fileURLToPath(new URL('../../../demo/catalog', import.meta.url));
const pkgDir = `${catalogDir}/demo-operator`;
type Blob = { schema: string; name: string; package?: string; defaultChannel?: string; image?: string; entries?: { name: string; replaces?: string; skipRange?: string }[] };
const blobs = readdirSync(pkgDir)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((f) => yaml.loadAll(readFileSync(`${pkgDir}/${f}`, 'utf8')) as Blob[])
  .filter((b) => b != null);
const pkg = blobs.find((b) => b.schema === 'olm.package')!;
const channels = blobs.filter((b) => b.schema === 'olm.channel');
const bundles = blobs.filter((b) => b.schema === 'olm.bundle');
const stable = channels.find((c) => c.name === 'stable')!;

const server = new OpmServe(catalogDir);
let client: RegistryClient;

beforeAll(async () => {
  const { address } = await server.start();
  client = new RegistryClient(address);
});
afterAll(async () => {
  client?.close();
  await server.stop();
});

describe('opm serve with the demo catalog', () => {
  it('ListPackages returns the demo package', async () => {
    expect(await client.listPackages()).toEqual([pkg.name]);
  });

  it('GetPackage returns its channels with their heads and the default channel', async () => {
    const p = await client.getPackage(pkg.name);
    expect(p.name).toBe('demo-operator');
    expect(p.defaultChannelName).toBe(pkg.defaultChannel);
    expect(p.channels.map((c) => c.name).sort()).toEqual(channels.map((c) => c.name).sort());
    expect(p.channels.find((c) => c.name === 'stable')?.csvName).toBe('demo-operator.v0.3.0');
    expect(p.channels.find((c) => c.name === 'candidate')?.csvName).toBe('demo-operator.v0.4.0');
  });

  it('GetBundleForChannel returns the channel head with its image, without upgrade edges (as upstream)', async () => {
    const b = await client.getBundleForChannel(pkg.name, 'stable');
    expect(b.csvName).toBe('demo-operator.v0.3.0');
    // opm's cache blanks replaces/skips on single-bundle lookups (parity with its old sqlite backend);
    // the edges come from ListBundles.
    expect(b.replaces).toBe('');
    expect(b.skips).toEqual([]);
    expect(b.bundlePath).toBe(bundles.find((x) => x.name === b.csvName)?.image);
    expect(b.version).toBe('0.3.0');
    expect(b.providedApis).toEqual([{ group: 'demo.olm.dev', version: 'v1alpha1', kind: 'Greeting', plural: '' }]);
  });

  it('GetBundle returns one bundle of a channel with its properties', async () => {
    const b = await client.getBundle(pkg.name, 'stable', 'demo-operator.v0.2.0');
    expect(b.csvName).toBe('demo-operator.v0.2.0');
    expect(b.channelName).toBe('stable');
    expect(b.replaces).toBe('');
    expect(b.deprecation?.message).toMatch(/^demo-operator.v0.2.0 is deprecated/);
    expect(b.properties.map((p) => p.type)).toContain('olm.package');
    expect(JSON.parse(b.properties.find((p) => p.type === 'olm.package')!.value)).toEqual({ packageName: 'demo-operator', version: '0.2.0' });
  });

  it('ListBundles returns every bundle once per channel it is in, with its upgrade edges', async () => {
    const listed = await client.listBundles();
    const edges = (r?: string, sr?: string): string => `replaces=${r ?? ''} skipRange=${sr ?? ''}`;
    const expected = channels.flatMap((c) => c.entries!.map((e) => `${c.name}/${e.name} ${edges(e.replaces, e.skipRange)}`)).sort();
    expect(listed.map((b) => `${b.channelName}/${b.csvName} ${edges(b.replaces, b.skipRange)}`).sort()).toEqual(expected);
    expect(stable.entries).toHaveLength(3);
  });

  it('GetReplacementBundleInChannel follows replaces', async () => {
    const b = await client.getReplacementBundleInChannel('demo-operator.v0.3.0', pkg.name, 'candidate');
    expect(b.csvName).toBe('demo-operator.v0.4.0');
  });

  it('a package the catalog does not have is an UNKNOWN error naming it (opm does not use NOT_FOUND)', async () => {
    await expect(client.getPackage('no-such-package')).rejects.toMatchObject({
      code: RegistryStatus.UNKNOWN,
      details: 'package "no-such-package" not found',
    });
  });
});
