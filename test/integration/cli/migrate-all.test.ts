// `kubectl olm migrate --all` against the real cluster: three operators the real olm-classic binary installed, two
// AllNamespaces (eligible) and one OwnNamespace (ineligible without operator-controller's
// SingleOwnNamespaceInstallSupport), catalogd serving their bundles, operator-controller with the ClusterObjectSet
// runtime. --dry-run changes nothing; --all moves both eligible ones in place (same Deployments), leaves the ineligible
// one as it is and reports it with its reason, exit 1; a second --all says both are already migrated.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import { runCaptured, type CapturedRun } from '../../../internal/cli/index.ts';
import { catalogFiles, pushTestBundle, type TestBundle } from '../../support/bundles.ts';
import { installClassicCRDs, installExperimentalCRDs } from '../../support/crds.ts';
import { adminKube, controlPlane, registry } from '../../support/env.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { createImageCatalogSource, createOperatorGroup, createSubscription } from '../../support/classic-olm.ts';
import { TestKube } from '../../support/kube.ts';
import { waitFor } from '../../support/net.ts';
import { startOlmClassicProcess, type OlmClassicProcess } from '../../support/olm-classic-process.ts';
import { createCatalog, serving, uniqueName, waitForCatalog } from '../catalogd/catalogs.ts';
import { startCatalogd } from '../catalogd/harness.ts';
import { installCertManagerCrds, startOperatorController } from '../operator-controller/harness.ts';
import { tearDownMigrate } from './migrate-fixture.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const kube = (): TestKube => adminKube();
const CATSRC = 'migall-cat';
const clusterCatalog = uniqueName('migall-v1');
/** Two eligible (AllNamespaces) operators and one ineligible (OwnNamespace), each in its own namespace. */
const PKGS = ['migall-a', 'migall-b', 'migall-own'] as const;
const [A, B, OWN] = PKGS;
const ns: Record<string, string> = {};
const bundles: Record<string, TestBundle> = {};
let cwd = '';
let olmClassic: OlmClassicProcess | undefined;
let globalNs = '';
let certManagerInstalled = false;
const olm = (argv: string[]): Promise<CapturedRun> => runCaptured(argv, { cwd, env: { KUBECONFIG: controlPlane().kubeconfigPath } });
const get = async (path: string): Promise<{ status: number; body: Json }> => (await kube().request('GET', path)) as { status: number; body: Json };
const CE = (pkg: string): string => `/apis/olm.operatorframework.io/v1/clusterextensions/${pkg}`;
const COS = (pkg: string): string => `/apis/olm.operatorframework.io/v1/clusterobjectsets/${pkg}-1`;
const deployment = (pkg: string): string => `/apis/apps/v1/namespaces/${ns[pkg]}/deployments/${bundles[pkg]!.deploymentName}`;
const sub = (pkg: string): string => TestKube.path(ops.V1alpha1, ops.SubscriptionResource, pkg, ns[pkg]);
const csv = (pkg: string): string => TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, bundles[pkg]!.name, ns[pkg]);
const backupSecret = (pkg: string): string => `/api/v1/namespaces/${ns[pkg]}/secrets/olm-migrate-backup-${pkg}`;
const diag = (r: CapturedRun): string => `${JSON.stringify(r)}\nolm-classic said:\n${olmClassic?.logs.slice(-20).join('\n') ?? ''}`;

/** The summary table's rows (NAME NAMESPACE PACKAGE RESULT) by name: the lines after the last `==> done`. */
function summary(stdout: string): Map<string, string[]> {
  const lines = stdout.slice(stdout.lastIndexOf('==> done')).split('\n').slice(1).filter((l) => l !== '');
  expect(lines[0]?.split(/\s{2,}/)).toEqual(['NAME', 'NAMESPACE', 'PACKAGE', 'RESULT']);
  return new Map(lines.slice(1).map((l) => l.split(/\s{2,}/).map((c) => c.trim())).map((cells) => [cells[0]!, cells]));
}

beforeAll(async () => {
  await installClassicCRDs(kube());
  await installExperimentalCRDs(kube());
  globalNs = await kube().namespace('migall-olm');
  for (const pkg of PKGS) ns[pkg] = await kube().namespace(pkg);
  certManagerInstalled = (await kube().request('GET', '/apis/cert-manager.io/v1')).status === 404;
  await installCertManagerCrds();
  cwd = await mkdtemp(join(tmpdir(), 'migrate-all-'));
  for (const pkg of PKGS) bundles[pkg] = await pushTestBundle(registry(), { packageName: pkg, version: '1.0.0' });
  const files = Object.assign({}, ...PKGS.map((pkg) => catalogFiles(pkg, [{ bundle: bundles[pkg]! }]))) as Record<string, object>;
  const classicImage = await pushCatalogImage(registry(), 'migall/classic-catalog:v1', { files });
  const v1Image = await pushCatalogImage(registry(), 'migall/v1-catalog:v1', { files });
  await createImageCatalogSource(globalNs, CATSRC, classicImage.digestRef);
  olmClassic = await startOlmClassicProcess({ globalNamespace: globalNs });
  await startCatalogd();
  await startOperatorController({ boxcutterRuntime: true });
  await createCatalog(clusterCatalog, { ref: v1Image.ref });
  for (const pkg of PKGS) {
    await createOperatorGroup(ns[pkg]!, 'og', pkg === OWN ? { targetNamespaces: [ns[pkg]!] } : {});
    await createSubscription(ns[pkg]!, pkg, { name: pkg, channel: 'stable', source: CATSRC, sourceNamespace: globalNs, installPlanApproval: 'Automatic' });
  }
  await waitForCatalog(clusterCatalog, 'Serving', serving);
  for (const pkg of PKGS) {
    await waitFor(
      `${pkg} installed by olm-classic`,
      async () => {
        const s = (await get(sub(pkg))).body as ops.Subscription;
        return s.status?.installedCSV === bundles[pkg]!.name && ((await get(csv(pkg))).body as ops.ClusterServiceVersion).status?.phase === 'Succeeded';
      },
      { timeoutMs: 240_000 },
    );
  }
}, 300_000);

afterAll(async () => {
  await tearDownMigrate({ extensions: PKGS, namespaces: Object.values(ns), globalNs, clusterCatalog, olmClassic, certManagerInstalled, cwd });
}, 180_000);

describe('kubectl olm migrate --all', () => {
  it('--dry-run says what it would do for each eligible one, reports the ineligible one, and changes nothing', async () => {
    const r = await olm(['migrate', '--all', '--dry-run']);
    expect(r.code, diag(r)).toBe(1);
    for (const pkg of [A, B]) {
      expect(r.stdout).toContain(`==> ${ns[pkg]}/${pkg} `);
      expect(r.stdout).toContain(`would create ClusterObjectSet ${pkg}-1 (revision 1:`);
      expect(summary(r.stdout).get(pkg)).toEqual([pkg, ns[pkg], pkg, `would migrate to ClusterExtension ${pkg}`]);
      expect((await get(COS(pkg))).status).toBe(404);
      expect((await get(CE(pkg))).status).toBe(404);
      expect((await get(backupSecret(pkg))).status).toBe(404);
    }
    expect(summary(r.stdout).get(OWN)?.[3]).toMatch(/^ineligible: installed OwnNamespace/);
  });

  it('migrates both eligible operators in place, reports the ineligible one with its reason and leaves it as it is, exit 1', async () => {
    const uids = new Map<string, string>();
    for (const pkg of PKGS) uids.set(pkg, ((await get(deployment(pkg))).body['metadata'] as Json)['uid'] as string);
    const ownSub = ((await get(sub(OWN))).body['metadata'] as Json)['resourceVersion'];
    const r = await olm(['migrate', '--all', '--timeout', '3m']);
    expect(r.code, diag(r)).toBe(1);
    const rows = summary(r.stdout);
    for (const pkg of [A, B]) {
      expect(rows.get(pkg), diag(r)).toEqual([pkg, ns[pkg], pkg, `migrated to ClusterExtension ${pkg}`]);
      expect(r.stdout).toContain(`subscription "${pkg}" in namespace "${ns[pkg]}" migrated to ClusterExtension "${pkg}"`);
      const ext = (await get(CE(pkg))).body as Json;
      expect(ext['status']['activeRevisions']).toEqual([{ name: `${pkg}-1` }]);
      expect((ext['status']['conditions'] as Json[]).find((c) => c['type'] === 'Installed')).toMatchObject({ status: 'True' });
      expect(((await get(deployment(pkg))).body['metadata'] as Json)['uid']).toBe(uids.get(pkg));
      expect((await get(sub(pkg))).status).toBe(404);
      expect((await get(csv(pkg))).status).toBe(404);
    }
    // the ineligible one: reported with its reason, untouched
    expect(rows.get(OWN)).toEqual([OWN, ns[OWN], OWN, expect.stringMatching(/^ineligible: installed OwnNamespace \(OperatorGroup "og" targets/)]);
    expect(r.stderr).toContain(`cannot migrate subscription "${OWN}" in namespace "${ns[OWN]}": ineligible: installed OwnNamespace`);
    expect(((await get(sub(OWN))).body['metadata'] as Json)['resourceVersion']).toBe(ownSub);
    expect(((await get(csv(OWN))).body as ops.ClusterServiceVersion).status?.phase).toBe('Succeeded');
    expect((await get(CE(OWN))).status).toBe(404);
    expect((await get(COS(OWN))).status).toBe(404);
    expect((await get(backupSecret(OWN))).status).toBe(404);
    expect(((await get(deployment(OWN))).body['metadata'] as Json)['uid']).toBe(uids.get(OWN));
  });

  it('a second --all says both are already migrated and changes nothing', async () => {
    const before = new Map<string, unknown>();
    for (const pkg of [A, B]) before.set(pkg, ((await get(COS(pkg))).body['metadata'] as Json)['resourceVersion']);
    const r = await olm(['migrate', '--all']);
    expect(r.code, diag(r)).toBe(1);
    const rows = summary(r.stdout);
    for (const pkg of [A, B]) {
      expect(rows.get(pkg)).toEqual([pkg, ns[pkg], pkg, 'already migrated']);
      expect(r.stdout).toContain(`subscription "${pkg}" in namespace "${ns[pkg]}" is already migrated to ClusterExtension "${pkg}"; nothing to do`);
      expect(((await get(COS(pkg))).body['metadata'] as Json)['resourceVersion']).toBe(before.get(pkg));
    }
    expect(rows.get(OWN)?.[3]).toMatch(/^ineligible: /);
    // -n limits it to one namespace: the migrated one alone exits 0
    const one = await olm(['migrate', '--all', '-n', ns[A]!]);
    expect(one.code, diag(one)).toBe(0);
    expect([...summary(one.stdout).keys()]).toEqual([A]);
  });

  it('refuses a subscription name or --name with --all (usage errors)', async () => {
    expect((await olm(['migrate', A, '--all'])).code).toBe(2);
    expect((await olm(['migrate', '--all', '--name', 'x'])).code).toBe(2);
  });
});
