// `kubectl olm migrate check` against the real cluster: operators installed by the real olm-classic binary from a
// CatalogSource image, and catalogd (in process) serving a ClusterCatalog that has some of their packages. One
// AllNamespaces operator whose package is in the ClusterCatalog is eligible; refused, each with its reason: an
// operator that depends on another (and the one it depends on), an operator installed OwnNamespace without
// operator-controller's SingleOwnNamespaceInstallSupport (eligible with it), and one whose package is in no
// ClusterCatalog. Exit codes by the worst verdict; -o json parses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import { runCaptured, type CapturedRun } from '../../../internal/cli/index.ts';
import { catalogFiles, pushTestBundle, type TestBundle } from '../../support/bundles.ts';
import { installClassicCRDs, installExperimentalCRDs, installStandardCRDs } from '../../support/crds.ts';
import { adminKube, controlPlane, registry } from '../../support/env.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { createImageCatalogSource, createOperatorGroup, createSubscription } from '../../support/classic-olm.ts';
import { TestKube } from '../../support/kube.ts';
import { waitFor } from '../../support/net.ts';
import { startOlmClassicProcess, type OlmClassicProcess } from '../../support/olm-classic-process.ts';
import { createCatalog, deleteCatalogs, releaseFinalizers, serving, uniqueName, waitForCatalog } from '../catalogd/catalogs.ts';
import { startCatalogd, stopAll } from '../catalogd/harness.ts';

const kube = (): TestKube => adminKube();
const olm = (argv: string[]): Promise<CapturedRun> => runCaptured(argv, { env: { KUBECONFIG: controlPlane().kubeconfigPath } });
const CATSRC = 'mig-cat';
const clusterCatalog = uniqueName('mig-v1');
let olmClassic: OlmClassicProcess | undefined;
let globalNs = '';
/** An AllNamespaces OperatorGroup: mig-allns, mig-nocat, mig-app (and mig-lib, its dependency). */
let allNs = '';
/** An OwnNamespace OperatorGroup: mig-own. */
let ownNs = '';
const namespaces: string[] = [];
const b: Record<string, TestBundle> = {};

interface Item {
  name: string;
  namespace: string;
  package: string;
  csv: string;
  version: string;
  verdict: string;
  reason: string;
  reasons: string[];
  installMode?: string;
  catalogBundle?: { catalog: string; name: string; version: string };
}

async function subscribe(ns: string, pkg: string): Promise<void> {
  await createSubscription(ns, pkg, { name: pkg, channel: 'stable', source: CATSRC, sourceNamespace: globalNs, installPlanApproval: 'Automatic' });
}

/** Every Subscription of `ns` (`count` of them) has its installed CSV Succeeded. */
async function installed(ns: string, count: number): Promise<void> {
  let last: unknown;
  try {
    await waitFor(
      `${count} operators installed in ${ns}`,
      async () => {
        const subs = ((await kube().request('GET', TestKube.path(ops.V1alpha1, ops.SubscriptionResource, undefined, ns))).body as { items: ops.Subscription[] }).items;
        const csvs = ((await kube().request('GET', TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, undefined, ns))).body as { items: ops.ClusterServiceVersion[] }).items;
        last = subs.map((s) => [s.metadata.name, s.status?.state, s.status?.installedCSV, csvs.find((c) => c.metadata.name === s.status?.installedCSV)?.status?.phase]);
        return subs.length === count && subs.every((s) => !!s.status?.installedCSV && csvs.some((c) => c.metadata.name === s.status?.installedCSV && c.status?.phase === 'Succeeded'));
      },
      { timeoutMs: 240_000 },
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; last: ${JSON.stringify(last)}; olm-classic said: ${olmClassic?.logs.slice(-20).join('\n')}`, { cause: err });
  }
}

beforeAll(async () => {
  await installClassicCRDs(kube());
  for (const prefix of ['mig-olm', 'mig-all', 'mig-own']) namespaces.push(await kube().namespace(prefix));
  [globalNs, allNs, ownNs] = namespaces as [string, string, string];
  for (const pkg of ['mig-allns', 'mig-nocat', 'mig-app', 'mig-lib', 'mig-own']) b[pkg] = await pushTestBundle(registry(), { packageName: pkg, version: '1.0.0' });
  const files = (pkgs: readonly string[]): Record<string, object> =>
    Object.assign(
      {},
      ...pkgs.map((p) =>
        catalogFiles(p, [{ bundle: b[p]!, ...(p === 'mig-app' && { properties: [{ type: 'olm.package.required', value: { packageName: 'mig-lib', versionRange: '>=1.0.0' } }] }) }]),
      ),
    );
  // OLM classic's catalog has every package; the ClusterCatalog all but mig-nocat
  const classicImage = await pushCatalogImage(registry(), 'mig/classic-catalog:v1', { files: files(['mig-allns', 'mig-nocat', 'mig-app', 'mig-lib', 'mig-own']) });
  const v1Image = await pushCatalogImage(registry(), 'mig/v1-catalog:v1', { files: files(['mig-allns', 'mig-app', 'mig-lib', 'mig-own']) });
  await createImageCatalogSource(globalNs, CATSRC, classicImage.digestRef);
  olmClassic = await startOlmClassicProcess({ globalNamespace: globalNs });
  await startCatalogd();
  await createCatalog(clusterCatalog, { ref: v1Image.ref });
  await createOperatorGroup(allNs, 'og');
  await createOperatorGroup(ownNs, 'og', { targetNamespaces: [ownNs] });
  for (const pkg of ['mig-allns', 'mig-nocat', 'mig-app']) await subscribe(allNs, pkg);
  await subscribe(ownNs, 'mig-own');
  await waitForCatalog(clusterCatalog, 'Serving', serving);
  await installed(allNs, 4); // mig-lib's Subscription is made by mig-app's InstallPlan
  await installed(ownNs, 1);
}, 300_000);

afterAll(async () => {
  // Subscriptions and CSVs first, so that olm-classic removes the AllNamespaces group's copies before it stops.
  for (const ns of [allNs, ownNs].filter(Boolean)) {
    await kube().request('DELETE', TestKube.path(ops.V1alpha1, ops.SubscriptionResource, undefined, ns));
    await kube().request('DELETE', TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, undefined, ns));
  }
  await olmClassic?.stop();
  const copies = `/apis/${ops.V1alpha1}/clusterserviceversions?labelSelector=${encodeURIComponent(`olm.copiedFrom=${allNs}`)}`;
  for (const c of ((await kube().request('GET', copies)).body as { items?: ops.ClusterServiceVersion[] }).items ?? []) {
    await kube().request('DELETE', TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, c.metadata.name, c.metadata.namespace));
  }
  await deleteCatalogs([clusterCatalog]).catch(() => undefined);
  await stopAll();
  await releaseFinalizers();
  for (const ns of namespaces) await kube().request('DELETE', `/api/v1/namespaces/${ns}`);
}, 120_000);

const diag = (r: CapturedRun): string => `${JSON.stringify(r)}\nolm-classic said:\n${olmClassic?.logs.slice(-20).join('\n') ?? ''}`;

describe('kubectl olm migrate check', () => {
  it('an AllNamespaces operator whose package and version a ClusterCatalog serves is eligible (exit 0)', async () => {
    const r = await olm(['migrate', 'check', 'mig-allns', '-n', allNs]);
    expect(r.code, diag(r)).toBe(0);
    const [header, row, ...rest] = r.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^NAME +NAMESPACE +PACKAGE +VERSION +VERDICT +REASON$/);
    expect(rest).toEqual([]);
    expect(row!.split(/ {2,}/)).toEqual(['mig-allns', allNs, 'mig-allns', '1.0.0', 'eligible', `AllNamespaces; bundle ${b['mig-allns']!.name} in ClusterCatalog "${clusterCatalog}"`]);
  });

  it('refuses, with the reason, one that depends on another, the one depended on, and one whose package is in no ClusterCatalog (exit 1)', async () => {
    const r = await olm(['migrate', 'check', '-n', allNs, '-o', 'json']);
    expect(r.code, diag(r)).toBe(1);
    const items = (JSON.parse(r.stdout) as { items: Item[] }).items;
    const by = (pkg: string): Item => items.find((i) => i.package === pkg)!;
    expect(items.map((i) => i.package).sort()).toEqual(['mig-allns', 'mig-app', 'mig-lib', 'mig-nocat']);
    expect(by('mig-allns')).toMatchObject({ verdict: 'eligible', installMode: 'AllNamespaces', csv: b['mig-allns']!.name, catalogBundle: { catalog: clusterCatalog, name: b['mig-allns']!.name, version: '1.0.0' } });
    expect(by('mig-app')).toMatchObject({ verdict: 'ineligible', reason: 'depends on package "mig-lib" >=1.0.0 (olm.package.required)' });
    const lib = by('mig-lib');
    expect(lib.verdict).toBe('ineligible');
    expect(lib.reason).toMatch(/^installed as a dependency of another operator \(olm\.generated-by: install-[a-z0-9]+\)$/);
    expect(lib.reasons).toContain(`depended on by ${allNs}/${b['mig-app']!.name} (olm.package.required "mig-lib")`);
    expect(by('mig-nocat')).toMatchObject({ verdict: 'ineligible', reasons: ['package "mig-nocat" is in no serving ClusterCatalog'] });

    // the table: one line each, the first reason
    const t = await olm(['migrate', 'check', '-n', allNs]);
    expect(t.code).toBe(1);
    const rows = t.stdout.trimEnd().split('\n').slice(1).map((l) => l.split(/ {2,}/));
    expect(rows.map((c) => [c[2], c[4]])).toEqual(
      [...items].sort((x, y) => x.name.localeCompare(y.name)).map((i) => [i.package, i.verdict]),
    );
    expect(rows.find((c) => c[2] === 'mig-nocat')![5]).toBe('package "mig-nocat" is in no serving ClusterCatalog');
  });

  it('refuses one installed OwnNamespace unless operator-controller runs with SingleOwnNamespaceInstallSupport', async () => {
    const r = await olm(['migrate', 'check', 'mig-own', '-n', ownNs, '-o', 'json']);
    expect(r.code, diag(r)).toBe(1);
    expect((JSON.parse(r.stdout) as { items: Item[] }).items).toEqual([
      expect.objectContaining({
        name: 'mig-own',
        verdict: 'ineligible',
        installMode: 'OwnNamespace',
        reasons: [`installed OwnNamespace (OperatorGroup "og" targets "${ownNs}"); OLM v1 needs AllNamespaces unless operator-controller runs with SingleOwnNamespaceInstallSupport`],
      }),
    ]);
    const gated = await olm(['migrate', 'check', 'mig-own', '-n', ownNs, '--feature-gates', 'SingleOwnNamespaceInstallSupport=true']);
    expect(gated.code, diag(gated)).toBe(0);
    expect(gated.stdout).toContain(`eligible  OwnNamespace; bundle ${b['mig-own']!.name} in ClusterCatalog "${clusterCatalog}"`);
  });

  it('already-migrated when a ClusterObjectSet migrated from it holds its bundle (exit 0); conflicting when a ClusterExtension installs its package (exit 1)', async () => {
    await installExperimentalCRDs(kube());
    const cos = `/apis/olm.operatorframework.io/v1/clusterobjectsets/mig-allns-1`;
    const ext = '/apis/olm.operatorframework.io/v1/clusterextensions/mig-own-v1';
    try {
      // what the migration writes before the ClusterExtension exists (no operator-controller runs here)
      await kube().must(
        kube().request('POST', '/apis/olm.operatorframework.io/v1/clusterobjectsets', {
          apiVersion: 'olm.operatorframework.io/v1',
          kind: 'ClusterObjectSet',
          metadata: {
            name: 'mig-allns-1',
            labels: { 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': 'mig-allns' },
            annotations: {
              'olm.operatorframework.io/migrated-from-subscription': 'true',
              'olm.operatorframework.io/package-name': 'mig-allns',
              'olm.operatorframework.io/bundle-name': b['mig-allns']!.name,
              'olm.operatorframework.io/bundle-version': '1.0.0',
              'olm.operatorframework.io/bundle-reference': b['mig-allns']!.image,
            },
          },
          spec: { lifecycleState: 'Active', revision: 1, collisionProtection: 'None', phases: [{ name: 'configuration', objects: [{ object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: allNs } } }] }] },
        }),
      );
      const migrated = await olm(['migrate', 'check', 'mig-allns', '-n', allNs]);
      expect(migrated.code, diag(migrated)).toBe(0);
      expect(migrated.stdout.split('\n')[1]!.split(/ {2,}/).slice(4)).toEqual([
        'already-migrated',
        'ClusterObjectSet "mig-allns-1" (olm.operatorframework.io/migrated-from-subscription) holds it; ClusterExtension "mig-allns" not created yet',
      ]);
      await kube().must(
        kube().request('POST', '/apis/olm.operatorframework.io/v1/clusterextensions', {
          apiVersion: 'olm.operatorframework.io/v1',
          kind: 'ClusterExtension',
          metadata: { name: 'mig-own-v1' },
          spec: { namespace: ownNs, source: { sourceType: 'Catalog', catalog: { packageName: 'mig-own' } } },
        }),
      );
      const conflicting = await olm(['migrate', 'check', 'mig-own', '-n', ownNs, '--feature-gates', 'SingleOwnNamespaceInstallSupport=true']);
      expect(conflicting.code, diag(conflicting)).toBe(1);
      expect(conflicting.stdout.split('\n')[1]!.split(/ {2,}/).slice(4)).toEqual(['conflicting', 'ClusterExtension "mig-own-v1" already installs package "mig-own"']);
    } finally {
      await kube().request('DELETE', cos);
      await kube().request('DELETE', ext);
      await installStandardCRDs(kube());
    }
  });

  it('--all covers every namespace; a name that is not there, and bad flags, fail', async () => {
    const all = await olm(['migrate', 'check', '--all', '-o', 'json']);
    expect(all.code).toBe(1);
    const mine = (JSON.parse(all.stdout) as { items: Item[] }).items.filter((i) => i.namespace === allNs || i.namespace === ownNs);
    expect(mine.map((i) => `${i.namespace}/${i.name}`).sort()).toHaveLength(5);
    expect(await olm(['migrate', 'check', 'nope', '-n', allNs])).toEqual({ code: 1, stdout: '', stderr: 'subscriptions.operators.coreos.com "nope" not found\n' });
    expect((await olm(['migrate', 'check', '--all', '-n', allNs])).code).toBe(2);
    expect((await olm(['migrate', 'check', '--feature-gates', 'SingleOwnNamespaceInstallSupport', '-n', allNs])).code).toBe(2);
  });
});
