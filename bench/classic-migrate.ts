// `kubectl olm migrate` at scale (issue 33, Performance): BENCH_MIGRATE_COUNT operators (default 50, one small test
// package each, one catalog) installed by the real olm-classic binary through Subscriptions in one AllNamespaces
// namespace, then moved to OLM v1 with one `migrate --all` (the CLI in this process, as `runCaptured` runs it) against
// the real catalogd and operator-controller (`--feature-gates=BoxcutterRuntime=true`), all three started from source
// with tsx as test/support/process.ts `startBinary` starts them, on a fresh cluster (kube-apiserver, controllers, KWOK
// nodes) and registry. Figures: the install (last Subscription created → every CSV Succeeded), the migrations' total
// and per-operator p50/p99 (from the command's `==> <ns>/<sub> <time>` lines), the API server's requests during them
// (apiserver_request_total, every client: the CLI and the three controllers), how long any operator's Deployment was
// not Available during them (a watch on every Deployment from before the command until it ends; the target is zero), olm-classic's and operator-controller's RSS before and after, and whether every Deployment
// kept its UID and every extension is Installed from revision 1.
// Figures only. Run alone: `node --import tsx bench/classic-migrate.ts`.
import { appendFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import * as ops from '../api/operators/index.ts';
import type { KubeObject } from '../api/meta/v1.ts';
import { runCaptured } from '../internal/cli/index.ts';
import { KubeClient } from '../internal/shared/kube/index.ts';
import { sleep } from '../internal/shared/toolkit/index.ts';
import { installAdmissionPolicies } from '../test/support/admission.ts';
import { catalogFiles, pushTestBundle, type TestBundle } from '../test/support/bundles.ts';
import { ControlPlane } from '../test/support/control-plane.ts';
import { installCrds, yamlFiles } from '../test/support/crds.ts';
import { pushCatalogImage } from '../test/support/images.ts';
import { TestKube } from '../test/support/kube.ts';
import { freePort, waitFor } from '../test/support/net.ts';
import { startBinary, type ControllerProcess } from '../test/support/process.ts';
import { Registry } from '../test/support/registry.ts';
import type { Figure } from './control-plane.ts';
import { rssMiB } from './memory.ts';
import { ROOT } from './production.ts';

const COUNT = Number(process.env.BENCH_MIGRATE_COUNT ?? 50);
const GLOBAL = 'olm';
const SYSTEM_NS = 'olmv1-system';
const NS = 'bench-migrate';
const CATALOG = 'migrate';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const pct = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? 0;
};

/** The API server's requests so far, every verb and resource (the sum of apiserver_request_total). */
async function apiRequests(kube: TestKube): Promise<number> {
  const r = await kube.request<string>('GET', '/metrics');
  const text = typeof r.body === 'string' ? r.body : '';
  let n = 0;
  for (const line of text.split('\n')) if (line.startsWith('apiserver_request_total{')) n += Number(line.slice(line.lastIndexOf(' ') + 1));
  return n;
}

/** The lowest RSS of 5 samples a second apart (a GC may run at any one). */
async function settledRss(pid: number | undefined): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < 5; i++) {
    await sleep(1000);
    xs.push(await rssMiB(pid));
  }
  return Math.min(...xs);
}

/**
 * Watches every Deployment of `namespace` from now until `stop()`: how long, summed over them, one was not Available
 * (its Available condition not True, or deleted), and how many times one became so. Level-based: each event's state.
 */
async function watchAvailability(kubeconfig: string, namespace: string): Promise<{ stop: () => { unavailableMs: number; episodes: number; deployments: number; notAvailableAtStart: number; watchRestarts: number } }> {
  const client = await KubeClient.fromConfig({ kubeconfig });
  const kind = { apiVersion: 'apps/v1', kind: 'Deployment', namespace };
  const available = (d: Json | undefined): boolean => ((d?.['status']?.['conditions'] ?? []) as Json[]).some((c) => c['type'] === 'Available' && c['status'] === 'True');
  const list = await client.list<Json & KubeObject>(kind);
  /** name → since when it is not Available (undefined: Available) */
  const downSince = new Map<string, number | undefined>();
  let notAvailableAtStart = 0;
  for (const d of list.items) {
    const up = available(d);
    if (!up) notAvailableAtStart++;
    downSince.set(d.metadata.name ?? '', up ? undefined : performance.now());
  }
  let unavailableMs = 0;
  let episodes = 0;
  let watchRestarts = 0;
  const see = (name: string, up: boolean): void => {
    const since = downSince.get(name);
    if (up && since !== undefined) unavailableMs += performance.now() - since;
    if (!up && since === undefined && downSince.has(name)) episodes++;
    downSince.set(name, up ? undefined : (since ?? performance.now()));
  };
  const ac = new AbortController();
  let rv = list.metadata?.resourceVersion;
  void (async () => {
    while (!ac.signal.aborted) {
      try {
        for await (const e of client.watch<Json & KubeObject>(kind, { resourceVersion: rv, signal: ac.signal, timeoutSeconds: 600 })) {
          if (e.type === 'BOOKMARK') continue;
          rv = e.object.metadata.resourceVersion ?? rv;
          see(e.object.metadata.name ?? '', e.type !== 'DELETED' && available(e.object));
        }
      } catch {
        if (ac.signal.aborted) return;
        watchRestarts++;
        const again = await client.list<Json & KubeObject>(kind).catch(() => undefined);
        if (again) {
          rv = again.metadata?.resourceVersion;
          for (const d of again.items) see(d.metadata.name ?? '', available(d));
        }
      }
    }
  })();
  return {
    stop: () => {
      ac.abort();
      for (const [name, since] of downSince) if (since !== undefined) see(name, true);
      return { unavailableMs, episodes, deployments: downSince.size, notAvailableAtStart, watchRestarts };
    },
  };
}

/**
 * Watches the Subscriptions and (non-copied) CSVs of `namespace` from now until `stop()`: when each CSV was first seen
 * Succeeded and when each Subscription was first seen `AtLatestKnown` with that CSV as `installedCSV`. The lag of a
 * Subscription is the second minus the first (how late its status says what is installed).
 */
async function watchSubscriptionState(kubeconfig: string, namespace: string): Promise<{ stop: () => { lags: number[]; fromCreated: number[]; pending: number } }> {
  const client = await KubeClient.fromConfig({ kubeconfig });
  const csvSeen = new Map<string, number>();
  const csvSucceeded = new Map<string, number>();
  const subAtLatest = new Map<string, { csv: string; at: number }>();
  const ac = new AbortController();
  const follow = <T extends KubeObject>(kind: { apiVersion: string; kind: string; namespace: string }, see: (o: T) => void): void => {
    void (async () => {
      let rv: string | undefined;
      while (!ac.signal.aborted) {
        try {
          if (rv === undefined) {
            const list = await client.list<T>(kind, { signal: ac.signal });
            for (const o of list.items) see(o);
            rv = list.metadata?.resourceVersion;
          }
          for await (const e of client.watch<T>(kind, { resourceVersion: rv, signal: ac.signal, timeoutSeconds: 600 })) {
            if (e.type === 'BOOKMARK') continue;
            rv = e.object.metadata.resourceVersion ?? rv;
            if (e.type !== 'DELETED') see(e.object);
          }
        } catch {
          if (ac.signal.aborted) return;
          rv = undefined;
          await sleep(200);
        }
      }
    })();
  };
  follow<ops.ClusterServiceVersion>({ apiVersion: ops.V1alpha1, kind: ops.ClusterServiceVersionKind, namespace }, (c) => {
    const name = c.metadata.name ?? '';
    if (c.metadata.labels?.[ops.CopiedFromLabel]) return;
    if (!csvSeen.has(name)) csvSeen.set(name, performance.now());
    if (csvSucceeded.has(name) || c.status?.phase !== 'Succeeded') return;
    csvSucceeded.set(name, performance.now());
  });
  follow<ops.Subscription>({ apiVersion: ops.V1alpha1, kind: ops.SubscriptionKind, namespace }, (s) => {
    const name = s.metadata.name ?? '';
    if (subAtLatest.has(name) || s.status?.state !== 'AtLatestKnown' || !s.status.installedCSV) return;
    subAtLatest.set(name, { csv: s.status.installedCSV, at: performance.now() });
  });
  return {
    stop: () => {
      ac.abort();
      const lags: number[] = [];
      const fromCreated: number[] = [];
      for (const { csv, at } of subAtLatest.values()) {
        const seen = csvSeen.get(csv);
        if (seen !== undefined) fromCreated.push(Math.max(0, at - seen));
        const ok = csvSucceeded.get(csv);
        // a Subscription AtLatestKnown before its CSV Succeeded (state follows the CSV's existence) counts as 0
        if (ok !== undefined) lags.push(Math.max(0, at - ok));
        else lags.push(0);
      }
      return { lags, fromCreated, pending: csvSucceeded.size - subAtLatest.size };
    },
  };
}

/** One of the project's binaries from source; its last lines kept for a failure's note. */
async function start(name: 'catalogd' | 'operator-controller' | 'olm-classic', args: readonly string[], kubeconfig: string): Promise<{ proc: ControllerProcess; tail: string[] }> {
  const tail: string[] = [];
  // BENCH_MIGRATE_LOG_DIR: every line of each binary kept in <dir>/<name>.log (with BENCH_MIGRATE_LOG_LEVEL, e.g. debug)
  const logDir = process.env.BENCH_MIGRATE_LOG_DIR;
  const level = process.env.BENCH_MIGRATE_LOG_LEVEL;
  const proc = startBinary(name, ['--health-probe-bind-address=0', ...(name === 'olm-classic' ? ['--metrics-bind-address=0'] : []), ...(level ? [`--log-level=${level}`] : []), ...args], { KUBECONFIG: kubeconfig }, (l) => {
    if (logDir) appendFileSync(join(logDir, `${name}.log`), `${l}\n`);
    tail.push(l);
    if (tail.length > 20) tail.shift();
  });
  await Promise.race([
    proc.started,
    proc.exited.then(() => {
      throw new Error(`${name} exited before starting: ${tail.join(' | ')}`);
    }),
  ]);
  return { proc, tail };
}

export async function benchClassicMigrate(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const cp = new ControlPlane({ nodes: 2 });
  const reg = new Registry();
  const procs: ControllerProcess[] = [];
  const tmp = await mkdtemp(join(tmpdir(), 'bench-migrate-'));
  let subState: Awaited<ReturnType<typeof watchSubscriptionState>> | undefined;
  try {
    const info = await cp.start();
    const r = await reg.start();
    const kube = new TestKube(info);
    await installCrds(kube, await yamlFiles(join(ROOT, 'config/crd/classic')));
    await installCrds(kube, await yamlFiles(join(ROOT, 'config/crd/experimental')));
    await installAdmissionPolicies(kube, join(ROOT, 'config/admission'));
    for (const ns of [GLOBAL, SYSTEM_NS, NS]) await kube.must(kube.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));

    const bundles: TestBundle[] = [];
    for (let i = 0; i < COUNT; i++) bundles.push(await pushTestBundle(r, { packageName: `mig-op-${String(i).padStart(3, '0')}`, version: '1.0.0' }));
    const files = Object.assign({}, ...bundles.map((b) => catalogFiles(b.packageName, [{ bundle: b }]))) as Record<string, object>;
    const image = await pushCatalogImage(r, 'bench/migrate:v1', { files });
    await kube.must(
      kube.request('POST', TestKube.path(ops.V1alpha1, ops.CatalogSourceResource, undefined, GLOBAL), {
        apiVersion: ops.V1alpha1,
        kind: ops.CatalogSourceKind,
        metadata: { name: CATALOG, namespace: GLOBAL },
        spec: { sourceType: 'grpc', image: image.digestRef },
      }),
    );
    await kube.must(
      kube.request('POST', '/apis/olm.operatorframework.io/v1/clustercatalogs', {
        apiVersion: 'olm.operatorframework.io/v1',
        kind: 'ClusterCatalog',
        metadata: { name: CATALOG },
        spec: { source: { type: 'Image', image: { ref: image.ref } } },
      }),
    );

    // 1. COUNT Subscriptions in one AllNamespaces namespace, installed by olm-classic. BENCH_MIGRATE_SUBSCRIBE_FIRST=1:
    // created before olm-classic starts (its first passes find the CatalogSource not loaded yet: ResolutionFailed,
    // then the resolution while the Subscriptions are being labelled as the Operator's components)
    const subscribe = async (): Promise<Awaited<ReturnType<typeof watchSubscriptionState>>> => {
      await kube.must(kube.request('POST', TestKube.path(ops.V1, ops.OperatorGroupResource, undefined, NS), { apiVersion: ops.V1, kind: ops.OperatorGroupKind, metadata: { name: 'og' }, spec: {} }));
      const watch = await watchSubscriptionState(info.kubeconfigPath, NS);
      for (const b of bundles) {
        await kube.must(
          kube.request('POST', TestKube.path(ops.V1alpha1, ops.SubscriptionResource, undefined, NS), {
            apiVersion: ops.V1alpha1,
            kind: ops.SubscriptionKind,
            metadata: { name: b.packageName },
            spec: { source: CATALOG, sourceNamespace: GLOBAL, name: b.packageName, channel: 'stable', installPlanApproval: 'Automatic' },
          }),
        );
      }
      return watch;
    };
    const subscribeFirst = process.env.BENCH_MIGRATE_SUBSCRIBE_FIRST === '1';
    subState = subscribeFirst ? await subscribe() : undefined;

    const port = await freePort();
    const common = [`--insecure-registries=${r.host}`];
    const cd = await start('catalogd', [...common, `--catalogs-server-addr=127.0.0.1:${port}`, `--external-address=127.0.0.1:${port}`, `--cache-dir=${join(tmp, 'catalogd')}`], info.kubeconfigPath);
    procs.push(cd.proc);
    const classic = await start('olm-classic', [...common, `--cache-dir=${join(tmp, 'classic')}`, `--namespace=${GLOBAL}`], info.kubeconfigPath);
    procs.push(classic.proc);
    const oc = await start('operator-controller', [...common, `--cache-path=${join(tmp, 'oc')}`, `--system-namespace=${SYSTEM_NS}`, '--feature-gates=BoxcutterRuntime=true'], info.kubeconfigPath);
    procs.push(oc.proc);
    await waitFor(
      `ClusterCatalog ${CATALOG} Serving`,
      async () => {
        const c = await kube.request<Json>('GET', `/apis/olm.operatorframework.io/v1/clustercatalogs/${CATALOG}`);
        return ((c.body['status']?.['conditions'] ?? []) as Json[]).some((x) => x['type'] === 'Serving' && x['status'] === 'True');
      },
      { timeoutMs: 120_000, intervalMs: 100 },
    );

    subState ??= await subscribe();
    const i0 = performance.now();
    const csvs = async (): Promise<ops.ClusterServiceVersion[]> =>
      (await kube.must<{ items: ops.ClusterServiceVersion[] }>(kube.request('GET', TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, undefined, NS)))).items.filter(
        (c) => !c.metadata.labels?.[ops.CopiedFromLabel],
      );
    await waitFor(
      'every CSV Succeeded',
      async () => {
        const list = await csvs();
        return list.length >= COUNT && list.every((c) => c.status?.phase === 'Succeeded');
      },
      { timeoutMs: 20 * 60_000, intervalMs: 500 },
    );
    figures.push({ name: `${COUNT} Subscriptions (one namespace) → every CSV Succeeded${subscribeFirst ? ' (Subscriptions created before olm-classic started; from the ClusterCatalog Serving)' : ''}`, value: Math.round(performance.now() - i0), unit: 'ms', note: 'olm-classic from source (tsx)' });
    // `migrate --all` reads every verdict once, first: each Subscription must have recorded its installed CSV by then
    await waitFor(
      'every Subscription AtLatestKnown with its installed CSV',
      async () => {
        const subs = (await kube.must<{ items: ops.Subscription[] }>(kube.request('GET', TestKube.path(ops.V1alpha1, ops.SubscriptionResource, undefined, NS)))).items;
        return subs.length >= COUNT && subs.every((s) => s.status?.state === 'AtLatestKnown' && s.status.installedCSV);
      },
      { timeoutMs: 10 * 60_000, intervalMs: 500 },
    );
    figures.push({ name: `… → every Subscription AtLatestKnown with its installed CSV`, value: Math.round(performance.now() - i0), unit: 'ms' });
    const { lags, fromCreated, pending } = subState.stop();
    figures.push({
      name: 'Subscription state lag p50 (its CSV Succeeded → AtLatestKnown + installedCSV, both watched)',
      value: Math.round(pct(lags, 50)),
      unit: 'ms',
      note: `p99 ${Math.round(pct(lags, 99))} ms, max ${Math.round(Math.max(0, ...lags))} ms over ${lags.length} Subscriptions${lags.filter((l) => l === 0).length ? `; ${lags.filter((l) => l === 0).length} AtLatestKnown no later than their CSV Succeeded` : ''}${pending > 0 ? `; ${pending} never seen` : ''}`,
    });
    // upstream's state follows the CSV's existence (ensureSubscriptionCSVState), so this is the sync's own delay
    figures.push({
      name: 'Subscription state lag p50 from its CSV created (→ AtLatestKnown + installedCSV)',
      value: Math.round(pct(fromCreated, 50)),
      unit: 'ms',
      note: `p99 ${Math.round(pct(fromCreated, 99))} ms, max ${Math.round(Math.max(0, ...fromCreated))} ms over ${fromCreated.length} Subscriptions`,
    });

    const plans = (await kube.must<{ items: ops.InstallPlan[] }>(kube.request('GET', TestKube.path(ops.V1alpha1, ops.InstallPlanResource, undefined, NS)))).items;
    figures.push({ name: 'InstallPlans for the install', value: plans.length, unit: 'plans', note: plans.map((ip) => `${ip.metadata.name ?? ''} gen ${ip.spec.generation ?? 0}: ${(ip.spec.clusterServiceVersionNames ?? []).length} CSVs, ${ip.status?.phase ?? ''}`).join('; ') });
    // BENCH_MIGRATE_INSTALL_ONLY=1: the install figures only (no migrations)
    if (process.env.BENCH_MIGRATE_INSTALL_ONLY) return figures;

    const deployments = async (): Promise<Map<string, string>> =>
      new Map(
        (await kube.must<{ items: Json[] }>(kube.request('GET', `/apis/apps/v1/namespaces/${NS}/deployments`))).items.map((d) => [d['metadata']['name'] as string, d['metadata']['uid'] as string]),
      );
    const uidsBefore = await deployments();
    const classicBefore = await settledRss(classic.proc.child.pid);
    const ocBefore = await settledRss(oc.proc.child.pid);

    // 2. `migrate --all`: every Subscription, one after the other, while a watch sees every Deployment's Available
    const avail = await watchAvailability(info.kubeconfigPath, NS);
    const req0 = await apiRequests(kube);
    const m0 = performance.now();
    const run = await runCaptured(['migrate', '--all', '--backup-dir', join(tmp, 'backups'), '--timeout', '5m'], { cwd: tmp, env: { KUBECONFIG: info.kubeconfigPath } });
    const totalMs = performance.now() - m0;
    const requests = (await apiRequests(kube)) - req0;
    const down = avail.stop();
    // per operator: from its `==> <ns>/<sub> <time>` line to the next one (`==> done <time>` after the last)
    const stamps = [...run.stdout.matchAll(/^==> (\S+) (\S+)$/gm)].map((m) => Date.parse(m[2]!));
    const each = stamps.slice(1).map((t, i) => t - stamps[i]!);
    const rows = run.stdout.slice(run.stdout.lastIndexOf('==> done')).split('\n').slice(2).filter((l) => l !== '');
    const notMigrated = rows.filter((l) => !/\smigrated to ClusterExtension /.test(l));
    figures.push({
      name: `${COUNT} migrations with \`migrate --all\`: total`,
      value: Math.round(totalMs),
      unit: 'ms',
      note: run.code === 0 && notMigrated.length === 0 && rows.length === COUNT ? 'exit 0, every row migrated' : `exit ${run.code}, ${rows.length} rows, ${notMigrated.length} not migrated: ${notMigrated[0] ?? run.stderr.trim().split('\n')[0] ?? ''}`,
    });
    figures.push({ name: 'per operator p50 / p99 (between its ==> line and the next)', value: Math.round(pct(each, 50)), unit: 'ms', note: `p99 ${Math.round(pct(each, 99))} ms, max ${Math.round(Math.max(...each))} ms (operator ${each.indexOf(Math.max(...each)) + 1}), first ${Math.round(each[0] ?? 0)} ms; the catalog read and checks before the first: ${Math.round((stamps[0] ?? 0) - (Date.now() - (performance.now() - m0)))} ms` });
    figures.push({ name: 'API server requests during the migrations (every client)', value: requests, unit: 'requests', note: `${Math.round(requests / COUNT)} per operator` });
    figures.push({
      name: 'Deployment unavailability during the migrations (Available not True, every Deployment, watched throughout)',
      value: Math.round(down.unavailableMs),
      unit: 'ms',
      note: `${down.episodes} episodes over ${down.deployments} Deployments${down.notAvailableAtStart ? `; ${down.notAvailableAtStart} not Available before the first migration` : ''}${down.watchRestarts ? `; watch restarted ${down.watchRestarts}×` : ''}`,
    });

    // 3. the end state
    const uidsAfter = await deployments();
    const changed = [...uidsBefore].filter(([name, uid]) => uidsAfter.get(name) !== uid).map(([name]) => name);
    figures.push({ name: 'Deployments whose UID changed (or that are gone)', value: changed.length, unit: `of ${uidsBefore.size}`, note: changed.length ? changed.slice(0, 3).join(', ') : 'none' });
    const exts = (await kube.must<{ items: Json[] }>(kube.request('GET', '/apis/olm.operatorframework.io/v1/clusterextensions'))).items;
    const installed = exts.filter(
      (e) => ((e['status']?.['conditions'] ?? []) as Json[]).some((c) => c['type'] === 'Installed' && c['status'] === 'True') && JSON.stringify(e['status']?.['activeRevisions']) === JSON.stringify([{ name: `${e['metadata']['name']}-1` }]),
    ).length;
    const left = (await csvs()).length + (await kube.must<{ items: unknown[] }>(kube.request('GET', TestKube.path(ops.V1alpha1, ops.SubscriptionResource, undefined, NS)))).items.length;
    figures.push({ name: 'ClusterExtensions Installed from revision 1', value: installed, unit: `of ${COUNT}`, note: `${left} Subscriptions + CSVs left in the namespace` });
    figures.push({ name: 'olm-classic RSS before / after the migrations', value: classicBefore, unit: 'MiB', note: `after: ${await settledRss(classic.proc.child.pid)} MiB` });
    figures.push({ name: 'operator-controller RSS before / after the migrations', value: ocBefore, unit: 'MiB', note: `after: ${await settledRss(oc.proc.child.pid)} MiB` });
  } catch (err) {
    figures.push({ name: 'classic migrate bench', value: 0, unit: 'failed', note: (err as Error).message.split('\n')[0] ?? '' });
  } finally {
    subState?.stop();
    for (const p of procs.reverse()) await p.stop().catch(() => undefined);
    await reg.stop().catch(() => undefined);
    await cp.stop().catch(() => undefined);
    await rm(tmp, { recursive: true, force: true });
  }
  return figures;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const f of await benchClassicMigrate()) console.log(`${f.name}: ${f.value} ${f.unit}${f.note ? ` (${f.note})` : ''}`);
}
