// The CatalogSource controller (internal/classic/catalogsource) in process against the real cluster,
// the real registry (the demo catalog pushed with the project's publish code) and a real `opm serve`.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import { catalogSourceSetup, configMapUnsupportedMessage, findPackage, type CatalogSourceParts } from '../../../internal/classic/catalogsource/index.ts';
import { KubeClient } from '../../../internal/shared/kube/index.ts';
import { createMetrics, type Metrics } from '../../../internal/shared/observability/index.ts';
import { installClassicCRDs } from '../../support/crds.ts';
import { DEMO_CATALOG, pushCatalogDir } from '../../support/demo.ts';
import { adminKube, controlPlane, registry } from '../../support/env.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { capturedLogger, inProcessManagerOptions, runParts } from '../../support/in-process.ts';
import { TestKube } from '../../support/kube.ts';
import { freePort, waitFor } from '../../support/net.ts';
import { OpmServe } from '../../support/opm.ts';

let ns: string;
let parts: CatalogSourceParts;
let metrics: Metrics;
let run: { stop(): Promise<void> };
const kube = (): TestKube => adminKube();

beforeAll(async () => {
  await installClassicCRDs(kube());
  ns = await kube().namespace('classic-cs');
  const { logger } = capturedLogger('olm-classic', 'CLASSIC_TEST_LOG');
  const client = await KubeClient.fromConfig({ kubeconfig: controlPlane().kubeconfigPath });
  const sandbox = await mkdtemp(join(tmpdir(), 'olm-classic-'));
  metrics = createMetrics({ defaultMetrics: false });
  parts = await catalogSourceSetup({
    globalCatalogNamespace: 'olm',
    cacheDir: sandbox,
    insecureRegistries: [registry().host],
    registryClient: { channelOptions: { 'grpc.initial_reconnect_backoff_ms': 200, 'grpc.max_reconnect_backoff_ms': 1000 } },
    notReadyRecheckMs: 1000,
  })({ options: inProcessManagerOptions('olm-classic-test'), client, logger, metrics });
  run = await runParts(parts, { client, sandbox });
}, 120_000);
afterAll(async () => {
  await run?.stop();
  if (ns) await kube().request('DELETE', `/api/v1/namespaces/${ns}`);
});

let seq = 0;
async function createCatalogSource(spec: ops.CatalogSourceSpec): Promise<string> {
  const name = `cs-${seq++}`;
  const obj = { apiVersion: ops.V1alpha1, kind: ops.CatalogSourceKind, metadata: { name, namespace: ns }, spec };
  await kube().must(kube().request('POST', TestKube.path(ops.V1alpha1, ops.CatalogSourceResource, undefined, ns), obj));
  return name;
}
async function statusOf(name: string): Promise<ops.CatalogSourceStatus> {
  const cs = await kube().must<ops.CatalogSource>(kube().request('GET', TestKube.path(ops.V1alpha1, ops.CatalogSourceResource, name, ns)));
  return cs.status ?? {};
}
async function waitForStatus(name: string, what: string, ok: (s: ops.CatalogSourceStatus) => boolean, timeoutMs = 60_000): Promise<ops.CatalogSourceStatus> {
  let last: ops.CatalogSourceStatus = {};
  await waitFor(
    `CatalogSource ${name}: ${what}`,
    async () => {
      last = await statusOf(name);
      return ok(last);
    },
    { timeoutMs },
  );
  return last;
}
const state = (s: ops.CatalogSourceStatus): string | undefined => s.connectionState?.lastObservedState;
async function metricText(): Promise<string> {
  return metrics.registry.metrics();
}

/** Passes of the CatalogSource controller so far (every CatalogSource's). */
async function reconciles(): Promise<number> {
  let n = 0;
  for (const m of (await metricText()).matchAll(/^controller_runtime_reconcile_total\{([^}]*)\} (\d+)$/gm)) if (m[1]!.includes('controller="catalogsource"')) n += Number(m[2]);
  return n;
}

/**
 * A catalog that parses but that opm validate (and so `opm serve`) refuses: the stable channel's second entry names
 * a bundle the catalog does not have. The channel is document 2 of catalog.yaml, its content from line 6.
 */
const brokenCatalog = [
  '---',
  'schema: olm.package',
  'name: broken-operator',
  'defaultChannel: stable',
  '---',
  'schema: olm.channel',
  'package: broken-operator',
  'name: stable',
  'entries:',
  '  - name: broken-operator.v0.1.0',
  '  - name: broken-operator.v0.2.0',
  '    replaces: broken-operator.v0.1.0',
  '---',
  'schema: olm.bundle',
  'name: broken-operator.v0.1.0',
  'package: broken-operator',
  'image: quay.io/example/broken-operator-bundle:v0.1.0',
  'properties:',
  '  - type: olm.package',
  '    value: {packageName: broken-operator, version: 0.1.0}',
  '',
].join('\n');
const brokenProblem =
  'catalog.yaml: document 2 (line 6), olm.channel "stable": no olm.bundle blobs found in package "broken-operator" for olm.channel entries [broken-operator.v0.2.0]';
const pushBroken = async (tag: string): Promise<string> => (await pushCatalogImage(registry(), `classic/${tag}`, { files: { 'catalog.yaml': brokenCatalog } })).digestRef;

const pushDemo = (tag: string): Promise<string> => pushCatalogDir(registry().host, `classic/${tag}`);

describe('CatalogSource', () => {
  it('spec.image: READY, the demo catalog’s content loaded in memory, metrics set', async () => {
    await pushDemo('demo:v1');
    const name = await createCatalogSource({ sourceType: 'grpc', image: `${registry().host}/classic/demo:v1` });
    const s = await waitForStatus(name, 'READY', (x) => state(x) === ops.ConnectionStateReady);
    expect(s.reason).toBeUndefined();
    expect(s.connectionState?.lastConnect).toMatch(/^\d{4}-/);
    const content = parts.contents.get(ns, name)!;
    expect(content.origin).toMatch(new RegExp(`^${registry().host}/classic/demo@sha256:`));
    const pkg = findPackage(content, 'demo-operator')!;
    expect(pkg.channels.find((c) => c.name === 'stable')?.entries.map((e) => e.name)).toContain('demo-operator.v0.3.0');
    const b = content.bundles.find((x) => x.name === 'demo-operator.v0.3.0')!;
    expect(b.version).toBe('0.3.0');
    expect(JSON.parse(b.properties.find((p) => p.type === 'olm.package')!.value)).toEqual({ packageName: 'demo-operator', version: '0.3.0' });
    const text = await metricText();
    expect(text).toContain(`catalogsource_ready{namespace="${ns}",name="${name}"} 1`);
    expect(text).toContain(`catalog_source_snapshots_total{namespace="${ns}",name="${name}"} 1`);
    expect(text).toMatch(/^catalog_source_count \d+$/m);
  });

  it('spec.image missing from the registry: TRANSIENT_FAILURE with a one-line message', async () => {
    const name = await createCatalogSource({ sourceType: 'grpc', image: `${registry().host}/classic/absent:v1` });
    const s = await waitForStatus(name, 'TRANSIENT_FAILURE', (x) => state(x) === ops.ConnectionStateTransientFailure);
    expect(s.reason).toBe(ops.CatalogSourceRegistryServerError);
    expect(s.message).toBeTruthy();
    expect(s.message).not.toContain('\n');
    expect(parts.contents.get(ns, name)).toBeUndefined();
    expect(await metricText()).toContain(`catalogsource_ready{namespace="${ns}",name="${name}"} 0`);
  });

  it('registryPoll: a new digest pushed under the tag is loaded after the interval', async () => {
    await pushDemo('poll:latest');
    const name = await createCatalogSource({ sourceType: 'grpc', image: `${registry().host}/classic/poll:latest`, updateStrategy: { registryPoll: { interval: '5s' } } });
    const first = await waitForStatus(name, 'READY', (x) => state(x) === ops.ConnectionStateReady);
    expect(first.latestImageRegistryPoll).toMatch(/^\d{4}-/);
    const before = parts.contents.get(ns, name)!.origin;
    // A different catalog under the same tag: the demo catalog plus one blob of a custom schema.
    const { writeFile, cp } = await import('node:fs/promises');
    const dir = await mkdtemp(join(tmpdir(), 'classic-poll-'));
    await cp(DEMO_CATALOG, dir, { recursive: true });
    await writeFile(join(dir, 'extra.yaml'), 'schema: example.classic-test\nname: second-push\n');
    const pushed = await pushCatalogDir(registry().host, 'classic/poll:latest', dir);
    await waitFor('the new digest loaded', async () => parts.contents.get(ns, name)?.origin === pushed, { timeoutMs: 30_000 });
    expect(pushed).not.toBe(before);
    expect(findPackage(parts.contents.get(ns, name)!, 'demo-operator')).toBeDefined();
    // The content is swapped during the poll's reconcile; its status (with the poll's time) is written at the end of it.
    let later = first.latestImageRegistryPoll;
    await waitFor('the poll recorded in status', async () => (later = (await statusOf(name)).latestImageRegistryPoll) !== first.latestImageRegistryPoll, { timeoutMs: 30_000 });
    expect(Date.parse(later!)).toBeGreaterThan(Date.parse(first.latestImageRegistryPoll!));
  });

  it('registryPoll with an unparsable interval: upstream’s InvalidIntervalError message, still READY', async () => {
    await pushDemo('demo:v1');
    const name = await createCatalogSource({ sourceType: 'grpc', image: `${registry().host}/classic/demo:v1`, updateStrategy: { registryPoll: { interval: 'soon' } } });
    const s = await waitForStatus(name, 'InvalidIntervalError', (x) => x.reason === ops.CatalogSourceIntervalInvalidError);
    expect(s.message).toBe('error parsing spec.updateStrategy.registryPoll.interval. Using the default value of 15m0s instead. Error: time: invalid duration "soon"');
    expect(state(s)).toBe(ops.ConnectionStateReady);
  });

  it('a structurally invalid catalog is refused: never READY, nothing served, the message names the file and the rule', async () => {
    const digestRef = await pushBroken('broken:v1');
    const name = await createCatalogSource({ sourceType: 'grpc', image: `${registry().host}/classic/broken:v1` });
    // As upstream's registry Pod whose `opm serve` refuses the catalog: the connection never becomes READY.
    const s = await waitForStatus(name, 'a connection state', (x) => state(x) !== undefined);
    expect(state(s)).toBe(ops.ConnectionStateTransientFailure);
    expect(s.reason).toBe(ops.CatalogSourceRegistryServerError);
    expect(s.message).toBe(`catalog image ${digestRef} refused: ${brokenProblem}`);
    // Still so after more passes (re-checked every second here).
    const passes = await reconciles();
    await waitFor('three more passes', async () => (await reconciles()) >= passes + 3, { timeoutMs: 30_000 });
    const later = await statusOf(name);
    expect(state(later)).toBe(ops.ConnectionStateTransientFailure);
    expect(later.message).toBe(s.message);
    expect(parts.contents.get(ns, name)).toBeUndefined();
    expect(await metricText()).toContain(`catalogsource_ready{namespace="${ns}",name="${name}"} 0`);
  });

  it('good content, then invalid content: still READY and serving the good content, the refusal in the message', async () => {
    const good = await pushDemo('update:latest');
    const name = await createCatalogSource({ sourceType: 'grpc', image: `${registry().host}/classic/update:latest`, updateStrategy: { registryPoll: { interval: '5s' } } });
    const first = await waitForStatus(name, 'READY', (x) => state(x) === ops.ConnectionStateReady);
    expect(first.message).toBeUndefined();
    expect(parts.contents.get(ns, name)?.origin).toBe(good);

    // The tag now points at content opm would refuse: the poll finds it and refuses it.
    const broken = await pushBroken('update:latest');
    const polled = await waitForStatus(name, 'the refusal', (x) => x.message !== undefined, 30_000);
    expect(polled.message).toBe(`catalog image ${broken} refused: ${brokenProblem}; serving the last good content, ${good}`);
    expect(polled.reason).toBe(ops.CatalogSourceRegistryServerError);
    expect(state(polled)).toBe(ops.ConnectionStateReady);
    expect(polled.connectionState?.lastConnect).toBe(first.connectionState?.lastConnect);
    expect(parts.contents.get(ns, name)?.origin).toBe(good);
    expect(findPackage(parts.contents.get(ns, name)!, 'demo-operator')).toBeDefined();
    expect(findPackage(parts.contents.get(ns, name)!, 'broken-operator')).toBeUndefined();
    expect(await metricText()).toContain(`catalogsource_ready{namespace="${ns}",name="${name}"} 1`);
    // The next poll refuses it again and keeps the message (it is not lost between polls).
    await waitFor('the next poll', async () => (await statusOf(name)).latestImageRegistryPoll !== polled.latestImageRegistryPoll, { timeoutMs: 30_000 });
    const again = await statusOf(name);
    expect(state(again)).toBe(ops.ConnectionStateReady);
    expect(again.message).toBe(polled.message);

    // spec.image changed to an image whose catalog does not parse: refused too, the good content still served.
    const unparsable = (await pushCatalogImage(registry(), 'classic/unparsable:v1', { files: { 'catalog.yaml': 'schema: olm.package\nname: [unclosed\n' } })).digestRef;
    const cs = await kube().must<ops.CatalogSource>(kube().request('GET', TestKube.path(ops.V1alpha1, ops.CatalogSourceResource, name, ns)));
    cs.spec.image = `${registry().host}/classic/unparsable:v1`;
    await kube().must(kube().request('PUT', TestKube.path(ops.V1alpha1, ops.CatalogSourceResource, name, ns), cs));
    const changed = await waitForStatus(name, 'the new image refused', (x) => x.message?.startsWith(`catalog image ${unparsable} refused: catalog.yaml: `) ?? false);
    expect(changed.message).toMatch(new RegExp(`; serving the last good content, ${good.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    expect(changed.message).not.toContain('\n');
    expect(state(changed)).toBe(ops.ConnectionStateReady);
    expect(parts.contents.get(ns, name)?.origin).toBe(good);
  });

  describe('spec.address against a real opm serve', () => {
    const opm = new OpmServe(DEMO_CATALOG);
    afterAll(() => opm.stop());

    it('READY, registryService grpc, content read over gRPC in the same shape', async () => {
      const { address } = await opm.start();
      const name = await createCatalogSource({ sourceType: 'grpc', address });
      const s = await waitForStatus(name, 'READY', (x) => state(x) === ops.ConnectionStateReady);
      expect(s.connectionState?.address).toBe(address);
      expect(s.registryService?.protocol).toBe('grpc');
      await waitFor('content read', async () => parts.contents.get(ns, name) !== undefined, { timeoutMs: 20_000 });
      const content = parts.contents.get(ns, name)!;
      expect(content.origin).toBe(address);
      const stable = findPackage(content, 'demo-operator')!.channels.find((c) => c.name === 'stable')!;
      expect(stable.entries.map((e) => e.name).sort()).toEqual(['demo-operator.v0.1.0', 'demo-operator.v0.2.0', 'demo-operator.v0.3.0']);
      expect(content.bundles.find((b) => b.name === 'demo-operator.v0.3.0')?.version).toBe('0.3.0');
    });

    it('an address refusing connections: TRANSIENT_FAILURE, then READY once a server listens there', async () => {
      const port = await freePort();
      const address = `127.0.0.1:${port}`;
      const name = await createCatalogSource({ sourceType: 'grpc', address });
      await waitForStatus(name, 'TRANSIENT_FAILURE', (x) => state(x) === ops.ConnectionStateTransientFailure);
      const server = new OpmServe(DEMO_CATALOG, port);
      try {
        await server.start();
        const s = await waitForStatus(name, 'READY', (x) => state(x) === ops.ConnectionStateReady);
        expect(s.connectionState?.address).toBe(address);
      } finally {
        await server.stop();
      }
    });
  });

  it('sourceType configmap: a status message that it is unsupported, nothing else', async () => {
    const name = await createCatalogSource({ sourceType: 'configmap', configMap: 'legacy-catalog' });
    const s = await waitForStatus(name, 'unsupported', (x) => x.reason !== undefined);
    expect(s).toEqual({ reason: ops.CatalogSourceConfigMapError, message: configMapUnsupportedMessage('configmap') });
  });

  it('an invalid source type: upstream’s SpecInvalidError message', async () => {
    const name = await createCatalogSource({ sourceType: 'grpc' });
    const s = await waitForStatus(name, 'SpecInvalidError', (x) => x.reason !== undefined);
    expect(s).toEqual({ reason: ops.CatalogSourceSpecInvalidError, message: 'image and address unset: at least one must be set for sourcetype: grpc' });
  });
});
