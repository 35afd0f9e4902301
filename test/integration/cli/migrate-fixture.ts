// What the two `kubectl olm migrate` kill tests (migrate-kill.test.ts: the CLI killed; migrate-kill-controllers.test.ts:
// a controller killed) share: one operator installed by olm-classic through a Subscription (AllNamespaces, a CRD with a
// custom resource `kept`) whose package a ClusterCatalog also serves, a seeded random generator so a failing run can be
// replayed, and a watch that records every change of chosen kinds in the namespace. `tearDownMigrate` is the teardown
// of every migrate integration test (these two, migrate-run.test.ts, migrate-all.test.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ops from '../../../api/operators/index.ts';
import type { KubeClient } from '../../../internal/shared/kube/index.ts';
import { catalogFiles, pushTestBundle, type TestBundle } from '../../support/bundles.ts';
import { createImageCatalogSource, createOperatorGroup, createSubscription } from '../../support/classic-olm.ts';
import { installClassicCRDs, installExperimentalCRDs, installStandardCRDs } from '../../support/crds.ts';
import { adminKube, registry } from '../../support/env.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { TestKube } from '../../support/kube.ts';
import { waitFor } from '../../support/net.ts';
import { startOlmClassicProcess, type OlmClassicProcess } from '../../support/olm-classic-process.ts';
import { createCatalog, deleteCatalogs, releaseFinalizers, serving, uniqueName, waitForCatalog } from '../catalogd/catalogs.ts';
import { startCatalogd, stopAll } from '../catalogd/harness.ts';
import { removeCertManagerCrds, stopAllOperatorControllers } from '../operator-controller/harness.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** mulberry32: a small seeded generator, so a failing choice of kill points or delays can be replayed. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Watched {
  readonly type: string;
  readonly kind: string;
  readonly obj: Json;
}

/** Watches `kinds` in namespace `ns` until stopped (re-watching from the last resourceVersion); the events, in order. */
export function watchKinds(client: KubeClient, ns: string, kinds: readonly { apiVersion: string; kind: string }[]): { events: Watched[]; stop: () => void } {
  const events: Watched[] = [];
  const ac = new AbortController();
  for (const kind of kinds) {
    void (async () => {
      let rv = (await client.list({ ...kind, namespace: ns })).metadata?.resourceVersion;
      while (!ac.signal.aborted) {
        try {
          for await (const e of client.watch({ ...kind, namespace: ns }, { resourceVersion: rv, signal: ac.signal, timeoutSeconds: 600 })) {
            if (e.type === 'BOOKMARK') continue;
            rv = e.object.metadata.resourceVersion ?? rv;
            events.push({ type: e.type, kind: kind.kind, obj: e.object as unknown as Json });
          }
        } catch {
          if (ac.signal.aborted) return;
        }
      }
    })();
  }
  return { events, stop: () => ac.abort() };
}

export interface MigrateFixture {
  readonly pkg: string;
  readonly catalogSource: string;
  readonly clusterCatalog: string;
  readonly globalNs: string;
  readonly ns: string;
  /** A scratch folder (backups, caches); the caller removes it. */
  readonly cwd: string;
  readonly bundle: TestBundle;
  readonly olmClassic: OlmClassicProcess;
}

/** The Subscription's path. */
export const subscriptionPath = (f: Pick<MigrateFixture, 'pkg' | 'ns'>): string => TestKube.path(ops.V1alpha1, ops.SubscriptionResource, f.pkg, f.ns);

/**
 * Installs the classic CRDs and the experimental v1 CRDs, pushes the operator's bundle and its catalog image (one for
 * the CatalogSource, one for the ClusterCatalog), starts olm-classic and catalogd, then `startOperatorController`
 * (the caller's: in process or as the binary), subscribes in an AllNamespaces namespace and waits until the CSV is
 * Succeeded, and creates the custom resource `kept`.
 */
export async function setUpMigrateFixture(pkg: string, startOperatorController: (cwd: string) => Promise<void>): Promise<MigrateFixture> {
  const kube = adminKube();
  await installClassicCRDs(kube);
  await installExperimentalCRDs(kube);
  const globalNs = await kube.namespace(`${pkg}-olm`);
  const ns = await kube.namespace(`${pkg}-all`);
  const cwd = await mkdtemp(join(tmpdir(), `${pkg}-`));
  const catalogSource = `${pkg}-cat`;
  const clusterCatalog = uniqueName(`${pkg}-v1`);
  const bundle = await pushTestBundle(registry(), { packageName: pkg, version: '1.0.0' });
  const files = catalogFiles(pkg, [{ bundle }]);
  const classicImage = await pushCatalogImage(registry(), `${pkg}/classic-catalog:v1`, { files });
  const v1Image = await pushCatalogImage(registry(), `${pkg}/v1-catalog:v1`, { files });
  await createImageCatalogSource(globalNs, catalogSource, classicImage.digestRef);
  const olmClassic = await startOlmClassicProcess({ globalNamespace: globalNs });
  await startCatalogd();
  await startOperatorController(cwd);
  await createCatalog(clusterCatalog, { ref: v1Image.ref });
  await createOperatorGroup(ns, 'og');
  await createSubscription(ns, pkg, { name: pkg, channel: 'stable', source: catalogSource, sourceNamespace: globalNs, installPlanApproval: 'Automatic' });
  await waitForCatalog(clusterCatalog, 'Serving', serving);
  const fixture = { pkg, catalogSource, clusterCatalog, globalNs, ns, cwd, bundle, olmClassic };
  await waitForClassicInstall(fixture);
  await kube.must(kube.request('POST', `/apis/${bundle.group}/v1/namespaces/${ns}/widgets`, { apiVersion: `${bundle.group}/v1`, kind: 'Widget', metadata: { name: 'kept' }, spec: { size: '3' } }));
  return fixture;
}

/** Waits until the Subscription has installed the bundle's CSV and the CSV is Succeeded. */
export async function waitForClassicInstall(f: Pick<MigrateFixture, 'pkg' | 'ns' | 'bundle'>): Promise<void> {
  const kube = adminKube();
  await waitFor(
    `${f.pkg} installed by olm-classic`,
    async () => {
      const s = (await kube.request('GET', subscriptionPath(f))).body as ops.Subscription;
      if (s.status?.installedCSV !== f.bundle.name) return false;
      const csv = (await kube.request('GET', TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, f.bundle.name, f.ns))).body as ops.ClusterServiceVersion;
      return csv.status?.phase === 'Succeeded';
    },
    { timeoutMs: 240_000 },
  );
}

export interface MigrateTeardown {
  /** The ClusterExtensions the test may have made (names); deleted and waited for while the controllers run. */
  readonly extensions: readonly string[];
  /** The namespaces of the classic installs: their Subscriptions and CSVs deleted, then the namespaces. */
  readonly namespaces: readonly string[];
  readonly globalNs: string;
  readonly clusterCatalog: string;
  readonly olmClassic: OlmClassicProcess | undefined;
  /** Stops operator-controller (default: every in-process one, `stopAllOperatorControllers`). */
  readonly stopOperatorController?: () => Promise<void>;
  /** Whether the test installed cert-manager's CRDs (removed again). */
  readonly certManagerInstalled?: boolean;
  /** The scratch folder, removed. */
  readonly cwd: string;
}

/**
 * The `afterAll` of a migrate integration test: deletes the ClusterExtensions (waiting until they are gone, so their
 * finalizers run while operator-controller does), the Subscriptions and CSVs, stops olm-classic, operator-controller
 * and catalogd, deletes the ClusterCatalog and the namespaces, puts the standard v1 CRDs back and removes the scratch
 * folder. Empty names (a `beforeAll` that failed early) are skipped.
 */
export async function tearDownMigrate(t: MigrateTeardown): Promise<void> {
  const kube = adminKube();
  const ce = (name: string): string => `/apis/olm.operatorframework.io/v1/clusterextensions/${name}`;
  const namespaces = t.namespaces.filter(Boolean);
  for (const name of t.extensions) await kube.request('DELETE', ce(name));
  for (const name of t.extensions) await waitFor('the extension gone', async () => (await kube.request('GET', ce(name))).status === 404, { timeoutMs: 120_000 }).catch(() => undefined);
  for (const n of namespaces) {
    await kube.request('DELETE', TestKube.path(ops.V1alpha1, ops.SubscriptionResource, undefined, n));
    await kube.request('DELETE', TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, undefined, n));
  }
  await t.olmClassic?.stop();
  await (t.stopOperatorController ?? stopAllOperatorControllers)();
  await deleteCatalogs([t.clusterCatalog]).catch(() => undefined);
  await stopAll();
  await releaseFinalizers();
  for (const n of [...namespaces, t.globalNs].filter(Boolean)) await kube.request('DELETE', `/api/v1/namespaces/${n}`);
  if (t.certManagerInstalled) await removeCertManagerCrds();
  await installStandardCRDs(kube);
  if (t.cwd) await rm(t.cwd, { recursive: true, force: true });
}
