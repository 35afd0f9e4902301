// The Operator API (operators.coreos.com/v1 Operator) with the real olm-classic binary against the real cluster and
// registry: a Subscription's install makes an Operator `<package>.<namespace>` whose status lists the Subscription,
// the InstallPlan, the CSV, the owned CRD and the Deployment with their conditions, in upstream's order; deleting
// the Subscription and the CSV takes them (and what the CSV owned) off the list, while the Operator stays; the
// operators `kubectl olm list --classic` shows are those `kubectl get operators` shows, before and after
// `kubectl olm uninstall --classic`.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import { compareRefs } from '../../../internal/classic/operator/index.ts';
import { runCaptured } from '../../../internal/cli/index.ts';
import { binaries } from '../../support/binaries.ts';
import { catalogFiles, pushTestBundle, type TestBundle } from '../../support/bundles.ts';
import { createImageCatalogSource, createOperatorGroup, createSubscription } from '../../support/classic-olm.ts';
import { installClassicCRDs } from '../../support/crds.ts';
import { adminKube, controlPlane, registry, testNamespaces } from '../../support/env.ts';
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
    await createOperatorGroup(ns, 'og', { targetNamespaces: [ns] });
    await createSubscription(ns, 'op', { source: 'opapi', sourceNamespace: globalNs, name: PKG, channel: 'stable' });
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

  it('kubectl olm list --classic and kubectl get operators name the same operators, before and after an uninstall', async () => {
    const installed = [await namespaces.create('opapi-a'), await namespaces.create('opapi-b')];
    for (const ns of installed) {
      await createOperatorGroup(ns, 'og', { targetNamespaces: [ns] });
      await createSubscription(ns, 'op', { source: 'opapi', sourceNamespace: globalNs, name: PKG, channel: 'stable' });
    }
    const env = { KUBECONFIG: controlPlane().kubeconfigPath };
    const mine = (ns: string | undefined): boolean => installed.includes(ns ?? '');
    // `kubectl olm list --classic -A -o json`: <package>.<namespace> of each Subscription in this test's namespaces.
    const listed = async (): Promise<string[]> => {
      const r = await runCaptured(['list', '--classic', '-A', '-o', 'json'], { env });
      if (r.code !== 0) throw new Error(`kubectl olm list --classic: ${r.stderr}`);
      const list = JSON.parse(r.stdout) as ops.SubscriptionList;
      return list.items.filter((s) => mine(s.metadata.namespace)).map((s) => `${s.spec.name}.${s.metadata.namespace ?? ''}`).sort();
    };
    // A real `kubectl get operators -o json` (the control plane's multi-call binary runs kubectl).
    const { apiserver } = await binaries();
    const operators = async (): Promise<string[]> => {
      const { stdout } = await promisify(execFile)(apiserver, ['kubectl', `--kubeconfig=${controlPlane().kubeconfigPath}`, 'get', 'operators', '-o', 'json']);
      const names = (JSON.parse(stdout) as ops.OperatorList).items.map((o) => o.metadata.name ?? '');
      return names.filter((n) => installed.some((ns) => n === `${PKG}.${ns}`)).sort();
    };
    const both = async (): Promise<{ cli: string[]; api: string[] }> => ({ cli: await listed(), api: await operators() });
    const want = installed.map((ns) => `${PKG}.${ns}`).sort();
    const before = await until('both to name the two installs', both, (b) => JSON.stringify(b.cli) === JSON.stringify(want) && JSON.stringify(b.api) === JSON.stringify(want));
    expect(before.api).toEqual(before.cli);
    await until('the installs to succeed', operatorOf(`${PKG}.${installed[0]!}`), (o) => has(o, 'ClusterServiceVersion', bundle.name)?.conditions?.[0]?.type === 'Succeeded');

    // Uninstall one with the CLI (no --wait): both drop it, and keep the other.
    const u = await runCaptured(['uninstall', '--classic', PKG, '-n', installed[0]!], { env });
    expect(u.code, `${u.stdout}${u.stderr}`).toBe(0);
    const after = await until('both to drop the uninstalled one', both, (b) => b.cli.length === 1 && b.api.length === 1);
    expect(after).toEqual({ cli: [`${PKG}.${installed[1]!}`], api: [`${PKG}.${installed[1]!}`] });
    // the CRD stays, a component of the remaining install only
    const crd = await kube().must<{ metadata: { labels?: Record<string, string> } }>(kube().request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${bundle.crdName}`));
    expect(crd.metadata.labels?.[`operators.coreos.com/${PKG}.${installed[1]!}`]).toBe('');
    expect(crd.metadata.labels?.[`operators.coreos.com/${PKG}.${installed[0]!}`]).toBeUndefined();
  }, 330_000);

  it('logs no error-level line', () => {
    const errors = olmClassic!.errorLines(namespaces.list());
    expect(errors, `error-level lines: ${errors.join(' | ')}`).toEqual([]);
  });
});
