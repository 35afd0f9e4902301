// `kubectl olm` against the real cluster: catalogd and operator-controller run in this process, the
// demo operator (demo/) is pushed to the test registry, and every cluster command runs through the
// CLI's dispatcher (in process, as the binary would) — catalog add/list/delete, search,
// list-available, install --wait (with progress on a terminal), list, status, upgrade to a range,
// upgrade --force to a lower version, explain and status of a failing extension and of one blocked by a catalog
// that is not served, uninstall --wait,
// `-o json` that parses, exit codes. The last test runs bin/kubectl-olm itself.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterCatalog, ClusterExtension } from '../../../api/v1/index.ts';
import { runCaptured, type CapturedRun, type CaptureOptions } from '../../../internal/cli/index.ts';
import { publishDemo } from '../../support/demo.ts';
import { adminKube, controlPlane, registry } from '../../support/env.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { catalogFiles } from '../../support/bundles.ts';
import { deleteCatalogs, releaseFinalizers, uniqueName } from '../catalogd/catalogs.ts';
import { startCatalogd, stopAll } from '../catalogd/harness.ts';
import { deleteExtension, getExtension, startOperatorController, stopAllOperatorControllers, waitForExtension, waitGone } from '../operator-controller/harness.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
let work = '';
let namespace = '';
let demoImage = '';
let widgetsImage = '';
const demoCatalog = uniqueName('cli-demo');
const widgetsCatalog = uniqueName('cli-widgets');
const ext = uniqueName('cli-demo-op');
const failing = uniqueName('cli-failing');
const selector = `olm.operatorframework.io/metadata.name=${demoCatalog}`;

const olm = (argv: string[], opts: CaptureOptions = {}): Promise<CapturedRun> =>
  runCaptured(argv, { cwd: root, env: { KUBECONFIG: controlPlane().kubeconfigPath }, ...opts });

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cli-cluster-it-'));
  await startCatalogd();
  await startOperatorController();
  namespace = await adminKube().namespace('cli');
  demoImage = await publishDemo(registry().host, work);
  // A second catalog with another package: search reads every serving catalog.
  const widgets = await pushCatalogImage(registry(), 'cli/widgets-catalog:latest', {
    files: catalogFiles('cli-widgets', [{ bundle: { name: 'cli-widgets.v1.2.0', version: '1.2.0', image: `${registry().host}/cli/widgets-bundle:v1.2.0` } }]),
  });
  widgetsImage = widgets.ref;
}, 240_000);

afterAll(async () => {
  for (const e of [ext, failing]) await deleteExtension(e);
  for (const e of [ext, failing]) await waitGone(e).catch(() => undefined);
  await deleteCatalogs([demoCatalog, widgetsCatalog]).catch(() => undefined);
  await stopAllOperatorControllers();
  await stopAll();
  await releaseFinalizers();
  if (namespace) await adminKube().request('DELETE', `/api/v1/namespaces/${namespace}`);
  if (work) await rm(work, { recursive: true, force: true });
}, 120_000);

describe('kubectl olm against the cluster', () => {
  it('catalog add --wait on an image that does not exist gives up early with catalogd\'s cause first', async () => {
    const bad = uniqueName('cli-bad');
    try {
      const started = Date.now();
      const r = await olm(['catalog', 'add', bad, `${registry().host}/cli/no-such-catalog:latest`, '--wait', '--timeout', '90s']);
      expect(Date.now() - started).toBeLessThan(60_000);
      expect(r.code).toBe(1);
      expect(r.stderr.split('\n')[0]).toMatch(new RegExp(`^failed to create catalog "${bad}": \\S`));
      expect(r.stderr).not.toContain('context deadline exceeded');
      expect(r.stderr).toContain(`next: \`kubectl olm catalog delete ${bad}\``);
    } finally {
      await deleteCatalogs([bad]).catch(() => undefined);
    }
  }, 120_000);

  it('catalog add --wait creates the catalog and shows progress on a terminal', async () => {
    const r = await olm(['catalog', 'add', demoCatalog, demoImage, '--wait', '--timeout', '120s'], { tty: true });
    expect(r.stderr).toMatch(new RegExp(`^\\[\\d+s\\] clustercatalog/${demoCatalog}: Serving=True Available: `, 'm'));
    expect(r).toMatchObject({ code: 0, stdout: `catalog "${demoCatalog}" created\n` });

    // Without a terminal: the result only, and -o name.
    const w = await olm(['catalog', 'add', widgetsCatalog, widgetsImage, '--priority', '-5', '--wait', '--timeout', '120s', '-o', 'name']);
    expect(w).toEqual({ code: 0, stdout: `clustercatalog.olm.operatorframework.io/${widgetsCatalog}\n`, stderr: '' });

    const again = await olm(['catalog', 'add', demoCatalog, demoImage]);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`failed to create catalog "${demoCatalog}": clustercatalogs.olm.operatorframework.io "${demoCatalog}" already exists\n`);
  });

  it('catalog list: a table, and -o json that parses', async () => {
    const wide = await olm(['catalog', 'list', demoCatalog, '-o', 'wide']);
    expect(wide.stdout.split('\n')[0]).toMatch(/^NAME +AVAILABILITY +PRIORITY +LASTUNPACKED +SERVING +AGE +IMAGE +PROGRESSING$/);
    expect(wide.stdout).toContain(` ${demoImage} `);
    expect(wide.stdout).toMatch(/ Succeeded\n$/);
    const t = await olm(['catalog', 'list']);
    expect(t.code).toBe(0);
    const lines = t.stdout.split('\n');
    expect(lines[0]).toMatch(/^NAME +AVAILABILITY +PRIORITY +LASTUNPACKED +SERVING +AGE$/);
    expect(lines.find((l) => l.startsWith(`${demoCatalog} `))).toMatch(new RegExp(`^${demoCatalog} +Available +0 +\\S+ +True +\\S+$`));
    expect(lines.find((l) => l.startsWith(`${widgetsCatalog} `))).toMatch(/ +Available +-5 +/);

    const j = await olm(['catalog', 'list', '-o', 'json']);
    const list = JSON.parse(j.stdout) as { kind: string; items: ClusterCatalog[] };
    expect(list.kind).toBe('ClusterCatalogList');
    expect(list.items.map((c) => c.metadata.name)).toEqual(expect.arrayContaining([demoCatalog, widgetsCatalog]));
    expect(list.items[0]!.metadata.managedFields).toBeUndefined();

    const one = await olm(['catalog', 'list', demoCatalog, '-o', 'yaml']);
    expect(one.stdout).toContain(`kind: ClusterCatalog\nmetadata:\n`);
  });

  it('search finds the demo package in the serving catalogs', async () => {
    const r = await olm(['search', 'demo']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^PACKAGE +CATALOG +PROVIDER +CHANNELS +LATEST$/);
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^demo-operator +${demoCatalog} +OLM demo +stable \\(default\\), candidate +0\\.4\\.0$`)));

    const all = await olm(['search', '-o', 'json']);
    const found = (JSON.parse(all.stdout) as { packages: { package: string; catalog: string }[] }).packages;
    expect(found).toEqual(expect.arrayContaining([expect.objectContaining({ package: 'demo-operator', catalog: demoCatalog }), expect.objectContaining({ package: 'cli-widgets', catalog: widgetsCatalog })]));

    const one = await olm(['search', '--catalog', widgetsCatalog, '-o', 'name']);
    expect(one).toMatchObject({ code: 0, stdout: 'cli-widgets\n' });

    const none = await olm(['search', 'no-such-package-anywhere']);
    expect(none).toMatchObject({ code: 1, stdout: '', stderr: 'no package matching "no-such-package-anywhere" in the serving catalogs\n' });
  });

  it('list-available shows channels, versions and deprecations', async () => {
    const r = await olm(['list-available', 'demo-operator', '--catalog', demoCatalog]);
    expect(r.code).toBe(0);
    const rows = r.stdout.split('\n');
    expect(rows[0]).toMatch(/^CATALOG +CHANNEL +VERSION +BUNDLE +NOTES$/);
    expect(rows[1]).toMatch(new RegExp(`^${demoCatalog} +stable \\(default\\) +0\\.3\\.0 +demo-operator\\.v0\\.3\\.0 +head$`));
    expect(rows[2]).toMatch(/ 0\.2\.0 +demo-operator\.v0\.2\.0 +deprecated$/);
    expect(r.stdout).toContain(`Deprecations:\n  bundle demo-operator.v0.2.0 (catalog ${demoCatalog}): demo-operator.v0.2.0 is deprecated: it greets everyone twice. Upgrade to 0.3.0 or later.\n`);

    const j = JSON.parse((await olm(['list-available', 'demo-operator', '--catalog', demoCatalog, '-o', 'json'])).stdout) as { packages: { channels: { name: string; bundles: { version: string }[] }[] }[] };
    expect(j.packages[0]!.channels.map((c) => [c.name, c.bundles.map((b) => b.version)])).toEqual([
      ['stable', ['0.3.0', '0.2.0', '0.1.0']],
      ['candidate', ['0.4.0', '0.3.0', '0.2.0', '0.1.0']],
    ]);

    const missing = await olm(['list-available', 'nope']);
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringContaining('package "nope" was not found in any serving ClusterCatalog\n') });
  });

  it('install --wait returns once Installed=True, showing each condition change', async () => {
    const r = await olm(
      ['install', 'demo-operator', '--name', ext, '-n', namespace, '--channel', 'stable', '--version', '0.1.x', '-l', selector, '--wait', '--timeout', '150s'],
      { tty: true },
    );
    expect(r.stdout).toBe(`extension "${ext}" created\nextension "${ext}" installed bundle demo-operator.v0.1.0 (version 0.1.0)\n`);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^\\[\\d+s\\] clusterextension/${ext}: Installed=True Succeeded: `, 'm'));
    const e = await getExtension(ext);
    expect(e?.spec?.source.catalog).toEqual({
      packageName: 'demo-operator',
      version: '0.1.x',
      channels: ['stable'],
      selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': demoCatalog } },
      upgradeConstraintPolicy: 'CatalogProvided',
    });
    expect(e?.spec?.namespace).toBe(namespace);
    expect(e?.spec?.serviceAccount).toBeUndefined();
  }, 180_000);

  it('install -s sets the deprecated spec.serviceAccount: the API server’s warning on stderr, as kubectl prints it', async () => {
    const dry = uniqueName('cli-sa');
    const warned = await olm(['install', 'demo-operator', '--name', dry, '-n', namespace, '-s', 'some-sa', '--dry-run']);
    expect(warned).toMatchObject({
      code: 0,
      stdout: `extension "${dry}" created (dry run)\n`,
      stderr:
        "Warning: Validation failed for ValidatingAdmissionPolicy 'clusterextension-serviceaccount-deprecated' with binding 'clusterextension-serviceaccount-deprecated': spec.serviceAccount is deprecated, ignored, and will be removed in a future release. The operator-controller's cluster-admin service account is used for all cluster interactions.\n",
    });
    expect(JSON.parse((await olm(['install', 'demo-operator', '--name', dry, '-n', namespace, '-s', 'some-sa', '--dry-run', '-o', 'json'])).stdout)).toMatchObject({
      spec: { serviceAccount: { name: 'some-sa' } },
    });
    expect(await olm(['install', 'demo-operator', '--name', dry, '-n', namespace, '--dry-run'])).toMatchObject({ code: 0, stderr: '' });
  });

  it('install checks first: an existing extension (→ upgrade), the namespace, the package (did you mean); it creates nothing when one fails', async () => {
    const again = await olm(['install', 'demo-operator', '--name', ext, '-n', namespace]);
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toContain(`failed to install extension "${ext}": clusterextensions.olm.operatorframework.io "${ext}" already exists; to change its version or channel run \`kubectl olm upgrade ${ext} --version <range>\``);

    const other = uniqueName('cli-check');
    const noNs = await olm(['install', 'demo-operator', '--name', other, '-n', 'does-not-exist']);
    expect(noNs).toEqual({ code: 1, stdout: '', stderr: `failed to install extension "${other}": namespaces "does-not-exist" not found; create it first, or add --create-namespace\n` });
    expect(await getExtension(other)).toBeUndefined();

    const typoNs = uniqueName('cli-typo-ns');
    const typo = await olm(['install', 'demo-operatr', '--name', other, '-n', typoNs, '--create-namespace', '-l', selector]);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain(`package "demo-operatr" was not found in the serving ClusterCatalogs selected by "${selector}"; did you mean "demo-operator"?`);
    expect(await getExtension(other)).toBeUndefined();
    expect((await adminKube().request('GET', `/api/v1/namespaces/${typoNs}`)).status).toBe(404);

    // The API server refuses the extension (an invalid name) after --create-namespace made the namespace: it goes again.
    const madeNs = uniqueName('cli-made-ns');
    const refused = await olm(['install', 'demo-operator', '--name', 'Not_A_Name', '-n', madeNs, '--create-namespace', '-l', selector]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe(`namespace "${madeNs}" created\nnamespace "${madeNs}" deleted\n`);
    expect(refused.stderr).toMatch(/^failed to install extension "Not_A_Name": /);
    const left = await adminKube().request<{ status?: { phase?: string } }>('GET', `/api/v1/namespaces/${madeNs}`);
    expect(left.status === 404 || left.body.status?.phase === 'Terminating').toBe(true);
  });

  it('list: the installed version and state; -o json and -o name', async () => {
    const t = await olm(['list']);
    expect(t.stdout.split('\n')[0]).toMatch(/^NAME +PACKAGE +VERSION +INSTALLED BUNDLE +NAMESPACE +STATE +AGE$/);
    expect(t.stdout).toMatch(new RegExp(`^${ext} +demo-operator +0\\.1\\.0 +demo-operator\\.v0\\.1\\.0 +${namespace} +Installed +\\S+$`, 'm'));
    const list = JSON.parse((await olm(['list', '-o', 'json'])).stdout) as { kind: string; items: ClusterExtension[] };
    expect(list.kind).toBe('ClusterExtensionList');
    expect(list.items.find((i) => i.metadata?.name === ext)?.status?.install?.bundle.version).toBe('0.1.0');
    expect((await olm(['list', ext, '-o', 'name'])).stdout).toBe(`clusterextension.olm.operatorframework.io/${ext}\n`);
    const wide = await olm(['list', ext, '-o', 'wide']);
    expect(wide.stdout.split('\n')[0]).toMatch(/^NAME +PACKAGE +VERSION +INSTALLED BUNDLE +NAMESPACE +STATE +AGE +CHANNELS +VERSION RANGE +UPGRADE POLICY$/);
    expect(wide.stdout).toMatch(new RegExp(`^${ext} +demo-operator +0\\.1\\.0 +.* +stable +0\\.1\\.x +CatalogProvided$`, 'm'));
  });

  it('status: conditions in words, the installed bundle, and what is newer outside the range', async () => {
    const r = await olm(['status', ext]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Installed bundle: demo-operator.v0.1.0 (version 0.1.0)\nState:            Installed\n`);
    expect(r.stdout).toMatch(/^ {2}Installed: +installed — Installed bundle .* successfully \(True, Succeeded\)$/m);
    expect(r.stdout).toMatch(/^ {2}Progressing: +done: the cluster matches the spec — Desired state reached \(True, Succeeded\)$/m);
    expect(r.stdout).toContain('Next:             none: demo-operator.v0.1.0 is the newest bundle the spec allows\n');
    expect(r.stdout).toContain(`Outside range:    demo-operator.v0.3.0 (version 0.3.0) from catalog "${demoCatalog}"; to get it:\n                  kubectl olm upgrade ${ext} --version 0.3.0\n`);
    const j = JSON.parse((await olm(['status', ext, '-o', 'json'])).stdout) as { installed: { version: string }; next: { bundle: string }; outsideRange: { version: string } };
    expect(j).toMatchObject({ installed: { version: '0.1.0' }, next: { bundle: 'demo-operator.v0.1.0' }, outsideRange: { version: '0.3.0' } });
  });

  it('upgrade to a range moves along the graph', async () => {
    const r = await olm(['upgrade', ext, '--version', '>=0.1.0 <1.0.0', '--wait', '--timeout', '150s']);
    expect(r).toMatchObject({ code: 0, stdout: `extension "${ext}" updated\nextension "${ext}" installed bundle demo-operator.v0.3.0 (version 0.3.0)\n`, stderr: '' });
    const same = await olm(['upgrade', ext, '--version', '>=0.1.0 <1.0.0']);
    expect(same).toMatchObject({ code: 1, stderr: 'failed to update extension: no changes detected - extension already in desired state\n' });
  }, 180_000);

  it('upgrade --wait to a lower version without --force gives up early and names --force', async () => {
    const started = Date.now();
    const r = await olm(['upgrade', ext, '--version', '0.1.0', '--wait', '--timeout', '60s']);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(r).toMatchObject({ code: 1, stdout: `extension "${ext}" updated\n` });
    expect(r.stderr.split('\n')[0]).toMatch(new RegExp(`^failed to update extension: extension "${ext}" did not finish upgrading: error upgrading from currently installed version "0\\.3\\.0": `));
    expect(r.stderr).toContain(`\`kubectl olm upgrade ${ext} --version 0.1.0 --force\``);
  }, 60_000);

  it('upgrade --force to a lower version sets SelfCertified after the confirmation', async () => {
    const asked = await olm(['upgrade', ext, '--version', '0.1.0', '--force', '--wait', '--timeout', '150s'], { tty: true, stdin: 'yes\n' });
    expect(asked.stderr).toContain('A forced upgrade or downgrade can lose data.');
    expect(asked).toMatchObject({ code: 0, stdout: `extension "${ext}" updated\nextension "${ext}" installed bundle demo-operator.v0.1.0 (version 0.1.0)\n` });
    expect((await getExtension(ext))?.spec?.source.catalog?.upgradeConstraintPolicy).toBe('SelfCertified');
  }, 180_000);

  it('a failing extension: install --wait gives up early on a version the catalogs lack, with the next command; status and explain say why', async () => {
    const started = Date.now();
    const r = await olm(['install', 'demo-operator', '--name', failing, '-n', namespace, '--version', '9.9.9', '-l', selector, '--wait', '--timeout', '60s']);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(`extension "${failing}" created\n`);
    const why = `no bundles found for package "demo-operator" matching version "9.9.9"`;
    expect(r.stderr).toContain(`failed to install extension "${failing}": cluster extension "${failing}" did not finish installing: ${why}\n`);
    expect(r.stderr).toContain(`run \`kubectl olm status ${failing}\` or \`kubectl olm explain ${failing}\` to see why\n`);
    expect(r.stderr).toContain(`waiting will not fix this (--wait-for-fix waits anyway); next: \`kubectl olm list-available demo-operator\` or \`kubectl olm upgrade ${failing} --version <range>\`\n`);

    await waitForExtension(failing, 'Retrying', (e) => e.status?.conditions?.some((c) => c.type === 'Progressing' && c.reason === 'Retrying') === true);
    const s = await olm(['status', failing]);
    expect(s.code).toBe(0);
    expect(s.stdout).toContain('State:            Retrying\n');
    expect(s.stdout).toMatch(new RegExp(`^ {2}Progressing: +retrying after an error — ${why} \\(True, Retrying\\)$`, 'm'));
    expect(s.stdout).toContain(`Next:             does not resolve from the catalogs now: ${why}\n`);

    const x = await olm(['explain', failing]);
    expect(x.code).toBe(1);
    expect(x.stdout).toContain(`Resolution fails:\n  ${why}\n`);
    expect(x.stdout).toContain(`catalog "${widgetsCatalog}" (priority -5): not selected by spec.source.catalog.selector\n`);
    expect(x.stdout).toContain(`catalog "${demoCatalog}" (priority 0): no bundle passed the filters\n`);
    expect(x.stdout).toContain('  demo-operator.v0.3.0 0.3.0: version 0.3.0 does not satisfy range "9.9.9"\n');
    expect(x.stdout).toContain(`Progressing (True, Retrying): ${why}\n`);
    const xj = JSON.parse((await olm(['explain', failing, '-o', 'json'])).stdout) as { error: string; resolved: null };
    expect(xj).toMatchObject({ error: why, resolved: null });

    const ok = await olm(['explain', ext]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`Resolves to demo-operator.v0.1.0 (version 0.1.0) from catalog "${demoCatalog}".\n`);
  }, 120_000);

  it('an unserved catalog that blocks resolution: status and explain name it and the way out', async () => {
    const broken = uniqueName('cli-unserved');
    const blocked = uniqueName('cli-blocked');
    await adminKube().must(
      adminKube().request('POST', '/apis/olm.operatorframework.io/v1/clustercatalogs', {
        apiVersion: 'olm.operatorframework.io/v1',
        kind: 'ClusterCatalog',
        metadata: { name: broken, labels: { 'cli.test/blocked': broken } },
        spec: { source: { type: 'Image', image: { ref: `${registry().host}/cli/no-such-catalog:latest` } } },
      }),
    );
    try {
      expect((await olm(['install', 'demo-operator', '--name', blocked, '-n', namespace, '-l', `cli.test/blocked=${broken}`])).code).toBe(0);
      const notServed = `error walking catalogs: error getting package "demo-operator" from catalog "${broken}": catalog "${broken}" is not being served`;
      const wayOut = `a selected catalog that is not served blocks resolution, so a lower-priority catalog cannot win by accident: fix its source (kubectl get clustercatalog ${broken} -o yaml), or set spec.availabilityMode: Unavailable on it to leave it out`;
      await waitForExtension(blocked, 'Retrying on the unserved catalog', (e) => e.status?.conditions?.some((c) => c.type === 'Progressing' && c.message.includes(notServed)) === true);

      const s = await olm(['status', blocked]);
      expect(s.code).toBe(0);
      expect(s.stdout).toContain(`Next:             does not resolve from the catalogs now: ${notServed}\n`);
      expect(s.stdout).toContain(`Blocked by:       catalog "${broken}", which is not served: ${wayOut}\n`);
      const sj = JSON.parse((await olm(['status', blocked, '-o', 'json'])).stdout) as { blockedBy: { catalog: string; error: string; wayOut: string } };
      expect(sj.blockedBy).toEqual({ catalog: broken, error: `catalog "${broken}" is not being served`, wayOut });

      const x = await olm(['explain', blocked]);
      expect(x.code).toBe(1);
      expect(x.stdout).toContain(`catalog "${broken}" (priority 0): error: catalog "${broken}" is not being served\n  ${wayOut}\n`);
    } finally {
      await deleteExtension(blocked);
      await waitGone(blocked).catch(() => undefined);
      await deleteCatalogs([broken]).catch(() => undefined);
    }
  }, 120_000);

  it('uninstall and catalog delete take several names, as kubectl delete does; each one that fails is named', async () => {
    const a = uniqueName('cli-none');
    const b = uniqueName('cli-none');
    const r = await olm(['uninstall', a, b]);
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: `failed to delete extension: clusterextensions.olm.operatorframework.io "${a}" not found\nfailed to delete extension: clusterextensions.olm.operatorframework.io "${b}" not found\n`,
    });
    const c = await olm(['catalog', 'delete', a, b]);
    expect(c.code).toBe(1);
    expect(c.stderr.split('\n').filter((l) => l.includes('not found'))).toHaveLength(2);
  });

  it('uninstall --wait returns once the extension is gone', async () => {
    expect(await olm(['uninstall', failing])).toMatchObject({ code: 0, stdout: `extension "${failing}" deleted\n` });
    const r = await olm(['uninstall', ext, '--wait', '--timeout', '120s']);
    expect(r).toEqual({ code: 0, stdout: `extension "${ext}" deleted\n`, stderr: '' });
    expect(await getExtension(ext)).toBeUndefined();
    const again = await olm(['uninstall', ext]);
    expect(again).toEqual({ code: 1, stdout: '', stderr: `failed to delete extension: clusterextensions.olm.operatorframework.io "${ext}" not found\n` });
    expect((await olm(['status', ext])).code).toBe(1);
  }, 150_000);

  it('catalog delete --wait', async () => {
    const r = await olm(['catalog', 'delete', widgetsCatalog, '--wait', '--timeout', '60s']);
    expect(r).toEqual({ code: 0, stdout: `catalog "${widgetsCatalog}" deleted\n`, stderr: '' });
  });

  it('bin/kubectl-olm: the same commands from the launcher, with exit codes 0, 1 and 2', async () => {
    const bin = (args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
      new Promise((resolve, reject) => {
        const child = spawn(join(root, 'bin', 'kubectl-olm'), args, { cwd: root, env: { ...process.env, KUBECONFIG: controlPlane().kubeconfigPath }, stdio: ['ignore', 'pipe', 'pipe'] });
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        child.stdout.on('data', (c: Buffer) => out.push(c));
        child.stderr.on('data', (c: Buffer) => err.push(c));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }));
      });
    const list = await bin(['catalog', 'list', '-o', 'json']);
    expect(list.code).toBe(0);
    expect((JSON.parse(list.stdout) as { items: ClusterCatalog[] }).items.map((c) => c.metadata.name)).toContain(demoCatalog);
    expect((await bin(['status', 'no-such-extension'])).code).toBe(1);
    const usage = await bin(['install']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('error: missing <package>');
  }, 120_000);
});
