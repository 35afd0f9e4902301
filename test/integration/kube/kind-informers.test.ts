// KindInformers on the shared control plane: one informer per kind named, shared selector, transform and handler.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { KindInformers, type KubeClient } from '../../../internal/shared/kube/index.ts';
import { controlPlane } from '../../support/env.ts';
import { adminClient, configMap, namespace, until } from './helpers.ts';

let kube: KubeClient;

beforeAll(async () => {
  kube = await adminClient(controlPlane());
});
afterAll(async () => {
  await kube?.close();
});

describe('KindInformers', () => {
  it('starts one informer per kind it is shown, caches the transformed objects and reports events of every kind', async () => {
    const ns = await namespace(kube, 'kinds');
    const seen: string[] = [];
    const set = new KindInformers<KubeObject>({
      client: kube,
      labelSelector: { matchLabels: { 'kind-informers-test': ns } },
      transform: (o) => ({ apiVersion: o.apiVersion, kind: o.kind, metadata: { name: o.metadata.name, namespace: o.metadata.namespace, labels: o.metadata.labels } }),
      what: 'test',
      onEvent: (type, obj) => seen.push(`${type} ${obj.kind} ${obj.metadata.name}`),
    });
    try {
      const labels = { 'kind-informers-test': ns };
      const cm = configMap(ns, 'one', { a: 'b' }, labels);
      const secret: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'two', namespace: ns, labels }, stringData: { x: 'y' } };
      expect(set.synced('v1', 'ConfigMap')).toBe(false);
      set.watch([cm, secret, cm]);
      expect(set.kinds()).toEqual(['v1/ConfigMap', 'v1/Secret']);
      await kube.create(cm);
      await kube.create(secret);
      await kube.create(configMap(ns, 'unlabelled', {}));
      await until('both adds', () => seen.length === 2);
      expect(seen.sort()).toEqual(['add ConfigMap one', 'add Secret two']);
      expect(set.synced('v1', 'ConfigMap')).toBe(true);
      const cached = set.get('v1', 'Secret', ns, 'two');
      expect(cached?.metadata.name).toBe('two');
      expect(cached?.['data']).toBeUndefined(); // the transform ran before caching
      expect(set.get('v1', 'ConfigMap', ns, 'unlabelled')).toBeUndefined();
      expect(set.get('v1', 'Pod', ns, 'one')).toBeUndefined(); // kind not watched
      await kube.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'one' });
      await until('the delete', () => seen.includes('delete ConfigMap one'));
    } finally {
      await set.stop();
    }
    set.watch([{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } }]);
    expect(set.kinds()).toEqual(['v1/ConfigMap', 'v1/Secret']); // stopped: nothing new starts
  });
});
