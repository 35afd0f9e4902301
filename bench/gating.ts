// OpenShift upgrade gating (issue 14, Performance): 1,000 CSVs and 200 ClusterExtensions installed in a real
// kube-apiserver with the classic and OpenShift CRDs. What gating reads of an install is there as the real
// controllers leave it: each CSV with its `operatorframework.io/properties` annotation (5 % blocking, one invalid),
// each ClusterExtension with its revision head Secret in olmv1-system carrying `olm.properties` (10 % blocking). No
// operator-controller runs, so the extensions stay as recorded. Figures:
//  1. one recompute, in memory (classic: every CSV's status; v1: every extension's), over many runs;
//  2. both controllers in this process: start to both ClusterOperators written, then one CSV edit to the
//     ClusterOperator message that names it (event → reconcile → status write), median of 5;
//  3. CPU the two controllers add to an idle minute (BENCH_GATING_IDLE_MS), against this process idle without them;
//  4. `kubectl olm upgrade-check` wall time on that cluster (no catalogs: every way out is "none").
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { runCaptured } from '../internal/cli/index.ts';
import {
  classicGatingSetup,
  classicStatus,
  classicVerdict,
  v1CurrentMinor,
  v1GatingSetup,
  v1Incompatible,
  v1Upgradeable,
  type CsvInfo,
  type ExtensionInfo,
} from '../internal/openshift/index.ts';
import { revisionHeadSource } from '../internal/operator-controller/index.ts';
import { KubeClient } from '../internal/shared/kube/index.ts';
import { partRunnables, type ManagerParts } from '../internal/shared/manager/index.ts';
import { createLogger, createMetrics } from '../internal/shared/observability/index.ts';
import { sleep } from '../internal/shared/toolkit/index.ts';
import { ControlPlane } from '../test/support/control-plane.ts';
import { installClassicCRDs, installCrds, installOpenShiftCRDs, yamlFiles } from '../test/support/crds.ts';
import { TestKube } from '../test/support/kube.ts';
import type { Figure } from './control-plane.ts';
import { ownCpuMs } from './memory.ts';

const CSVS = Number(process.env.BENCH_GATING_CSVS ?? 1000);
const EXTENSIONS = Number(process.env.BENCH_GATING_EXTENSIONS ?? 200);
const IDLE_MS = Number(process.env.BENCH_GATING_IDLE_MS ?? 60_000);
const NAMESPACES = 10;
const RELEASE = '4.22.0';
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const csvMax = (i: number): string | undefined => (i === 7 ? '"garbage"' : i % 20 === 0 ? '"4.22"' : i % 3 === 0 ? '"4.30"' : undefined);
const csvAnnotation = (i: number): string => {
  const max = csvMax(i);
  return `{"properties":[{"type":"olm.package","value":{"packageName":"p${i}","version":"1.0.${i}"}}${max ? `,{"type":"olm.maxOpenShiftVersion","value":${max}}` : ''}]}`;
};
const extProperties = (i: number): string => `[{"type":"olm.maxOpenShiftVersion","value":"${i % 10 === 0 ? '4.22' : '4.30'}"}]`;

async function parallel(n: number, f: (i: number) => Promise<unknown>, width = 16): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) await f(next++);
  }));
}

async function run(parts: ManagerParts): Promise<() => Promise<void>> {
  const stop = new AbortController();
  for (const i of parts.informers) i.start();
  const runnables = partRunnables(parts).map((r) => r(stop.signal));
  await Promise.all(parts.informers.map((i) => i.waitForSync(stop.signal)));
  const controllers = Promise.all(parts.controllers.map((c) => c.start(stop.signal)));
  return async () => {
    stop.abort();
    await controllers;
    await Promise.allSettled(runnables);
    await Promise.all(parts.informers.map((i) => i.stop()));
  };
}

export async function benchGating(): Promise<Figure[]> {
  const figures: Figure[] = [];
  // 1. In memory.
  const infos: CsvInfo[] = Array.from({ length: CSVS }, (_, i) => ({
    namespace: `ns-${i % NAMESPACES}`,
    name: `op-${i}.v1.0.${i}`,
    annotations: { 'operatorframework.io/properties': csvAnnotation(i) },
  }));
  const exts: ExtensionInfo[] = Array.from({ length: EXTENSIONS }, (_, i) => ({
    name: `ext-${i}`,
    revisions: [{ number: 1, active: true, bundleName: `ext-${i}.v1.0.0`, properties: extProperties(i) }],
  }));
  const minor = v1CurrentMinor(RELEASE);
  const rounds = 50;
  let t = performance.now();
  for (let r = 0; r < rounds; r++) {
    classicStatus(undefined, { name: 'olm', synced: true, targetVersions: [], olmVersion: 'x', related: [], verdict: () => classicVerdict(RELEASE, infos), now: 't' });
  }
  figures.push({ name: `classic recompute, ${CSVS} CSVs (in memory)`, value: Number(((performance.now() - t) / rounds).toFixed(2)), unit: 'ms' });
  t = performance.now();
  for (let r = 0; r < rounds; r++) v1Upgradeable(v1Incompatible(exts, minor), minor);
  figures.push({ name: `v1 recompute, ${EXTENSIONS} ClusterExtensions (in memory)`, value: Number(((performance.now() - t) / rounds).toFixed(2)), unit: 'ms' });

  // 2–4. In a real cluster.
  const cp = new ControlPlane();
  const info = await cp.start();
  const kube = new TestKube(info);
  const client = await KubeClient.fromConfig({ kubeconfig: info.kubeconfigPath });
  const stops: (() => Promise<void>)[] = [];
  try {
    await installCrds(kube, await yamlFiles(fileURLToPath(new URL('../config/crd/bases', import.meta.url))));
    await installClassicCRDs(kube);
    await installOpenShiftCRDs(kube);
    for (const ns of ['olmv1-system', ...Array.from({ length: NAMESPACES }, (_, i) => `ns-${i}`)]) {
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    }
    t = performance.now();
    await parallel(CSVS, (i) =>
      client.create({
        apiVersion: 'operators.coreos.com/v1alpha1',
        kind: 'ClusterServiceVersion',
        metadata: { name: infos[i]!.name, namespace: infos[i]!.namespace, annotations: { 'operatorframework.io/properties': csvAnnotation(i) } },
        spec: { displayName: `op ${i}`, install: { strategy: 'deployment', spec: { deployments: [] } } },
      }),
    );
    await parallel(EXTENSIONS, async (i) => {
      const name = `ext-${i}`;
      await client.create({
        apiVersion: 'olm.operatorframework.io/v1',
        kind: 'ClusterExtension',
        metadata: { name },
        spec: { namespace: 'ns-0', source: { sourceType: 'Catalog', catalog: { packageName: `p-${i}` } } },
      });
      await client.create({
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'olm.operatorframework.io/revision',
        immutable: true,
        metadata: {
          name: `${name}-1`,
          namespace: 'olmv1-system',
          labels: { 'olm.operatorframework.io/owner-kind': 'ClusterExtension', 'olm.operatorframework.io/owner-name': name, 'olm.operatorframework.io/revision-name': `${name}-1` },
          annotations: {
            'olm.operatorframework.io/package-name': `p-${i}`,
            'olm.operatorframework.io/bundle-name': `${name}.v1.0.0`,
            'olm.operatorframework.io/bundle-version': '1.0.0',
            'olm.operatorframework.io/bundle-reference': `registry.example.com/p-${i}@sha256:${'0'.repeat(64)}`,
            'olm.operatorframework.io/revision': '1',
            'olm.operatorframework.io/lifecycle-state': 'Active',
            'olm.operatorframework.io/succeeded': 'True',
            'olm.properties': extProperties(i),
          },
        },
      } as never);
    });
    figures.push({ name: `create ${CSVS} CSVs + ${EXTENSIONS} ClusterExtensions with revision heads`, value: Math.round(performance.now() - t), unit: 'ms' });

    const logger = createLogger({ level: 'error' });
    const ctx = { options: undefined as never, client, logger, metrics: createMetrics({ defaultMetrics: false }) };
    const idleBase = ownCpuMs();
    await sleep(Math.min(IDLE_MS, 10_000));
    const baselinePerMinute = ((ownCpuMs() - idleBase) / Math.min(IDLE_MS, 10_000)) * IDLE_MS;

    t = performance.now();
    stops.push(await run(classicGatingSetup({ name: 'operator-lifecycle-manager', releaseVersion: RELEASE, namespace: 'ns-0' })(ctx)));
    stops.push(await run(v1GatingSetup({ name: 'olm', currentMinor: minor, revisions: revisionHeadSource('olmv1-system') })(ctx)));
    const written = async (co: string, ok: (msg: string) => boolean): Promise<void> => {
      for (;;) {
        const r = await kube.request<{ status?: { conditions?: { type: string; message?: string }[] } }>('GET', `/apis/config.openshift.io/v1/clusteroperators/${co}`);
        const m = r.body.status?.conditions?.find((c) => c.type === 'Upgradeable')?.message;
        if (r.status === 200 && m !== undefined && ok(m)) return;
        await sleep(20);
      }
    };
    await Promise.all([written('operator-lifecycle-manager', (m) => m.includes('blocking')), written('olm', (m) => m.includes('Found ClusterExtensions'))]);
    figures.push({ name: 'start (lists, informers synced) to both ClusterOperators written', value: Math.round(performance.now() - t), unit: 'ms' });

    const latencies: number[] = [];
    for (let k = 0; k < 5; k++) {
      const i = 1 + k * 2; // CSVs without a max: give one a blocking one
      const tag = `4.${10 + k}`;
      const path = `/apis/operators.coreos.com/v1alpha1/namespaces/${infos[i]!.namespace}/clusterserviceversions/${infos[i]!.name}`;
      const t0 = performance.now();
      await kube.must(
        kube.request('PATCH', path, { metadata: { annotations: { 'operatorframework.io/properties': `{"properties":[{"type":"olm.maxOpenShiftVersion","value":"${tag}"}]}`, bench: randomUUID() } } }, 'application/merge-patch+json'),
      );
      await written('operator-lifecycle-manager', (m) => m.includes(`${infos[i]!.name} is ${tag}`));
      latencies.push(performance.now() - t0);
    }
    figures.push({ name: `one CSV edited → ClusterOperator message updated (${CSVS} CSVs, median of 5)`, value: Math.round(median(latencies)), unit: 'ms' });

    const idle0 = ownCpuMs();
    await sleep(IDLE_MS);
    const idle = ownCpuMs() - idle0;
    figures.push({ name: `CPU of this process idle for ${IDLE_MS / 1000} s with both controllers`, value: Math.round(idle), unit: 'ms' });
    figures.push({ name: `CPU of this process idle for ${IDLE_MS / 1000} s without them (10 s sampled, scaled)`, value: Math.round(baselinePerMinute), unit: 'ms' });

    t = performance.now();
    const r = await runCaptured(['upgrade-check', '--current', RELEASE, '-o', 'json', '--kubeconfig', info.kubeconfigPath], { env: {} });
    const blocking = r.code === 1 ? (JSON.parse(r.stdout) as { blocking: unknown[] }).blocking.length : Number.NaN;
    figures.push({ name: `kubectl olm upgrade-check wall time (${blocking} blockers listed)`, value: Math.round(performance.now() - t), unit: 'ms', note: `exit ${r.code}` });
    return figures;
  } finally {
    for (const stop of stops) await stop();
    await client.close();
    await cp.stop();
  }
}
