// Classic CSV lifecycle at scale (issue 13, Performance): the real cluster (kube-apiserver, controller-manager,
// scheduler, KWOK nodes: Deployments roll out for real) and the CSV, OperatorGroup and OperatorCondition controllers
// of olm-classic in this process.
//  1. N CSVs (BENCH_CSV_COUNT, default 200) across 20 namespaces, each with its own Deployment: time until all are
//     Succeeded, heap/RSS growth per CSV;
//  2. the CPU of one idle resync pass (every CSV enqueued, until the queue drains) against the process idle as long;
//  3. the time from a Deployment becoming unavailable (its Pods not ready, the deployment controller's Available=False)
//     until the CSV reports it (Failed/ComponentUnhealthy), for a few CSVs.
import { setMaxListeners } from 'node:events';
import { csvSetup } from '../internal/classic/csv/index.ts';
import { olmCaches } from '../internal/classic/olmcache/index.ts';
import { operatorConditionSetup } from '../internal/classic/operatorcondition/index.ts';
import { operatorGroupSetup } from '../internal/classic/operatorgroup/index.ts';
import { KubeClient } from '../internal/shared/kube/index.ts';
import { mergeParts } from '../internal/shared/manager/index.ts';
import { createLogger, createMetrics } from '../internal/shared/observability/index.ts';
import { sleep } from '../internal/shared/toolkit/index.ts';
import * as ops from '../api/operators/index.ts';
import { csvFor } from '../test/support/classic-fixtures.ts';
import { ControlPlane, NOT_READY_ANNOTATION } from '../test/support/control-plane.ts';
import { installCrds, yamlFiles } from '../test/support/crds.ts';
import { TestKube } from '../test/support/kube.ts';
import type { Figure } from './control-plane.ts';
import { fullGc, procCpuMs } from './memory.ts';

const COUNT = Number(process.env.BENCH_CSV_COUNT ?? 200);
const NAMESPACES = 20;
const PROBES = 5;
const ms = (n: number): number => Math.round(n);

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, intervalMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(intervalMs);
  }
}

export async function benchClassicCSV(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const cp = new ControlPlane({ nodes: Math.max(2, Math.ceil((COUNT + 40) / 100)) });
  let stop: (() => Promise<void>) | undefined;
  try {
    const info = await cp.start();
    const kube = new TestKube(info);
    await installCrds(kube, await yamlFiles(new URL('../config/crd/classic/', import.meta.url).pathname));
    const logger = createLogger({ level: 'error', write: (l) => process.stderr.write(`${l}\n`) });
    const client = await KubeClient.fromConfig({ kubeconfig: info.kubeconfigPath });
    const metrics = createMetrics({ defaultMetrics: false });
    const ctx = {
      options: { leaderElect: false, leaderElectionNamespace: 'olm', leaderElectionId: 'bench', healthProbeBindAddress: '0', metricsBindAddress: '0', logLevel: 'error' as const },
      client,
      logger,
      metrics,
    };
    const caches = olmCaches(ctx);
    const csv = csvSetup(caches, { resyncMs: 3600_000 })(ctx);
    const parts = mergeParts({ informers: caches.informers, controllers: [] }, csv, operatorGroupSetup(caches)(ctx), operatorConditionSetup(caches)(ctx));
    const abort = new AbortController();
    setMaxListeners(0, abort.signal);
    for (const i of parts.informers) i.start();
    await Promise.all(parts.informers.map((i) => i.waitForSync(abort.signal)));
    const controllers = Promise.all(parts.controllers.map((c) => c.start(abort.signal)));
    stop = async () => {
      abort.abort();
      await controllers;
      await Promise.all(parts.informers.map((i) => i.stop()));
      await client.close();
    };

    const nss: string[] = [];
    for (let i = 0; i < NAMESPACES; i++) {
      const ns = `bench-csv-${i}`;
      nss.push(ns);
      await kube.must(kube.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
      await kube.must(kube.request('POST', TestKube.path(ops.V1, ops.OperatorGroupResource, undefined, ns), { apiVersion: ops.V1, kind: ops.OperatorGroupKind, metadata: { name: 'og' }, spec: { targetNamespaces: [ns] } }));
      await kube.must(kube.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'operator' } }));
    }
    await sleep(1000);
    fullGc();
    const mem0 = process.memoryUsage();
    const succeeded = (): number => caches.csvs.list().filter((c) => c.status?.phase === 'Succeeded').length;

    const t0 = performance.now();
    const names: { ns: string; name: string; deployment: string }[] = [];
    for (let i = 0; i < COUNT; i++) {
      const ns = nss[i % NAMESPACES]!;
      const name = `op${i}.v1.0.0`;
      const deployment = `op${i}-controller`;
      names.push({ ns, name, deployment });
      const body = csvFor({ name, deployment });
      await kube.must(kube.request('POST', TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, undefined, ns), { ...body, metadata: { ...body.metadata, namespace: ns } }));
    }
    const createdMs = performance.now() - t0;
    await until(`${COUNT} CSVs Succeeded`, () => succeeded() === COUNT, 30 * 60_000, 100);
    const installMs = performance.now() - t0;
    figures.push({ name: `${COUNT} CSVs in ${NAMESPACES} namespaces → all Succeeded`, value: ms(installMs / 100) / 10, unit: 's', note: `creating them took ${ms(createdMs)} ms; Deployments rolled out by the real controllers` });
    await sleep(2000);
    fullGc();
    const mem1 = process.memoryUsage();
    figures.push({ name: '  heap growth per Succeeded CSV (after GC)', value: ms((mem1.heapUsed - mem0.heapUsed) / COUNT), unit: 'bytes', note: `heap ${(mem1.heapUsed / 1e6).toFixed(0)} MB` });
    figures.push({ name: '  RSS growth per Succeeded CSV (after GC)', value: ms((mem1.rss - mem0.rss) / COUNT), unit: 'bytes', note: `RSS ${(mem1.rss / 1e6).toFixed(0)} MB` });

    // Idle resync: every CSV enqueued once; CPU until drained, against idle for as long.
    const q = csv.controller.queue;
    const keys = caches.csvs.keys();
    const s0 = await procCpuMs(cp.pid);
    const c0 = process.cpuUsage();
    const w0 = performance.now();
    for (const k of keys) csv.controller.enqueue(k);
    await until('resync drained', () => q.len() === 0 && q.processingCount() === 0, 10 * 60_000, 2);
    const passMs = performance.now() - w0;
    const cpu = process.cpuUsage(c0);
    const serverMs = (await procCpuMs(cp.pid)) - s0;
    const b0 = process.cpuUsage();
    await sleep(passMs);
    const base = process.cpuUsage(b0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const baseMs = (base.user + base.system) / 1000;
    figures.push({ name: `  idle resync of ${keys.length} CSVs: CPU of this process`, value: ms(cpuMs), unit: 'ms', note: `${(cpuMs / keys.length).toFixed(2)} ms/CSV over ${ms(passMs)} ms wall` });
    figures.push({ name: '  baseline: same process idle for as long', value: ms(baseMs), unit: 'ms CPU', note: `resync ${(cpuMs / Math.max(baseMs, 0.001)).toFixed(0)}× idle` });
    figures.push({ name: '  same resync pass: kube-apiserver+etcd CPU', value: ms(serverMs), unit: 'ms' });

    // Deployment unavailable → the CSV reports it.
    const lags: number[] = [];
    const detect: number[] = [];
    for (const probe of names.slice(0, PROBES)) {
      const dep = await kube.must<{ spec: { selector: { matchLabels: Record<string, string> } } }>(kube.request('GET', `/apis/apps/v1/namespaces/${probe.ns}/deployments/${probe.deployment}`));
      const selector = Object.entries(dep.spec.selector.matchLabels).map(([k, v]) => `${k}=${v}`).join(',');
      const pods = await kube.must<{ items: { metadata: { name: string } }[] }>(kube.request('GET', `/api/v1/namespaces/${probe.ns}/pods?labelSelector=${encodeURIComponent(selector)}`));
      const p0 = performance.now();
      for (const p of pods.items) {
        await kube.must(kube.request('PATCH', `/api/v1/namespaces/${probe.ns}/pods/${p.metadata.name}`, { metadata: { annotations: { [NOT_READY_ANNOTATION]: 'true' } } }, 'application/merge-patch+json'));
      }
      let unavailableAt = 0;
      await until(`${probe.deployment} unavailable`, async () => {
        const d = await kube.request<{ status?: { conditions?: { type: string; status: string }[] } }>('GET', `/apis/apps/v1/namespaces/${probe.ns}/deployments/${probe.deployment}`);
        const ok = (d.body.status?.conditions ?? []).some((c) => c.type === 'Available' && c.status === 'False');
        if (ok) unavailableAt = performance.now();
        return ok;
      }, 120_000, 5);
      await until(`${probe.name} reports it`, () => caches.csvs.get(`${probe.ns}/${probe.name}`)?.status?.phase !== 'Succeeded', 120_000, 2);
      lags.push(performance.now() - unavailableAt);
      detect.push(unavailableAt - p0);
    }
    const avg = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
    figures.push({ name: `  Deployment Available=False → CSV no longer Succeeded (mean of ${PROBES})`, value: ms(avg(lags)), unit: 'ms', note: `max ${ms(Math.max(...lags))} ms; Pods not ready → Available=False took ${ms(avg(detect))} ms (the deployment controller)` });
    return figures;
  } finally {
    await stop?.();
    await cp.stop();
  }
}
