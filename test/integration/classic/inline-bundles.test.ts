// Bundles without an image, installed from the objects their catalog carries, as upstream's catalog operator does
// (operator-registry: declcfg readBundleObjects + api.ConvertModelBundleToAPIBundle, opm serve's ListBundles sending
// csvJson and object only for a bundle without an image; operator-lifecycle-manager: resolver/source_registry.go
// newOperatorFromBundle keeps the api.Bundle when BundlePath is "", step_resolver.go ResolveSteps turns it into
// steps with steps.go NewStepsFromBundle, no unpacking; a bundle with an image is unpacked even when its objects are
// in the catalog too). The catalog is rendered as `opm render` renders a bundle (every manifest an
// olm.bundle.object), without `image`; served from a catalog image (spec.image) and by a real `opm serve`
// (spec.address). The CatalogSource, Subscription and InstallPlan setups of olm-classic run in process; the
// OperatorGroup's status is written as its controller would.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import { catalogSourceSetup } from '../../../internal/classic/catalogsource/index.ts';
import { installPlanSetup } from '../../../internal/classic/installplan/index.ts';
import { subscriptionSetup } from '../../../internal/classic/subscription/index.ts';
import { formatTime } from '../../../internal/shared/controller/index.ts';
import { KubeClient } from '../../../internal/shared/kube/index.ts';
import { mergeParts } from '../../../internal/shared/manager/index.ts';
import { createMetrics } from '../../../internal/shared/observability/index.ts';
import { bundleName, pushTestBundle, renderedBundleBlob, type TestBundleSpec } from '../../support/bundles.ts';
import { installClassicCRDs } from '../../support/crds.ts';
import { adminKube, controlPlane, registry, testNamespaces } from '../../support/env.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { createImageCatalogSource, createSubscription } from '../../support/classic-olm.ts';
import { capturedLogger, inProcessManagerOptions, runParts, type LogLine } from '../../support/in-process.ts';
import { TestKube, type KubeObject } from '../../support/kube.ts';
import { waitFor } from '../../support/net.ts';
import { OpmServe } from '../../support/opm.ts';

const kube = (): TestKube => adminKube();
const namespaces = testNamespaces();
const clusterPaths: string[] = [];
let run: { stop(): Promise<void> } | undefined;
let opm: OpmServe | undefined;
let catalogNs: string;
let logs: LogLine[] = [];

const inline: TestBundleSpec = { packageName: 'inl-op', version: '1.0.0' };
const both: TestBundleSpec = { packageName: 'inl-both', version: '1.0.0' };
/** A manifest only the catalog's objects have: installing it would show the objects were used instead of the image. */
const catalogOnly = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'only-in-the-catalog' }, data: { a: 'b' } };

/** One package's FBC files: the package, a `stable` channel with the bundle, the bundle blob. */
function packageFiles(spec: TestBundleSpec, blob: Record<string, unknown>): Record<string, object> {
  const pkg = spec.packageName;
  return {
    [`${pkg}/package.json`]: { schema: 'olm.package', name: pkg, defaultChannel: 'stable' },
    [`${pkg}/channel.json`]: { schema: 'olm.channel', name: 'stable', package: pkg, entries: [{ name: bundleName(pkg, spec.version) }] },
    [`${pkg}/bundle.json`]: blob,
  };
}

beforeAll(async () => {
  await installClassicCRDs(kube());
  catalogNs = await namespaces.create('inl-cat');
  // `both`: an image and, in the catalog, its objects plus one more
  const pushed = await pushTestBundle(registry(), both);
  const files = {
    ...packageFiles(inline, renderedBundleBlob(inline)),
    ...packageFiles(both, renderedBundleBlob(both, { image: pushed.image, extraObjects: [catalogOnly] })),
  };
  const image = await pushCatalogImage(registry(), 'classic-inline/catalog:v1', { files });
  await createImageCatalogSource(catalogNs, 'inline-img', image.digestRef);
  const dir = await mkdtemp(join(tmpdir(), 'classic-inline-opm-'));
  for (const [file, obj] of Object.entries(files)) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), JSON.stringify(obj));
  }
  opm = new OpmServe(dir);
  const { address } = await opm.start();
  await kube().must(
    kube().request('POST', TestKube.path(ops.V1alpha1, ops.CatalogSourceResource, undefined, catalogNs), {
      apiVersion: ops.V1alpha1,
      kind: ops.CatalogSourceKind,
      metadata: { name: 'inline-grpc', namespace: catalogNs },
      spec: { sourceType: 'grpc', address },
    }),
  );
  clusterPaths.push(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.inl-op.example.com`, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.inl-both.example.com`);

  const captured = capturedLogger('olm-classic', 'CLASSIC_TEST_LOG');
  logs = captured.logs;
  const client = await KubeClient.fromConfig({ kubeconfig: controlPlane().kubeconfigPath });
  const sandbox = await mkdtemp(join(tmpdir(), 'olm-classic-inline-'));
  const ctx = { options: inProcessManagerOptions('olm-classic-inline'), client, logger: captured.logger, metrics: createMetrics({ defaultMetrics: false }) };
  const cat = await catalogSourceSetup({ globalCatalogNamespace: catalogNs, cacheDir: sandbox, insecureRegistries: [registry().host] })(ctx);
  const subs = await subscriptionSetup({ globalCatalogNamespace: catalogNs, cacheDir: sandbox, catalogSources: cat.catalogSources, contents: cat.contents, registry: cat.registry })(ctx);
  const ips = await installPlanSetup({ operatorNamespace: catalogNs, retryTimeoutMs: 60_000 })(ctx);
  run = await runParts(mergeParts(cat, subs, ips), { client, sandbox });
  await waitFor('both catalogs loaded', async () => cat.contents.get(catalogNs, 'inline-img') !== undefined && cat.contents.get(catalogNs, 'inline-grpc') !== undefined, { timeoutMs: 60_000 });
}, 240_000);

afterAll(async () => {
  await run?.stop();
  await opm?.stop();
  for (const path of clusterPaths) await kube().request('DELETE', path);
});

const get = async <T = KubeObject>(path: string): Promise<T | undefined> => {
  const r = await kube().request<T>('GET', path);
  return r.status === 200 ? r.body : undefined;
};

/** A namespace with one OperatorGroup targeting it, its status written as the OperatorGroup controller would. */
async function namespaceWithGroup(prefix: string): Promise<string> {
  const ns = await namespaces.create(prefix);
  const og = await kube().must<KubeObject>(
    kube().request('POST', TestKube.path(ops.V1, ops.OperatorGroupResource, undefined, ns), { apiVersion: ops.V1, kind: ops.OperatorGroupKind, metadata: { name: 'og', namespace: ns }, spec: { targetNamespaces: [ns] } }),
  );
  await kube().must(kube().request('PUT', `${TestKube.path(ops.V1, ops.OperatorGroupResource, 'og', ns)}/status`, { ...og, status: { lastUpdated: formatTime(new Date()), namespaces: [ns] } }));
  return ns;
}

/** Subscribes to `spec`'s package from `source` and waits for its InstallPlan to be Complete. */
async function install(ns: string, spec: TestBundleSpec, source: string): Promise<ops.InstallPlan> {
  await createSubscription(ns, 'sub', { source, sourceNamespace: catalogNs, name: spec.packageName, channel: 'stable' });
  let last: ops.Subscription | undefined;
  let plan: ops.InstallPlan | undefined;
  try {
    await waitFor(
      `${ns}: the plan of ${spec.packageName} Complete`,
      async () => {
        last = await get<ops.Subscription>(TestKube.path(ops.V1alpha1, ops.SubscriptionResource, 'sub', ns));
        const ref = last?.status?.installPlanRef?.name;
        plan = ref ? await get<ops.InstallPlan>(TestKube.path(ops.V1alpha1, ops.InstallPlanResource, ref, ns)) : undefined;
        return plan?.status?.phase === ops.InstallPlanPhaseComplete;
      },
      { timeoutMs: 90_000 },
    );
  } catch (err) {
    const trail = logs.filter((l) => l['namespace'] === ns).slice(-10).map((l) => JSON.stringify(l).slice(0, 400));
    throw new Error(`${(err as Error).message}; subscription status: ${JSON.stringify(last?.status)}; plan status: ${JSON.stringify(plan?.status)}\n${trail.join('\n')}`, { cause: err });
  }
  return plan!;
}

const kinds = (ip: ops.InstallPlan): string[] => (ip.status?.plan ?? []).map((s) => `${s.resource.kind}/${s.resource.name}`);
const csvStep = (ip: ops.InstallPlan): ops.ClusterServiceVersion => JSON.parse(ip.status!.plan!.find((s) => s.resource.kind === 'ClusterServiceVersion')!.resource.manifest!) as ops.ClusterServiceVersion;

describe('a catalog bundle without an image', () => {
  it('spec.image: installs from the catalog’s objects — the CSV, the CRD, the service account and its RBAC — with the served properties', async () => {
    const ns = await namespaceWithGroup('inl-img');
    const ip = await install(ns, inline, 'inline-img');
    const name = bundleName(inline.packageName, inline.version);
    // OrderSteps: CSVs first, then CRDs, then the rest (the RBAC of the CSV's permissions) in order
    expect(kinds(ip).map((k) => k.replace(/-[0-9A-Za-z]{30,}$/, '-HASH'))).toEqual([
      `ClusterServiceVersion/${name}`,
      'CustomResourceDefinition/widgets.inl-op.example.com',
      'ServiceAccount/inl-op-controller',
      `Role/${name}-inl-op-con-HASH`,
      `RoleBinding/${name}-inl-op-con-HASH`,
      `ClusterRole/${name}-HASH`,
      `ClusterRoleBinding/${name}-HASH`,
    ]);
    expect(new Set(ip.status?.plan?.map((s) => s.resolving))).toEqual(new Set([name]));
    // the properties annotation carries what the registry serves: not the bundle's objects
    expect(JSON.parse(csvStep(ip).metadata.annotations![ops.PropertiesAnnotation]!)).toEqual({
      properties: [
        { type: 'olm.gvk', value: { group: 'inl-op.example.com', kind: 'Widget', version: 'v1' } },
        { type: 'olm.package', value: { packageName: 'inl-op', version: '1.0.0' } },
      ],
    });
    const csv = await get<ops.ClusterServiceVersion>(TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, name, ns));
    expect(csv?.spec.install?.spec?.deployments?.[0]?.name).toBe('inl-op-controller');
    expect(await get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.inl-op.example.com')).toBeDefined();
    expect(await get(`/api/v1/namespaces/${ns}/serviceaccounts/inl-op-controller`)).toBeDefined();
    const sub = await get<ops.Subscription>(TestKube.path(ops.V1alpha1, ops.SubscriptionResource, 'sub', ns));
    expect(sub?.status?.conditions?.find((c) => c.type === ops.SubscriptionBundleUnpackFailed)).toBeUndefined();
  });

  it('spec.address (a real opm serve of the same catalog, which sends csvJson and the objects): the same plan', async () => {
    const viaImage = (await get<ops.InstallPlanList>(TestKube.path(ops.V1alpha1, ops.InstallPlanResource, undefined, undefined)))!.items.find((ip) =>
      ip.status?.catalogSources.includes('inline-img') && ip.status.plan?.some((s) => s.resource.name === 'widgets.inl-op.example.com'),
    )!;
    const ns = await namespaceWithGroup('inl-addr');
    const ip = await install(ns, inline, 'inline-grpc');
    expect(ip.status?.catalogSources).toEqual(['inline-grpc']);
    const comparable = (p: ops.InstallPlan): unknown =>
      (p.status?.plan ?? []).map((s) => ({
        kind: s.resource.kind,
        name: s.resource.name.replace(/-[0-9A-Za-z]{30,}$/, '-HASH'),
        manifest: JSON.parse(s.resource.manifest!.replaceAll(p.metadata.namespace!, 'NS').replace(/-[0-9A-Za-z]{30,}"/g, '-HASH"').replace(/"[0-9A-Za-z]{30,}"/g, '"HASH"')) as unknown,
      }));
    expect(comparable(ip)).toEqual(comparable(viaImage));
  });

  it('a bundle with an image and objects in the catalog: the image is unpacked, the catalog’s objects are not used', async () => {
    const ns = await namespaceWithGroup('inl-both');
    const ip = await install(ns, both, 'inline-img');
    expect(kinds(ip)).toContain('CustomResourceDefinition/widgets.inl-both.example.com');
    expect(kinds(ip)).not.toContain('ConfigMap/only-in-the-catalog');
    expect(JSON.parse(csvStep(ip).metadata.annotations![ops.PropertiesAnnotation]!).properties.map((p: { type: string }) => p.type)).toEqual(['olm.gvk', 'olm.package']);
  });
});
