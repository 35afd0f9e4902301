// `kubectl olm … --classic` and `kubectl olm approve` against the real cluster with the real olm-classic binary
// (every classic controller in its own process, as test/integration/classic/e2e.test.ts runs it) and a catalog image
// in the real registry: the CLI finds the CatalogSource that serves the package (reading its image itself), creates
// an OwnNamespace OperatorGroup and the Subscription; a Manual install waits for approval, approve installs it,
// upgrade --classic approves the pending upgrade, list --classic shows it all, uninstall --classic removes the
// Subscription and CSV (and the operands with --delete-operands). Only OwnNamespace OperatorGroups: an
// AllNamespaces group's copied CSVs would appear in other test files' namespaces.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import { runCaptured, type CapturedRun, type CaptureOptions } from '../../../internal/cli/index.ts';
import { catalogFiles, pushTestBundle, type TestBundle } from '../../support/bundles.ts';
import { installClassicCRDs } from '../../support/crds.ts';
import { adminKube, controlPlane, registry, testNamespaces } from '../../support/env.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { createImageCatalogSource } from '../../support/classic-olm.ts';
import { TestKube } from '../../support/kube.ts';
import { waitFor } from '../../support/net.ts';
import { startOlmClassicProcess, type OlmClassicProcess } from '../../support/olm-classic-process.ts';

const PKG = 'cli-classic-op';
const kube = (): TestKube => adminKube();
let olmClassic: OlmClassicProcess | undefined;
let globalNs = '';
const namespaces = testNamespaces();
let v1: TestBundle;
let v2: TestBundle;
let allNs: TestBundle;
let needs: TestBundle;

const olm = (argv: string[], opts: CaptureOptions = {}): Promise<CapturedRun> => runCaptured(argv, { env: { KUBECONFIG: controlPlane().kubeconfigPath }, ...opts });
/** The flags every install needs here: the test's global catalog namespace, the plain-HTTP test registry. */
const catalogFlags = (): string[] => ['--global-namespace', globalNs, '--insecure-registries', registry().host];

beforeAll(async () => {
  await installClassicCRDs(kube());
  globalNs = await namespaces.create('cli-classic-olm');
  v1 = await pushTestBundle(registry(), { packageName: PKG, version: '1.0.0' });
  v2 = await pushTestBundle(registry(), { packageName: PKG, version: '1.1.0' });
  // a package whose bundle cannot run in an OwnNamespace group, saying so in olm.csv.metadata as `opm render` writes it
  allNs = await pushTestBundle(registry(), { packageName: 'cli-classic-allns', version: '1.0.0', installModes: { OwnNamespace: false } });
  // a package whose bundle needs a package no catalog has: its resolution fails for good
  needs = await pushTestBundle(registry(), { packageName: 'cli-classic-needs', version: '1.0.0' });
  const modes = [{ type: 'OwnNamespace', supported: false }, { type: 'SingleNamespace', supported: true }, { type: 'AllNamespaces', supported: true }];
  const image = await pushCatalogImage(registry(), 'cli-classic/catalog:v1', {
    files: {
      ...catalogFiles(PKG, [{ bundle: v1 }, { bundle: v2, replaces: v1.name }]),
      ...catalogFiles(allNs.packageName, [{ bundle: allNs, properties: [{ type: 'olm.csv.metadata', value: { installModes: modes } }] }]),
      ...catalogFiles(needs.packageName, [{ bundle: needs, properties: [{ type: 'olm.package.required', value: { packageName: 'cli-classic-absent', versionRange: '>=1.0.0' } }] }]),
    },
  });
  await createImageCatalogSource(globalNs, 'cli-classic', image.digestRef);
  olmClassic = await startOlmClassicProcess({ globalNamespace: globalNs });
}, 180_000);

afterAll(() => olmClassic?.stop());

const namespace = (prefix: string): Promise<string> => namespaces.create(prefix);
const status = async (path: string): Promise<number> => (await kube().request('GET', path)).status;
const widgetPath = (ns: string, name?: string): string => `/apis/${v1.group}/v1/namespaces/${ns}/widgets${name ? `/${name}` : ''}`;
async function createWidget(ns: string, name: string): Promise<void> {
  await kube().must(kube().request('POST', widgetPath(ns), { apiVersion: `${v1.group}/v1`, kind: 'Widget', metadata: { name }, spec: { size: '1' } }));
}
/** Polls the CLI until `ok`; the last run is in the error. */
async function untilCli(what: string, argv: string[], ok: (r: CapturedRun) => boolean, timeoutMs = 120_000): Promise<CapturedRun> {
  let last: CapturedRun | undefined;
  try {
    await waitFor(what, async () => ok((last = await olm(argv))), { timeoutMs });
  } catch (err) {
    throw new Error(`${(err as Error).message}; last: ${JSON.stringify(last)}; olm-classic said: ${olmClassic?.logs.slice(-20).join('\n')}`, { cause: err });
  }
  return last!;
}
const diag = (r: CapturedRun): string => `${JSON.stringify(r)}\nolm-classic said:\n${olmClassic?.logs.slice(-30).join('\n') ?? ''}`;

describe('kubectl olm --classic against the real olm-classic', () => {
  it('an unknown package or channel, or a bundle without OwnNamespace asked to watch its own namespace, fails with exit 1 and creates nothing', async () => {
    const ns = await namespace('cli-classic-none');
    const r = await olm(['install', '--classic', 'no-such-package', '-n', ns, ...catalogFlags()]);
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: `failed to install operator: get package manifest: package "no-such-package" not found in the CatalogSources of namespaces "${ns}" and "${globalNs}"\n`,
    });
    // nothing was created
    expect(await status(TestKube.path(ops.V1, ops.OperatorGroupResource, ns, ns))).toBe(404);
    const unknownChannel = await olm(['install', '--classic', PKG, '-n', ns, '--channel', 'beta', ...catalogFlags()]);
    expect(unknownChannel).toMatchObject({ code: 1, stderr: `failed to install operator: get package manifest: channel "beta" does not exist for package "${PKG}"\n` });
    // asked to watch only its own namespace (without --watch it would get an all-namespaces group, as kubectl-operator does)
    const ownNs = await olm(['install', '--classic', allNs.packageName, '-n', ns, '--watch', ns, ...catalogFlags()]);
    expect(ownNs).toEqual({
      code: 1,
      stdout: '',
      stderr: `failed to install operator: operator "${allNs.packageName}" is not installable: install modes supported by operator ("AllNamespaces,SingleNamespace") not compatible with install modes supported by desired watches ("OwnNamespace"); create an OperatorGroup in namespace "${ns}" that it supports first\n`,
    });
    expect(await status(TestKube.path(ops.V1, ops.OperatorGroupResource, ns, ns))).toBe(404);
    expect(await status(TestKube.path(ops.V1alpha1, ops.SubscriptionResource, allNs.packageName, ns))).toBe(404);
  });

  it('install --wait gives up on a resolution the catalogs cannot satisfy, in one line, with the next command; --wait-for-fix waits on', async () => {
    const ns = await namespace('cli-classic-unsat');
    const r = await olm(['install', '--classic', needs.packageName, '-n', ns, '--watch', ns, ...catalogFlags(), '--wait', '--timeout', '5m']);
    expect(r.code, diag(r)).toBe(1);
    const lines = r.stderr.split('\n');
    expect(lines[1], diag(r)).toMatch(/^failed to install operator: ResolutionFailed \(ConstraintsNotSatisfiable\): constraints not satisfiable: .*cli-classic-absent/);
    expect(lines[2]).toBe(`waiting will not fix this (--wait-for-fix waits anyway); next: \`kubectl olm resolve -n ${ns}\` or \`kubectl olm uninstall --classic ${needs.packageName} -n ${ns}\``);
    expect(r.stderr).not.toContain('context deadline exceeded');
    // --wait-for-fix: the same cause is waited on until the timeout
    const ns2 = await namespace('cli-classic-unsat');
    const patient = await olm(['install', '--classic', needs.packageName, '-n', ns2, '--watch', ns2, ...catalogFlags(), '--wait', '--wait-for-fix', '--timeout', '8s']);
    expect(patient.stderr, diag(patient)).toContain('context deadline exceeded');
    expect(patient.code).toBe(1);
  });

  it('Automatic: install --wait reaches the channel head; uninstall without --delete-operands leaves the operands and says so', async () => {
    const ns = await namespace('cli-classic-auto');
    // on a terminal: progress lines on stderr, one per change of the Subscription, its plan and its CSV
    const r = await olm(['install', '--classic', PKG, '-n', ns, ...catalogFlags(), '--wait', '--timeout', '180s'], { tty: true });
    expect(r.code, diag(r)).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^operatorgroup "${ns}" created \\(OwnNamespace: the operator watches namespace "${ns}"\\)\n`));
    expect(r.stderr).toMatch(new RegExp(`^\\[\\d+s\\] subscription/${PKG}: InstallPlan install-[a-z0-9]+=Complete ${v2.name}$`, 'm'));
    expect(r.stderr).toMatch(new RegExp(`^\\[\\d+s\\] subscription/${PKG}: CSV ${v2.name}=Succeeded InstallSucceeded: `, 'm'));
    expect(r.stdout).toBe(`subscription "${PKG}" created\noperator "${PKG}" installed; installed csv is "${v2.name}"\n`);
    const og = await kube().must<ops.OperatorGroup>(kube().request('GET', TestKube.path(ops.V1, ops.OperatorGroupResource, ns, ns)));
    expect(og.spec?.targetNamespaces).toEqual([ns]);
    const sub = await kube().must<ops.Subscription>(kube().request('GET', TestKube.path(ops.V1alpha1, ops.SubscriptionResource, PKG, ns)));
    expect(sub.spec).toMatchObject({ name: PKG, channel: 'stable', source: 'cli-classic', sourceNamespace: globalNs, installPlanApproval: 'Automatic' });

    await createWidget(ns, 'kept');
    const u = await olm(['uninstall', '--classic', PKG, '-n', ns, '--wait']);
    expect(u.code, diag(u)).toBe(0);
    expect(u.stdout).toBe(`subscription "${PKG}" deleted\nclusterserviceversion "${v2.name}" deleted\n`);
    expect(u.stderr).toBe(`1 operand left in place: widget "${ns}/kept" (--delete-operands deletes them)\n`);
    expect(await status(TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, v2.name, ns))).toBe(404);
    expect(await status(widgetPath(ns, 'kept'))).toBe(200);
  });

  it('Manual: install --wait stops at approval, approve installs, upgrade --classic approves the upgrade, list shows it, uninstall --delete-operands removes all', async () => {
    const ns = await namespace('cli-classic-manual');
    const r = await olm(['install', '--classic', PKG, '-n', ns, '--approval', 'Manual', '--version', '1.0.0', ...catalogFlags(), '--wait', '--timeout', '180s']);
    expect(r.code, diag(r)).toBe(0);
    expect(r.stdout).toBe(`subscription "${PKG}" created\n`);
    const hint = /installplan "(install-[a-z0-9]+)" awaits approval \(([^)]*)\); approve it with:\n {2}kubectl olm approve (\S+) -n (\S+)\n$/.exec(r.stderr);
    expect(hint, r.stderr).not.toBeNull();
    const [, plan, csvs, again, inNs] = hint!;
    expect([csvs, again, inNs]).toEqual([v1.name, plan, ns]);
    const sub = await kube().must<ops.Subscription>(kube().request('GET', TestKube.path(ops.V1alpha1, ops.SubscriptionResource, PKG, ns)));
    expect(sub.spec).toMatchObject({ installPlanApproval: 'Manual', startingCSV: v1.name });

    // list --classic: the plan awaiting approval; -o json parses
    const table = await olm(['list', '--classic', '-n', ns]);
    expect(table.code).toBe(0);
    const [header, row] = table.stdout.split('\n');
    expect(header).toMatch(/^NAME +NAMESPACE +PACKAGE +CHANNEL +INSTALLED CSV +STATE +AWAITING APPROVAL +AGE$/);
    expect(row!.split(/ {2,}/).slice(0, 4)).toEqual([PKG, ns, PKG, 'stable']);
    expect(row).toContain(plan);
    const listed = await olm(['list', '--classic', '-n', ns, '-o', 'json']);
    const list = JSON.parse(listed.stdout) as { kind: string; items: ops.Subscription[] };
    expect(list.kind).toBe('SubscriptionList');
    expect(list.items.map((s) => s.metadata.name)).toEqual([PKG]);
    expect((await olm(['list', '--classic', '-n', ns, '-o', 'name'])).stdout).toBe(`subscription.operators.coreos.com/${PKG}\n`);
    expect((await olm(['list', '--classic', '-A', '-o', 'json'])).code).toBe(0);

    // approve by the Subscription's name, waiting for the CSV
    const a = await olm(['approve', PKG, '-n', ns, '--wait', '--timeout', '180s']);
    expect(a.code, diag(a)).toBe(0);
    expect(a.stdout).toBe(`installplan "${plan}" approved\ninstalled csv "${v1.name}" succeeded\n`);
    const twice = await olm(['approve', plan!, '-n', ns]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(new RegExp(`^failed to approve: installplan "${plan}" is not awaiting approval \\(phase \\w+(, already approved)?\\)\n$`));

    // the upgrade to 1.1.0 waits for approval too; upgrade --classic approves it
    const pending = await untilCli('the upgrade plan awaiting approval', ['list', '--classic', '-n', ns], (l) => {
      const cells = l.stdout.split('\n')[1]?.split(/ {2,}/) ?? [];
      return cells[4] === v1.name && /^install-/.test(cells[6] ?? '') && cells[6] !== plan;
    });
    expect(pending.stdout).toContain('UpgradePending');
    const up = await olm(['upgrade', '--classic', PKG, '-n', ns, '--wait', '--timeout', '180s']);
    expect(up.code, diag(up)).toBe(0);
    expect(up.stdout).toMatch(new RegExp(`^installplan "install-[a-z0-9]+" approved\noperator "${PKG}" upgraded; installed csv is "${v2.name}"\n$`));
    const latest = await olm(['upgrade', '--classic', PKG, '-n', ns]);
    expect(latest).toMatchObject({ code: 1, stderr: 'failed to upgrade operator: operator is already at latest version\n' });

    // uninstall --delete-operands: the CR first (waited for), then Subscription and CSV
    await createWidget(ns, 'w1');
    const u = await olm(['uninstall', '--classic', PKG, '-n', ns, '--delete-operands', '--delete-operator-groups', '--wait']);
    expect(u.code, diag(u)).toBe(0);
    expect(u.stdout).toBe(`subscription "${PKG}" deleted\nwidget "${ns}/w1" deleted\nclusterserviceversion "${v2.name}" deleted\noperatorgroup "${ns}" deleted\n`);
    expect(u.stderr).toBe('');
    expect(await status(TestKube.path(ops.V1alpha1, ops.SubscriptionResource, PKG, ns))).toBe(404);
    expect(await status(TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, v2.name, ns))).toBe(404);
    expect(await status(widgetPath(ns, 'w1'))).toBe(404);
    expect(await status(TestKube.path(ops.V1, ops.OperatorGroupResource, ns, ns))).toBe(404);
    const gone = await olm(['uninstall', '--classic', PKG, '-n', ns]);
    expect(gone).toEqual({ code: 1, stdout: '', stderr: `uninstall operator: package "${PKG}" not found\n` });
  });
});
