// Informer memory per cached object: 10,000 ConfigMaps (a small data map each) in a real
// kube-apiserver, heap measured after GC before and after the informer has synced.
import type { KubeObject } from '../api/meta/v1.ts';
import { KubeClient, Informer, stripManagedFields } from '../internal/shared/kube/index.ts';
import { ControlPlane } from '../test/support/control-plane.ts';
import type { Figure } from './control-plane.ts';
import { fullGc } from './memory.ts';

const COUNT = Number(process.env.BENCH_INFORMER_COUNT ?? 10_000);

function heapAfterGc(): number {
  fullGc();
  return process.memoryUsage().heapUsed;
}

export async function benchInformer(): Promise<Figure[]> {
  const cp = new ControlPlane();
  const info = await cp.start();
  const client = await KubeClient.fromConfig({ kubeconfig: info.kubeconfigPath });
  try {
    const ns = 'bench';
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const t0 = performance.now();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < COUNT) {
        const i = next++;
        await client.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `cm-${i}`, namespace: ns, labels: { app: 'bench', index: String(i % 100) } },
          data: { key: `value-${i}`, other: 'x'.repeat(64) },
        });
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const createMs = performance.now() - t0;

    const figures: Figure[] = [{ name: `create ${COUNT} ConfigMaps (16 concurrent)`, value: Math.round(COUNT / (createMs / 1000)), unit: 'objects/s' }];
    for (const [label, transform] of [
      ['as served', undefined],
      ['managedFields stripped', stripManagedFields],
    ] as const) {
      const { bytes, syncMs } = await measureInformer(info.kubeconfigPath, ns, transform);
      figures.push({ name: `informer heap per ConfigMap (${label})`, value: Math.round(bytes / COUNT), unit: 'bytes' });
      figures.push({ name: `informer list+sync of ${COUNT} ConfigMaps (${label})`, value: Math.round(syncMs), unit: 'ms' });
    }
    const one = JSON.stringify((await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'cm-1' })) ?? {});
    figures.push({ name: 'one ConfigMap as JSON on the wire, for scale', value: Buffer.byteLength(one), unit: 'bytes' });
    return figures;
  } finally {
    await client.close();
    await cp.stop();
  }
}

/**
 * Heap growth of one informer holding every ConfigMap of `ns`. A function of its own, so nothing
 * of this informer is reachable once it returns and the next measurement starts from a clean heap
 * (the client's own baseline is taken after it connects, so it is not counted).
 */
async function measureInformer(kubeconfig: string, ns: string, transform: ((obj: KubeObject) => KubeObject) | undefined): Promise<{ bytes: number; syncMs: number }> {
  // A client of its own: undici keeps the last request of a connection (and so the stopped
  // informer's watch) reachable until the next request on it.
  const client = await KubeClient.fromConfig({ kubeconfig });
  const before = heapAfterGc();
  const informer = new Informer({ client, apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, ...(transform && { transform }) });
  const t1 = performance.now();
  informer.start();
  await informer.waitForSync();
  const syncMs = performance.now() - t1;
  const after = heapAfterGc();
  const cached = informer.list().length;
  await informer.stop();
  await client.close();
  if (cached !== COUNT) throw new Error(`informer has ${cached} objects, want ${COUNT}`);
  return { bytes: after - before, syncMs };
}
