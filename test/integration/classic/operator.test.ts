// The Operator API (operators.coreos.com/v1 Operator) with the real olm-classic binary against the real cluster and
// registry: a Subscription's install makes an Operator `<package>.<namespace>` whose status lists the Subscription,
// the InstallPlan, the CSV, the owned CRD and the Deployment with their conditions, in upstream's order; deleting
// the Subscription and the CSV takes them (and what the CSV owned) off the list, while the Operator stays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import { compareRefs } from '../../../internal/classic/operator/index.ts';
import { catalogFiles, pushTestBundle, type TestBundle } from '../../support/bundles.ts';
import { createImageCatalogSource } from '../../support/classic-olm.ts';
import { installClassicCRDs } from '../../support/crds.ts';
import { adminKube, registry, testNamespaces } from '../../support/env.ts';
import { pushCatalogImage } from '../../support/images.ts';
import { TestKube } from '../../support/kube.ts';
import { waitForValue } from '../../support/net.ts';
import { startOlmClassicProcess, type OlmClassicProcess } from '../../support/olm-classic-process.ts';

const kube = (): TestKube => adminKube();
let olmClassic: OlmClassicProcess | undefined;
let globalNs: string;
const namespaces = testNamespaces();
let bundle: TestBundle;
const PKG = 'opapi-op';

beforeAll(async () => {
  await installClassicCRDs(kube());
  globalNs = await namespaces.create('opapi-olm');
  bundle = await pushTestBundle(registry(), { packageName: PKG, version: '1.0.0' });
  const image = await pushCatalogImage(registry(), 'classic-opapi/catalog:v1', { files: catalogFiles(PKG, [{ bundle }]) });
  await createImageCatalogSource(globalNs, 'opapi', image.digestRef);
  olmClassic = await startOlmClassicProcess({ globalNamespace: globalNs });
}, 180_000);

afterAll(async () => {
  await olmClassic?.stop();
});

const until = <T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 150_000): Promise<T> =>
  waitForValue(what, read, ok, { timeoutMs, lastChars: 3000, context: () => `olm-classic said: ${olmClassic?.logs.slice(-20).join('\n') ?? ''}` });

const operatorOf = (name: string) => async (): Promise<ops.Operator | undefined> => {
  const r = await kube().request<ops.Operator>('GET', TestKube.path(ops.V1, ops.OperatorResource, name));
  return r.status === 200 ? r.body : undefined;
};
const refs = (op: ops.Operator | undefined): ops.RichReference[] => op?.status?.components?.refs ?? [];
const has = (op: ops.Operator | undefined, kind: string, name: string): ops.RichReference | undefined => refs(op).find((r) => r.kind === kind && r.name === name);

describe('the Operator API', () => {
  it('a Subscription install makes <package>.<namespace> list its components with their conditions; uninstalling takes them off', async () => {
    const ns = await namespaces.create('opapi');
    await kube().must(
      kube().request('POST', TestKube.path(ops.V1, ops.OperatorGroupResource, undefined, ns), {
        apiVersion: ops.V1,
        kind: ops.OperatorGroupKind,
        metadata: { name: 'og', namespace: ns },
        spec: { targetNamespaces: [ns] },
      }),
    );
    await kube().must(
      kube().request('POST', TestKube.path(ops.V1alpha1, ops.SubscriptionResource, undefined, ns), {
        apiVersion: ops.V1alpha1,
        kind: ops.SubscriptionKind,
        metadata: { name: 'op', namespace: ns },
        spec: { source: 'opapi', sourceNamespace: globalNs, name: PKG, channel: 'stable' },
      }),
    );
    const name = `${PKG}.${ns}`;
    const label = `operators.coreos.com/${name}`;
    const op = await until('the Operator lists the installed operator', operatorOf(name), (o) => {
      const csv = has(o, 'ClusterServiceVersion', bundle.name);
      const deployment = has(o, 'Deployment', bundle.deploymentName);
      const crd = has(o, 'CustomResourceDefinition', bundle.crdName);
      return (
        !!has(o, 'Subscription', 'op') &&
        !!refs(o).find((r) => r.kind === 'InstallPlan')?.conditions?.some((c) => c.type === 'Installed' && c.status === 'True') &&
        csv?.conditions?.[0]?.type === 'Succeeded' &&
        !!deployment?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') &&
        !!crd?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')
      );
    });
    expect(op!.status!.components!.labelSelector).toEqual({ matchExpressions: [{ key: label, operator: 'Exists' }] });
    const sub = await kube().must<ops.Subscription>(kube().request('GET', TestKube.path(ops.V1alpha1, ops.SubscriptionResource, 'op', ns)));
    expect(sub.metadata.labels?.[label]).toBe('');
    expect(has(op, 'Subscription', 'op')).toMatchObject({ apiVersion: ops.V1alpha1, namespace: ns });
    expect(has(op, 'InstallPlan', sub.status!.installPlanRef!.name!)).toMatchObject({ apiVersion: ops.V1alpha1, namespace: ns });
    expect(has(op, 'InstallPlan', sub.status!.installPlanRef!.name!)?.conditions).toContainEqual(expect.objectContaining({ type: 'Installed', status: 'True' }));
    const csvRef = has(op, 'ClusterServiceVersion', bundle.name)!;
    expect(csvRef).toMatchObject({ apiVersion: ops.V1alpha1, namespace: ns });
    expect(csvRef.conditions).toEqual([expect.objectContaining({ type: 'Succeeded', status: 'True', reason: 'InstallSucceeded', message: 'install strategy completed with no errors' })]);
    // cluster-scoped: no namespace
    expect(has(op, 'CustomResourceDefinition', bundle.crdName)).toMatchObject({ apiVersion: 'apiextensions.k8s.io/v1' });
    expect(has(op, 'CustomResourceDefinition', bundle.crdName)?.namespace).toBeUndefined();
    expect(has(op, 'Deployment', bundle.deploymentName)).toMatchObject({ apiVersion: 'apps/v1', namespace: ns });
    // upstream's order: kind, apiVersion, namespace, name
    expect(refs(op)).toEqual([...refs(op)].sort(compareRefs));
    for (const r of refs(op)) expect(Object.keys(r).sort()).toEqual(expect.arrayContaining(['apiVersion', 'kind', 'name']));

    // Uninstall: the Subscription and the CSV (its Deployment goes with it, garbage collected).
    await kube().must(kube().request('DELETE', TestKube.path(ops.V1alpha1, ops.SubscriptionResource, 'op', ns)));
    await kube().must(kube().request('DELETE', TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, bundle.name, ns)));
    const after = await until(
      'the Subscription, the CSV and its Deployment off the list',
      operatorOf(name),
      (o) => !!o && !has(o, 'Subscription', 'op') && !has(o, 'ClusterServiceVersion', bundle.name) && !has(o, 'Deployment', bundle.deploymentName),
    );
    // the CRD stays (OLM never deletes a CRD), and so does the Operator
    expect(has(after, 'CustomResourceDefinition', bundle.crdName)).toBeDefined();
  }, 330_000);

  it('an Operator deleted while it has components comes back', async () => {
    const operators = await kube().must<ops.OperatorList>(kube().request('GET', TestKube.path(ops.V1, ops.OperatorResource)));
    const mine = operators.items.find((o) => o.metadata.name?.startsWith(`${PKG}.`));
    expect(mine).toBeDefined();
    const uid = mine!.metadata.uid;
    await kube().must(kube().request('DELETE', TestKube.path(ops.V1, ops.OperatorResource, mine!.metadata.name)));
    const back = await until('the Operator recreated', operatorOf(mine!.metadata.name!), (o) => !!o && o.metadata.uid !== uid && refs(o).length > 0, 60_000);
    expect(has(back, 'CustomResourceDefinition', bundle.crdName)).toBeDefined();
  });

  it('logs no error-level line', () => {
    const errors = olmClassic!.errorLines(namespaces.list());
    expect(errors, `error-level lines: ${errors.join(' | ')}`).toEqual([]);
  });
});
