// `kubectl olm migrate <subscription> -n <namespace>`: moves one operator OLM classic installed to OLM v1 in place
// (issue 33). Steps, each first checking what exists, so a run after an interruption at any step ends in the same
// state: `migrate check`'s verdict (eligible, or already-migrated with this command's backup); a backup of every
// object touched (a file and a Secret in the namespace); revision 1 as a ClusterObjectSet that adopts the CSV's
// objects in place, waited for; their classic ownership removed; the ClusterExtension pinned to the installed
// version, waited for until Installed from that revision; then the classic objects deleted without cascading.
// `migrate --all` runs this for every Subscription, one after the other, and ends with a summary table.
// The plan itself: ./migrate-plan.ts.
import { mkdir, writeFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Condition, KubeObject } from '../../../api/meta/v1.ts';
import type { ClusterServiceVersion, InstallPlan, OperatorGroup, Subscription } from '../../../api/operators/index.ts';
import { CopiedFromLabel, isCopiedCSV } from '../../../api/operators/index.ts';
import { ClusterExtensionKind, ClusterObjectSetKind, GroupVersion, MigratedFromSubscriptionKey, OwnerNameKey, type ClusterExtension, type ClusterObjectSet } from '../../../api/v1/index.ts';
import { findCondition } from '../../shared/controller/index.ts';
import { isAlreadyExists, isForbidden, ignoreNotFound, objectRef, retryOnConflict, type KubeClient, type ObjectRef } from '../../shared/kube/index.ts';
import { realClock, sleep } from '../../shared/toolkit/index.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, parseFlags, timeoutMs, withClient } from '../cluster.ts';
import { emit, table } from '../output.ts';
import { CliUsageError, type CliCommand, type CliIO } from '../types.ts';
import { waitFor } from '../wait.ts';
import { CSV, getOrUndefined, IP, NS_OPTION, OG, SUB } from './common.ts';
import { checkSubscriptions, featureGates } from './migrate-check.ts';
import type { CatalogBundle, MigrationCheck } from './migration.ts';
import { BackupKey, BackupLabel, classicLabels, describeRef, ownedObjects, planMigration, revisionMarks, subscriptionPlans, type MigrationInput, type MigrationPlan, type OwnershipChange } from './migrate-plan.ts';

const COS = { apiVersion: GroupVersion, kind: ClusterObjectSetKind } as const;
const CE = { apiVersion: GroupVersion, kind: ClusterExtensionKind } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
const FIELD_MANAGER = 'kubectl-olm-migrate';
/** How long reading a catalog's content may take (not --timeout, which is each step's wait). */
const CATALOG_READ_MS = 300_000;
/** Namespaced kinds a CSV owns objects of (InstallPlan steps and the CSV's own install), and the cluster-scoped ones. */
const NAMESPACED_KINDS = [
  ['apps/v1', 'Deployment'],
  ['v1', 'ServiceAccount'],
  ['rbac.authorization.k8s.io/v1', 'Role'],
  ['rbac.authorization.k8s.io/v1', 'RoleBinding'],
  ['v1', 'Service'],
  ['v1', 'ConfigMap'],
  ['v1', 'Secret'],
] as const;
const CLUSTER_KINDS = [
  ['rbac.authorization.k8s.io/v1', 'ClusterRole'],
  ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding'],
  // the CSV's webhookdefinitions (olm-classic names them generateName-<random> and finds them by these labels)
  ['admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration'],
  ['admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration'],
] as const;
const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;

/** What the backup Secret holds: the plan's input, so a run after the Subscription is gone can go on. */
interface Backup {
  readonly subscription: string;
  readonly extension: string;
  readonly bundle: CatalogBundle;
  readonly installMode?: string;
  readonly operatorGroupEmptyAfter: boolean;
  readonly items: KubeObject[];
}

export const backupSecretName = (sub: string): string => `olm-migrate-backup-${sub}`.slice(0, 253);

const withKind = (items: readonly KubeObject[], apiVersion: string, kind: string): KubeObject[] => items.map((o) => ({ ...o, apiVersion, kind }));

async function readBackup(client: KubeClient, ns: string, sub: string): Promise<Backup | undefined> {
  const s = await getOrUndefined<KubeObject & { data?: Record<string, string> }>(client, { ...SECRET, namespace: ns, name: backupSecretName(sub) });
  const data = s?.data?.[BackupKey];
  if (!data) return undefined;
  return JSON.parse(gunzipSync(Buffer.from(data, 'base64')).toString('utf8')) as Backup;
}

/** The plan's input from the Backup (the objects as they were before the migration). */
function inputFromBackup(b: Backup): MigrationInput {
  const of = (kind: string): KubeObject[] => b.items.filter((o) => o.kind === kind && o.apiVersion?.startsWith('operators.coreos.com/'));
  const classic = new Set(['Subscription', 'ClusterServiceVersion', 'InstallPlan', 'OperatorGroup']);
  return {
    sub: of('Subscription')[0] as Subscription,
    csv: of('ClusterServiceVersion').find((c) => !isCopiedCSV(c as ClusterServiceVersion)) as ClusterServiceVersion,
    copies: of('ClusterServiceVersion').filter((c) => isCopiedCSV(c as ClusterServiceVersion)) as ClusterServiceVersion[],
    plans: of('InstallPlan') as InstallPlan[],
    operatorGroup: of('OperatorGroup')[0] as OperatorGroup | undefined,
    operatorGroupEmptyAfter: b.operatorGroupEmptyAfter,
    owned: b.items.filter((o) => !(classic.has(o.kind ?? '') && o.apiVersion?.startsWith('operators.coreos.com/'))),
    bundle: b.bundle,
    installMode: b.installMode,
    extension: b.extension,
  };
}

/** The plan's input from the live cluster (the Subscription exists and `migrate check` passed). */
async function inputFromCluster(client: KubeClient, sub: Subscription, bundle: CatalogBundle, installMode: string | undefined, extension: string): Promise<MigrationInput> {
  const ns = sub.metadata.namespace ?? '';
  const csvName = sub.status?.installedCSV ?? '';
  const csv = (await client.get<ClusterServiceVersion>({ ...CSV, namespace: ns, name: csvName })) as ClusterServiceVersion;
  csv.apiVersion ??= CSV.apiVersion;
  csv.kind ??= CSV.kind;
  const copies = withKind(
    (await client.listAll<ClusterServiceVersion>(CSV, { labelSelector: `${CopiedFromLabel}=${ns}` })).items.filter((c) => c.metadata.name === csvName),
    CSV.apiVersion,
    CSV.kind,
  ) as ClusterServiceVersion[];
  const plans = withKind(subscriptionPlans(sub, csvName, (await client.list<InstallPlan>({ ...IP, namespace: ns })).items), IP.apiVersion, IP.kind) as InstallPlan[];
  const groups = withKind((await client.list<OperatorGroup>({ ...OG, namespace: ns })).items, OG.apiVersion, OG.kind) as OperatorGroup[];
  const otherSubs = (await client.list<Subscription>({ ...SUB, namespace: ns })).items.filter((s) => s.metadata.name !== sub.metadata.name);
  const otherCSVs = (await client.list<ClusterServiceVersion>({ ...CSV, namespace: ns })).items.filter((c) => c.metadata.name !== csvName && !isCopiedCSV(c));
  const candidates: KubeObject[] = [];
  for (const [apiVersion, kind] of NAMESPACED_KINDS) candidates.push(...withKind((await client.list({ apiVersion, kind, namespace: ns })).items, apiVersion, kind));
  for (const [apiVersion, kind] of CLUSTER_KINDS) {
    candidates.push(...withKind((await client.listAll({ apiVersion, kind }, { labelSelector: `olm.owner=${csvName},olm.owner.namespace=${ns}` })).items, apiVersion, kind));
  }
  const crds = withKind((await client.listAll(CRD)).items, CRD.apiVersion, CRD.kind);
  return {
    sub: { ...sub, apiVersion: SUB.apiVersion, kind: SUB.kind },
    csv,
    copies,
    plans,
    operatorGroup: groups[0],
    operatorGroupEmptyAfter: otherSubs.length === 0 && otherCSVs.length === 0,
    owned: ownedObjects(csv, candidates, crds),
    bundle,
    installMode,
    extension,
  };
}

/** A migration's or rollback's steps: `act` makes (or, in a dry run, only names) a change; `until` waits for one. */
class Runner {
  changed = false;
  readonly client: KubeClient;
  readonly io: CliIO;
  readonly dryRun: boolean;
  /** How long `until` waits for each step. */
  readonly timeout: number;
  constructor(client: KubeClient, io: CliIO, dryRun: boolean, timeout: number) {
    this.client = client;
    this.io = io;
    this.dryRun = dryRun;
    this.timeout = timeout;
  }

  /**
   * Polls `test` (the CLI's `waitFor`) until it answers true, or the deadline passes (the error says what it saw last:
   * the text it answered instead). A dry run waits for nothing.
   */
  async until(what: string, test: () => Promise<true | string>): Promise<void> {
    if (this.dryRun) return;
    const r = await waitFor({ get: test, done: (v) => v === true, timeoutMs: this.timeout, io: this.io, label: what });
    if (r.ok) return;
    if (r.reason === 'aborted') throw new Error(`interrupted while waiting for ${what}`);
    throw new Error(`timed out waiting for ${what}${r.last ? `: ${r.last}` : ''}`);
  }

  async act(line: string, fn: () => Promise<unknown>): Promise<void> {
    this.changed = true;
    if (this.dryRun) {
      this.io.stdout.write(`would ${line}\n`);
      return;
    }
    await fn();
    const [verb = '', ...rest] = line.split(' ');
    const past = new Map([['create', 'created'], ['write', 'wrote'], ['patch', 'patched'], ['delete', 'deleted'], ['remove', 'removed']]).get(verb.toLowerCase());
    this.io.stdout.write(`${past ?? verb} ${rest.join(' ')}\n`);
  }
}

/**
 * One object's classic ownership change, decided on the object as read and written only if it is still that object
 * (resourceVersion): a write that lost to another writer (the Deployment controller, the ClusterObjectSet runtime) is
 * decided again on a fresh read.
 */
async function moveOwnership(r: Runner, ref: ObjectRef, decide: (o: KubeObject) => OwnershipChange | undefined): Promise<void> {
  await retryOnConflict(
    async () => {
      const now = await getOrUndefined(r.client, ref);
      const change = now && decide(now);
      if (!now || !change) return;
      await r.act(`patch ${describeRef(change.ref)}: ${change.what}`, () =>
        r.client.patch(change.ref, 'merge', { metadata: { ...change.patch.metadata, resourceVersion: now.metadata.resourceVersion } }, { fieldManager: FIELD_MANAGER }),
      );
    },
    { attempts: 10 },
  );
}

async function deleteIfThere(client: KubeClient, ref: ObjectRef, orphan: boolean): Promise<void> {
  await ignoreNotFound(client.delete(ref, orphan ? { propagationPolicy: 'Orphan' } : {}));
}

async function runMigration(r: Runner, plan: MigrationPlan, input: MigrationInput, backup: Backup, backupExists: boolean, backupDir: string): Promise<void> {
  const { client, io } = r;
  const ns = input.sub.metadata.namespace ?? '';
  const subName = input.sub.metadata.name ?? '';
  // 2. the backup
  if (!backupExists) {
    const secretName = backupSecretName(subName);
    await r.act(`write backup of ${backup.items.length} objects to ${backupDir}/backup.json`, async () => {
      await mkdir(backupDir, { recursive: true });
      await writeFile(`${backupDir}/backup.json`, `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: backup.items }, null, 2)}\n`);
    });
    await r.act(`create Secret ${ns}/${secretName} (the backup)`, async () => {
      try {
        await client.create({
          ...SECRET,
          metadata: { name: secretName, namespace: ns, labels: { [BackupLabel]: subName.slice(0, 63) } },
          type: 'Opaque',
          data: { [BackupKey]: gzipSync(JSON.stringify(backup)).toString('base64') },
        } as KubeObject);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    });
  }
  // 3. revision 1, adopting the objects in place
  const cosName = plan.objectSet.metadata.name ?? '';
  const existing = await getOrUndefined<ClusterObjectSet>(client, { ...COS, name: cosName });
  if (!existing) {
    const n = (plan.objectSet.spec?.phases ?? []).reduce((s, p) => s + (p.objects?.length ?? 0), 0);
    await r.act(`create ClusterObjectSet ${cosName} (revision 1: ${n} objects in phases ${(plan.objectSet.spec?.phases ?? []).map((p) => p.name).join(', ')})`, () =>
      client.create(plan.objectSet),
    );
  }
  await r.until(`ClusterObjectSet ${cosName} to succeed (operator-controller must run with --feature-gates=BoxcutterRuntime=true)`, async () => {
    const c = await getOrUndefined<ClusterObjectSet>(client, { ...COS, name: cosName });
    const s = findCondition(c?.status?.conditions as Condition[] | undefined, 'Succeeded');
    const p = findCondition(c?.status?.conditions as Condition[] | undefined, 'Progressing');
    return s?.status === 'True' || (p ? `${p.reason}: ${p.message}` : '');
  });
  // 3b. classic ownership removed, so that neither the garbage collector nor the CSV finalizer deletes the objects
  for (const o of input.owned) await moveOwnership(r, objectRef(o), plan.ownership);
  // 4. the ClusterExtension, pinned to the installed version
  const extName = plan.extension.metadata.name ?? '';
  if (!(await getOrUndefined<ClusterExtension>(client, { ...CE, name: extName }))) {
    await r.act(`create ClusterExtension ${extName} (package ${input.sub.spec.name}, version ${input.bundle.version}${input.sub.spec.channel ? `, channel ${input.sub.spec.channel}` : ''})`, () =>
      client.create(plan.extension),
    );
  }
  await r.until(`ClusterExtension ${extName} to be installed from ${cosName}`, async () => {
    const e = await getOrUndefined<ClusterExtension>(client, { ...CE, name: extName });
    const revs = (await client.list<ClusterObjectSet>(COS, { labelSelector: `${OwnerNameKey}=${extName}` })).items.map((c) => c.metadata.name ?? '');
    if (revs.some((n) => n !== cosName)) throw new Error(`ClusterExtension ${extName} made another revision (${revs.join(', ')}) instead of adopting ${cosName}`);
    const installed = findCondition(e?.status?.conditions as Condition[] | undefined, 'Installed');
    const progressing = findCondition(e?.status?.conditions as Condition[] | undefined, 'Progressing');
    const active = (e?.status?.activeRevisions ?? []).map((a) => a.name);
    const ok = installed?.status === 'True' && e?.status?.install?.bundle.name === input.bundle.name && active.length === 1 && active[0] === cosName;
    return ok || [installed, progressing].filter((c) => c).map((c) => `${c!.type}=${c!.status} ${c!.reason}: ${c!.message}`).join('; ');
  });
  // 5. the classic objects, without cascading to what v1 now owns
  for (const d of plan.deletions) {
    // The CSV's copies go after it: a copy deleted while its parent is still there is copied again by olm-classic.
    if (!r.dryRun && d.ref.kind === 'ClusterServiceVersion' && d.ref.namespace !== ns) continue;
    if (!(await getOrUndefined(client, d.ref))) continue;
    if (d.ref.kind === 'OperatorGroup') {
      const others = (await client.list<Subscription>({ ...SUB, namespace: ns })).items.filter((s) => s.metadata.name !== subName);
      if (others.length > 0) continue;
    }
    await r.act(`delete ${describeRef(d.ref)}${d.orphan ? ' (propagationPolicy=Orphan)' : ''}`, () => deleteIfThere(client, d.ref, d.orphan === true));
  }
  if (!r.dryRun) {
    const csvRef = { ...CSV, namespace: ns, name: input.csv.metadata.name ?? '' };
    await r.until(`ClusterServiceVersion ${ns}/${csvRef.name} to be deleted (olm-classic removes its finalizer)`, async () => !(await getOrUndefined(client, csvRef)) || '');
    // olm-classic deletes the copies of a CSV that is gone; what is left after a while (it is not running, say) goes here.
    const copiesLeft = async (): Promise<ClusterServiceVersion[]> =>
      (await client.listAll<ClusterServiceVersion>(CSV, { labelSelector: `${CopiedFromLabel}=${ns}` })).items.filter((c) => c.metadata.name === csvRef.name);
    let left = await copiesLeft();
    for (const deadline = realClock.now() + COPIES_GRACE_MS; left.length > 0 && realClock.now() < deadline; left = await copiesLeft()) await sleep(COPIES_POLL_MS, io.signal);
    for (const c of left) {
      const ref = { ...CSV, name: c.metadata.name ?? '', namespace: c.metadata.namespace ?? '' };
      await r.act(`delete ${describeRef(ref)} (propagationPolicy=Orphan)`, () => deleteIfThere(client, ref, true));
    }
  }
  for (const o of input.owned) await moveOwnership(r, objectRef(o), plan.leftoverLabels);
}

/** How long olm-classic has to delete a migrated CSV's copies once the CSV is gone, and how often to look. */
const COPIES_GRACE_MS = 30_000;
const COPIES_POLL_MS = 500;

export const migrateCommand: CliCommand = {
  path: ['migrate'],
  summary: 'move an operator OLM classic installed (a Subscription) to an OLM v1 ClusterExtension in place',
  usage: [
    'Usage: kubectl olm migrate <subscription> [-n <namespace>] [--name <extension>] [--backup-dir <dir>] [--timeout <duration>] [--dry-run] [flags]',
    '       kubectl olm migrate --all [-n <namespace>] [--backup-dir <dir>] [--timeout <duration>] [--dry-run] [flags]',
    '',
    'Moves the operator a Subscription installed to a ClusterExtension without re-installing it (its Deployment,',
    'custom resources and CRDs stay as they are). operator-controller must run with --feature-gates=BoxcutterRuntime=true.',
    'Steps, each skipped when already done, so running it again after an interruption finishes the migration:',
    '  1. `kubectl olm migrate check` must say eligible (exit 1 with the reason otherwise)',
    '  2. a backup of the Subscription, CSV, InstallPlans, OperatorGroup and the objects the CSV owns (its Deployments,',
    '     Services, Secrets, RBAC, webhook configurations and CRDs): a file in --backup-dir and Secret',
    '     olm-migrate-backup-<subscription> in the namespace',
    '  3. ClusterObjectSet <extension>-1 (annotated olm.operatorframework.io/migrated-from-subscription) listing those',
    '     objects, which adopts them in place (olm-classic then leaves the CSV as it is: it no longer checks or',
    '     re-installs an operator whose Deployment v1 controls); then their owner references to the CSV and',
    '     olm.owner labels removed',
    '  4. ClusterExtension <extension> pinned to the installed version (and the Subscription\'s channel); waits until',
    '     it is Installed from that revision',
    '  5. deletes the Subscription, its InstallPlans, the CSV and its copies (propagationPolicy=Orphan), and the',
    '     OperatorGroup when nothing else uses it',
    'Run on a migrated Subscription, it says so and changes nothing.',
    '',
    'With --all, every Subscription of every namespace (of -n\'s only, when given) and every one a backup Secret stands',
    'for, one after the other (migrate check\'s verdicts read once, first): each eligible one migrated as above, each',
    'already migrated one skipped, each ineligible or conflicting one reported with its reason and left as it is; one',
    'that fails stops only itself. Each starts with a line `==> <namespace>/<subscription> <time>`; a table NAME',
    'NAMESPACE PACKAGE RESULT ends the run. Exit code: 0 when each is migrated or already migrated, 1 otherwise.',
    '',
    'Flags:',
    '  -n, --namespace <namespace>        the Subscription\'s namespace (default: the kubeconfig context\'s namespace)',
    '      --all                          every Subscription (of every namespace, or of -n\'s)',
    '      --name <extension>             the ClusterExtension\'s name (default: the package name; not with --all)',
    '      --backup-dir <dir>             where the backup file goes (default ./olm-migrate-<namespace>-<subscription>-<timestamp>/;',
    '                                     with --all, the folder those go in, default .)',
    '      --timeout <duration>           give up waiting for each step after this long (default 5m)',
    '      --feature-gates <gates>        operator-controller\'s gates the check assumes (see `migrate check --help`)',
    '      --dry-run                      print every object that would be created, changed or deleted (with --all, the',
    '                                     actions only); change nothing',
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm migrate my-operator -n operators --dry-run',
    '  kubectl olm migrate my-operator -n operators --timeout 10m',
    '  kubectl olm migrate --all --dry-run',
  ].join('\n'),
  async run(args, io) {
    const { values, positionals: pos } = parseFlags(args, {
      ...CONNECTION_OPTIONS,
      ...NS_OPTION,
      all: { type: 'boolean' },
      name: { type: 'string' },
      'backup-dir': { type: 'string' },
      timeout: { type: 'string' },
      'feature-gates': { type: 'string' },
      'dry-run': { type: 'boolean' },
    });
    if (values.all) {
      if (pos.length > 0) throw new CliUsageError('a subscription name cannot be given with --all');
      if (values.name !== undefined) throw new CliUsageError('--name cannot be given with --all (each extension is named after its package)');
    } else if (pos.length !== 1) throw new CliUsageError(`expected one subscription name, got ${pos.length}`);
    const gates = featureGates(values['feature-gates']);
    const t = timeoutMs(values.timeout, '5m');
    const opts: MigrateOptions = {
      gates,
      timeout: Number.isFinite(t) ? t : 24 * 3_600_000,
      dryRun: values['dry-run'] === true,
      ...(values.name !== undefined && { name: values.name }),
    };
    return withClient(values, io, async (client) => {
      if (values.all) return migrateAll(client, io, values.namespace, values['backup-dir'], opts);
      const ns = values.namespace ?? client.defaultNamespace ?? 'default';
      const subName = pos[0]!;
      const stamp = (io.clock ?? realClock).date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
      const backupDir = resolvePath(io.cwd, values['backup-dir'] ?? `olm-migrate-${ns}-${subName}-${stamp}`);
      return (await migrateOne(client, io, ns, subName, backupDir, opts)).code;
    });
  },
};

interface MigrateOptions {
  readonly gates: Readonly<Record<string, boolean>>;
  readonly timeout: number;
  readonly dryRun: boolean;
  /** The ClusterExtension's name (one Subscription only). */
  readonly name?: string;
}

/** How one Subscription's migration ended: the exit code and the summary table's RESULT. */
interface MigrateResult {
  readonly code: 0 | 1;
  readonly result: string;
}

/**
 * One Subscription's migration (`migrate <subscription>`, and each of `migrate --all`'s): `check` is the verdict
 * `migrate --all` already has (read once for every Subscription), else it is read here.
 */
async function migrateOne(client: KubeClient, io: CliIO, ns: string, subName: string, backupDir: string, opts: MigrateOptions, check?: MigrationCheck): Promise<MigrateResult> {
  let backup = await readBackup(client, ns, subName);
  const backupExists = backup !== undefined;
  const sub = await getOrUndefined<Subscription>(client, { ...SUB, namespace: ns, name: subName });
  if (sub && !backup) {
    let c = check;
    if (!c) {
      const checks = await checkSubscriptions(client, io, { namespace: ns, name: subName }, { gates: opts.gates, timeoutMs: CATALOG_READ_MS });
      if (typeof checks === 'string') {
        io.stderr.write(`${checks}\n`);
        return { code: 1, result: `failed: ${checks}` };
      }
      c = checks[0]!;
    }
    if (check !== undefined && c.verdict === 'already-migrated') {
      io.stdout.write(`subscription "${subName}" in namespace "${ns}" is already migrated (${c.reason}); nothing to do\n`);
      return { code: 0, result: 'already migrated' };
    }
    if (c.verdict !== 'eligible' || !c.catalogBundle) {
      io.stderr.write(`cannot migrate subscription "${subName}" in namespace "${ns}": ${c.verdict}: ${c.reasons.join('; ')}\n`);
      return { code: 1, result: `${c.verdict}: ${c.reason}${c.reasons.length > 1 ? ` (+${c.reasons.length - 1} more)` : ''}` };
    }
    const input = await inputFromCluster(client, sub, c.catalogBundle, c.installMode, opts.name ?? sub.spec.name);
    const plan = planMigration(input);
    backup = {
      subscription: subName,
      extension: input.extension,
      bundle: input.bundle,
      ...(input.installMode !== undefined && { installMode: input.installMode }),
      operatorGroupEmptyAfter: input.operatorGroupEmptyAfter,
      items: plan.backup,
    };
  } else if (!backup) {
    io.stderr.write(`subscriptions.operators.coreos.com "${subName}" not found\n`);
    return { code: 1, result: 'failed: not found' };
  }
  const input = inputFromBackup(backup);
  const plan = planMigration(input);
  if (opts.name !== undefined && opts.name !== input.extension) {
    io.stderr.write(`subscription "${subName}" is being migrated to ClusterExtension "${input.extension}" (from its backup); --name ${opts.name} differs\n`);
    return { code: 1, result: `failed: --name ${opts.name} differs from the backup's ClusterExtension "${input.extension}"` };
  }
  const runner = new Runner(client, io, opts.dryRun, opts.timeout);
  try {
    await runMigration(runner, plan, input, backup, backupExists, backupDir);
  } catch (err) {
    io.stderr.write(`migration of subscription "${subName}" in namespace "${ns}" stopped: ${(err as Error).message}\nRun the same command again to go on.\n`);
    return { code: 1, result: `failed: ${(err as Error).message.split('\n')[0] ?? ''}` };
  }
  if (!runner.changed) {
    io.stdout.write(`subscription "${subName}" in namespace "${ns}" is already migrated to ClusterExtension "${input.extension}"; nothing to do\n`);
    return { code: 0, result: 'already migrated' };
  }
  if (runner.dryRun) {
    // one operator: the objects too; with --all, the would-lines only
    if (check === undefined) io.stdout.write(`---\n${JSON.stringify([plan.objectSet, plan.extension], null, 2)}\n`);
    return { code: 0, result: `would migrate to ClusterExtension ${input.extension}` };
  }
  io.stdout.write(`subscription "${subName}" in namespace "${ns}" migrated to ClusterExtension "${input.extension}" (backup: Secret ${ns}/${backupSecretName(subName)})\n`);
  return { code: 0, result: `migrated to ClusterExtension ${input.extension}` };
}

/** The backup Secrets of a namespace (every namespace when undefined), decoded. */
async function listBackups(client: KubeClient, ns: string | undefined): Promise<{ secret: string; namespace: string; backup: Backup }[]> {
  type Labelled = KubeObject & { data?: Record<string, string> };
  const secrets = (ns === undefined ? await client.listAll<Labelled>(SECRET, { labelSelector: BackupLabel }) : await client.list<Labelled>({ ...SECRET, namespace: ns }, { labelSelector: BackupLabel })).items;
  return secrets.flatMap((s) => {
    const data = s.data?.[BackupKey];
    return data ? [{ secret: s.metadata.name ?? '', namespace: s.metadata.namespace ?? ns ?? '', backup: JSON.parse(gunzipSync(Buffer.from(data, 'base64')).toString('utf8')) as Backup }] : [];
  });
}

export const MIGRATE_ALL_HEADERS = ['NAME', 'NAMESPACE', 'PACKAGE', 'RESULT'] as const;

/**
 * `migrate --all [-n <namespace>]`: every Subscription of the scope, one after the other, as `migrate <subscription>`
 * moves it (verdicts read once, up front); the ones with a backup Secret whose Subscription is gone (migrated, or
 * interrupted after the Subscription's deletion) too, so a second run says they are already migrated. An ineligible or
 * conflicting Subscription is reported and left as it is; a failure stops only its own migration. Each starts with a
 * `==> <namespace>/<subscription> <time>` line; a table NAME NAMESPACE PACKAGE RESULT ends the run. Exit 1 when one is
 * not migrated (ineligible, conflicting, failed), else 0.
 */
async function migrateAll(client: KubeClient, io: CliIO, namespace: string | undefined, backupParent: string | undefined, opts: MigrateOptions): Promise<number> {
  const checks = await checkSubscriptions(client, io, namespace === undefined ? {} : { namespace }, { gates: opts.gates, timeoutMs: CATALOG_READ_MS });
  if (typeof checks === 'string') {
    io.stderr.write(`${checks}\n`);
    return 1;
  }
  const items = new Map<string, Pick<MigrationCheck, 'namespace' | 'name' | 'package'> & { check?: MigrationCheck }>();
  for (const c of checks) items.set(`${c.namespace}/${c.name}`, { namespace: c.namespace, name: c.name, package: c.package, check: c });
  for (const b of await listBackups(client, namespace)) {
    const key = `${b.namespace}/${b.backup.subscription}`;
    if (!items.has(key)) items.set(key, { namespace: b.namespace, name: b.backup.subscription, package: inputFromBackup(b.backup).sub.spec.name });
  }
  const sorted = [...items.values()].sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
  if (sorted.length === 0) {
    await emit(io.stderr, namespace ? `No resources found in ${namespace} namespace.\n` : 'No resources found\n');
    return 0;
  }
  const stamp = (io.clock ?? realClock).date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const rows: string[][] = [];
  let code = 0;
  for (const it of sorted) {
    if (io.signal?.aborted) {
      rows.push([it.name, it.namespace, it.package, 'not started: interrupted']);
      code = 1;
      continue;
    }
    io.stdout.write(`==> ${it.namespace}/${it.name} ${(io.clock ?? realClock).date().toISOString()}\n`);
    const backupDir = resolvePath(io.cwd, backupParent ?? '.', `olm-migrate-${it.namespace}-${it.name}-${stamp}`);
    // a check that is not eligible with a backup present still goes on from the backup (migrateOne reads it first)
    const r = await migrateOne(client, io, it.namespace, it.name, backupDir, opts, it.check ?? ALREADY).catch((err: Error): MigrateResult => {
      io.stderr.write(`migration of subscription "${it.name}" in namespace "${it.namespace}" stopped: ${err.message}\n`);
      return { code: 1, result: `failed: ${err.message.split('\n')[0] ?? ''}` };
    });
    if (r.code !== 0) code = 1;
    rows.push([it.name, it.namespace, it.package, r.result]);
  }
  io.stdout.write(`==> done ${(io.clock ?? realClock).date().toISOString()}\n`);
  await emit(io.stdout, table(MIGRATE_ALL_HEADERS, rows));
  return code;
}

/** The check of an item only a backup stands for (its Subscription gone): migrateOne goes on from the backup. */
const ALREADY: MigrationCheck = { name: '', namespace: '', package: '', csv: '', version: '', verdict: 'already-migrated', reason: '', reasons: [] };

/** A backed-up object as it is created again: no server fields, no status. */
function restorable(o: KubeObject): KubeObject {
  const { status: _status, ...rest } = o as KubeObject & { status?: unknown };
  const m = o.metadata;
  return {
    ...rest,
    metadata: {
      name: m.name,
      ...(m.namespace && { namespace: m.namespace }),
      ...(m.labels && { labels: m.labels }),
      ...(m.annotations && { annotations: m.annotations }),
    },
  };
}

/**
 * The backups of a namespace (of every namespace when `ns` is undefined), by the ClusterExtension they migrated to;
 * more than one (in several namespaces) is an error naming them.
 */
async function findBackup(client: KubeClient, ns: string | undefined, extension: string): Promise<{ secret: string; namespace: string; backup: Backup } | undefined> {
  const found = (await listBackups(client, ns)).filter((b) => b.backup.extension === extension);
  if (found.length > 1) throw new Error(`migration backups for ClusterExtension "${extension}" in several namespaces (${found.map((f) => f.namespace).join(', ')}); name one with -n`);
  return found[0];
}

export const migrateRollbackCommand: CliCommand = {
  path: ['migrate', 'rollback'],
  summary: 'give a migrated operator back to OLM classic from the backup `kubectl olm migrate` made',
  usage: [
    'Usage: kubectl olm migrate rollback <extension> [-n <namespace>] [--timeout <duration>] [--dry-run] [flags]',
    '',
    'Undoes `kubectl olm migrate` from its backup Secret (olm-migrate-backup-<subscription>) without deleting the',
    'operator\'s objects: deletes revision <extension>-1 with propagationPolicy=Orphan (its objects stay, no longer',
    'owned) and the marks it left on them, puts back the olm.owner labels they had (olm-classic finds its webhook',
    'configurations by them), deletes the ClusterExtension, then creates the OperatorGroup and the',
    'Subscription again (pinned to the CSV it had with startingCSV), waits until OLM classic has the CSV Succeeded',
    'again, puts the Subscription\'s startingCSV back as it was backed up (removed when it had none), and deletes',
    'the backup Secret.',
    'Each step is skipped when already done.',
    '',
    'Flags:',
    '  -n, --namespace <namespace>        where the backup is (default: the ClusterExtension\'s namespace; once it is',
    '                                     gone, the namespace holding its backup)',
    '      --timeout <duration>           give up waiting for each step after this long (default 5m)',
    '      --dry-run                      print what would be created and deleted; change nothing',
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm migrate rollback my-operator --dry-run',
    '  kubectl olm migrate rollback my-operator -n operators',
  ].join('\n'),
  async run(args, io) {
    const { values, positionals: pos } = parseFlags(args, { ...CONNECTION_OPTIONS, ...NS_OPTION, timeout: { type: 'string' }, 'dry-run': { type: 'boolean' } });
    if (pos.length !== 1) throw new CliUsageError(`expected one extension name, got ${pos.length}`);
    const extName = pos[0]!;
    const t = timeoutMs(values.timeout, '5m');
    const timeout = Number.isFinite(t) ? t : 24 * 3_600_000;
    return withClient(values, io, async (client) => {
      const ext = await getOrUndefined<ClusterExtension>(client, { ...CE, name: extName });
      // Without -n and once the ClusterExtension is gone (a rollback interrupted after deleting it), the backup is
      // looked for in every namespace (in the context's namespace when the user may not list Secrets cluster-wide).
      const known = values.namespace ?? ext?.spec?.namespace;
      const found = await findBackup(client, known, extName).catch((err: unknown) => {
        if (known !== undefined || !isForbidden(err)) throw err;
        return findBackup(client, client.defaultNamespace ?? 'default', extName);
      });
      const ns = found?.namespace ?? known ?? client.defaultNamespace ?? 'default';
      if (!found) {
        io.stderr.write(`no migration backup for ClusterExtension "${extName}" in namespace "${ns}" (Secrets labelled ${BackupLabel})\n`);
        return 1;
      }
      const input = inputFromBackup(found.backup);
      const r = new Runner(client, io, values['dry-run'] === true, timeout);
      const cosName = `${extName}-1`;
      try {
        // Only the migrated revision: once it is gone the extension makes a revision of its own (collision protection
        // Prevent: it collides with the orphaned objects and touches none), which goes with the extension.
        const migrated = await getOrUndefined<ClusterObjectSet>(client, { ...COS, name: cosName });
        if (migrated?.metadata.annotations?.[MigratedFromSubscriptionKey] !== undefined) {
          const uid = migrated.metadata.uid;
          await r.act(`delete ClusterObjectSet ${cosName} (propagationPolicy=Orphan: its objects stay)`, () =>
            ignoreNotFound(client.delete({ ...COS, name: cosName }, { propagationPolicy: 'Orphan', ...(uid && { preconditions: { uid } }) })),
          );
          await r.until(`ClusterObjectSet ${cosName} to be deleted`, async () => (await getOrUndefined(client, { ...COS, name: cosName }))?.metadata.uid !== uid || '');
        }
        for (const o of input.owned) await moveOwnership(r, objectRef(o), revisionMarks);
        for (const o of input.owned) await moveOwnership(r, objectRef(o), classicLabels(o));
        if (ext) await r.act(`delete ClusterExtension ${extName}`, () => deleteIfThere(client, { ...CE, name: extName }, false));
        await r.until(`ClusterExtension ${extName} to be deleted`, async () => !(await getOrUndefined(client, { ...CE, name: extName })) || '');
        const og = input.operatorGroup;
        const groups = (await client.list<OperatorGroup>({ ...OG, namespace: ns })).items;
        if (og && groups.length === 0) await r.act(`create OperatorGroup ${ns}/${og.metadata.name ?? ''}`, () => client.create(restorable(og)));
        const subName = input.sub.metadata.name ?? '';
        const csvName = input.csv.metadata.name ?? '';
        if (!(await getOrUndefined(client, { ...SUB, namespace: ns, name: subName }))) {
          const sub = restorable(input.sub) as Subscription;
          sub.spec = { ...input.sub.spec, startingCSV: csvName };
          await r.act(`create Subscription ${ns}/${subName} (startingCSV ${csvName})`, () => client.create(sub));
        }
        await r.until(`ClusterServiceVersion ${ns}/${csvName} to succeed`, async () => {
          const c = await getOrUndefined<ClusterServiceVersion>(client, { ...CSV, namespace: ns, name: csvName });
          return c?.status?.phase === 'Succeeded' || (c ? `${c.status?.phase ?? 'Pending'} ${c.status?.reason ?? ''}: ${c.status?.message ?? ''}` : '');
        });
        // The pin did its work once the Subscription has installed a CSV; then the Subscription is put back as it was
        // backed up (startingCSV only counts before anything is installed, so this changes no resolution).
        const original = input.sub.spec.startingCSV;
        const subRef = { ...SUB, namespace: ns, name: subName };
        if (original !== csvName) {
          await r.until(`Subscription ${ns}/${subName} to record an installed CSV`, async () => !!(await getOrUndefined<Subscription>(client, subRef))?.status?.installedCSV || '');
          // written only over the pinned Subscription as read (resourceVersion); olm-classic's status writes race it, so
          // a 409 is decided again on a fresh read
          await retryOnConflict(
            async () => {
              const live = await getOrUndefined<Subscription>(client, subRef);
              if (!((r.dryRun && !live) || live?.spec.startingCSV === csvName)) return;
              await r.act(`patch Subscription ${ns}/${subName}: restore startingCSV ${original === undefined ? '(absent, as backed up)' : `${original} (as backed up)`}`, () =>
                client.patch(subRef, 'merge', { metadata: { resourceVersion: live?.metadata.resourceVersion }, spec: { startingCSV: original ?? null } }, { fieldManager: FIELD_MANAGER }),
              );
            },
            { attempts: 10 },
          );
        }
        await r.act(`delete Secret ${ns}/${found.secret} (the backup)`, () => deleteIfThere(client, { ...SECRET, namespace: ns, name: found.secret }, false));
      } catch (err) {
        io.stderr.write(`rollback of ClusterExtension "${extName}" stopped: ${(err as Error).message}\nRun the same command again to go on.\n`);
        return 1;
      }
      if (!r.dryRun) io.stdout.write(`ClusterExtension "${extName}" rolled back to subscription "${input.sub.metadata.name ?? ''}" in namespace "${ns}"\n`);
      return 0;
    });
  },
};
