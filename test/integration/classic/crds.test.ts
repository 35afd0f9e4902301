// The classic CRDs (config/crd/classic) in the real kube-apiserver: a valid object of each kind is
// stored, and an invalid one is refused with the validation message the CRD's schema gives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Status } from '../../../api/meta/v1.ts';
import * as ops from '../../../api/operators/index.ts';
import { clusterServiceVersionCRD } from '../../../api/operators/schema/index.ts';
import { installClassicCRDs } from '../../support/crds.ts';
import { adminKube } from '../../support/env.ts';
import { TestKube } from '../../support/kube.ts';

type Json = Record<string, unknown>;
let ns: string;
const kube = (): TestKube => adminKube();

beforeAll(async () => {
  await installClassicCRDs(kube());
  ns = await kube().namespace('classic-crds');
});
afterAll(async () => {
  if (ns) await kube().request('DELETE', `/api/v1/namespaces/${ns}`);
});

interface Kind {
  readonly kind: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly namespaced: boolean;
}
const K = {
  catsrc: { kind: ops.CatalogSourceKind, apiVersion: ops.V1alpha1, resource: ops.CatalogSourceResource, namespaced: true },
  sub: { kind: ops.SubscriptionKind, apiVersion: ops.V1alpha1, resource: ops.SubscriptionResource, namespaced: true },
  ip: { kind: ops.InstallPlanKind, apiVersion: ops.V1alpha1, resource: ops.InstallPlanResource, namespaced: true },
  csv: { kind: ops.ClusterServiceVersionKind, apiVersion: ops.V1alpha1, resource: ops.ClusterServiceVersionResource, namespaced: true },
  og: { kind: ops.OperatorGroupKind, apiVersion: ops.V1, resource: ops.OperatorGroupResource, namespaced: true },
  oc: { kind: ops.OperatorConditionKind, apiVersion: ops.V2, resource: ops.OperatorConditionResource, namespaced: true },
  op: { kind: ops.OperatorKind, apiVersion: ops.V1, resource: ops.OperatorResource, namespaced: false },
} as const satisfies Record<string, Kind>;

let seq = 0;
async function create(k: Kind, body: Json): Promise<{ status: number; body: Json }> {
  const name = `c-${(seq++).toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
  const path = TestKube.path(k.apiVersion, k.resource, undefined, k.namespaced ? ns : undefined);
  const obj = { apiVersion: k.apiVersion, kind: k.kind, metadata: { name, ...(k.namespaced && { namespace: ns }) }, ...body };
  const r = await kube().request<Json>('POST', path, obj);
  if (r.status === 201 && !k.namespaced) await kube().request('DELETE', TestKube.path(k.apiVersion, k.resource, name));
  return r;
}
const refusal = (r: { status: number; body: Json }): string => {
  expect(r.status).toBe(422);
  return (r.body as unknown as Status).message ?? '';
};

const csvSpec = (extra: Json = {}): Json => ({
  displayName: 'Demo',
  install: { strategy: 'deployment', spec: { deployments: [] } },
  ...extra,
});

describe('classic CRDs in the real API server', () => {
  it.each([
    ['CatalogSource', K.catsrc, { spec: { sourceType: 'grpc', image: 'localhost:5000/c:latest', updateStrategy: { registryPoll: { interval: '10m' } } } }],
    ['Subscription', K.sub, { spec: { name: 'demo-operator', source: 'demo', sourceNamespace: 'olm', channel: 'stable', installPlanApproval: 'Manual' } }],
    ['InstallPlan', K.ip, { spec: { approval: 'Automatic', approved: true, clusterServiceVersionNames: ['demo-operator.v0.3.0'], generation: 1 } }],
    ['ClusterServiceVersion', K.csv, { spec: csvSpec({ version: '0.3.0', release: '1.2' }) }],
    ['OperatorGroup', K.og, { spec: { targetNamespaces: ['a'] } }],
    ['OperatorCondition', K.oc, { spec: { deployments: ['d'], serviceAccounts: ['s'] } }],
    ['Operator', K.op, { spec: {} }],
  ] as const)('stores a valid %s', async (_kind, k, body) => {
    const r = await create(k, body as Json);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  });

  it('defaults OperatorGroup spec.upgradeStrategy to Default', async () => {
    const r = await create(K.og, { spec: {} });
    expect(r.status).toBe(201);
    expect((r.body['spec'] as Json)['upgradeStrategy']).toBe(ops.UpgradeStrategyDefault);
  });

  it('refuses a CatalogSource without spec.sourceType', async () => {
    expect(refusal(await create(K.catsrc, { spec: { image: 'x' } }))).toContain('spec.sourceType: Required value');
  });

  it('refuses a CatalogSource securityContextConfig outside the enum', async () => {
    const msg = refusal(await create(K.catsrc, { spec: { sourceType: 'grpc', image: 'x', grpcPodConfig: { securityContextConfig: 'open' } } }));
    expect(msg).toContain('spec.grpcPodConfig.securityContextConfig: Unsupported value: "open": supported values: "legacy", "restricted"');
  });

  it('refuses a Subscription without source, sourceNamespace and name', async () => {
    const msg = refusal(await create(K.sub, { spec: { channel: 'stable' } }));
    for (const f of ['spec.name', 'spec.source', 'spec.sourceNamespace']) expect(msg).toContain(`${f}: Required value`);
  });

  it('refuses an InstallPlan whose approved is not a boolean', async () => {
    const msg = refusal(await create(K.ip, { spec: { approval: 'Manual', approved: 'yes', clusterServiceVersionNames: [] } }));
    expect(msg).toContain('spec.approved: Invalid value: "string": spec.approved in body must be of type boolean: "string"');
  });

  it('refuses a CSV release with a leading zero, with the CRD rule’s message', async () => {
    const release = clusterServiceVersionCRD.spec.versions[0]!.schema!.openAPIV3Schema!.properties!['spec']!.properties!['release']!;
    const rule = release['x-kubernetes-validations']!.find((v) => v.message?.includes('leading zeros'))!;
    const msg = refusal(await create(K.csv, { spec: csvSpec({ release: '1.02' }) }));
    expect(msg).toContain(`spec.release: Invalid value: "1.02": ${rule.message}`);
  });

  it('refuses a CSV without displayName and install', async () => {
    const msg = refusal(await create(K.csv, { spec: {} }));
    expect(msg).toContain('spec.displayName: Required value');
    expect(msg).toContain('spec.install: Required value');
  });

  it('refuses an OperatorGroup upgradeStrategy outside the enum', async () => {
    const msg = refusal(await create(K.og, { spec: { upgradeStrategy: 'Fast' } }));
    expect(msg).toContain('spec.upgradeStrategy: Unsupported value: "Fast": supported values: "Default", "TechPreviewUnsafeFailForward"');
  });

  it('refuses an OperatorCondition override without a reason', async () => {
    const msg = refusal(await create(K.oc, { spec: { overrides: [{ type: 'Upgradeable', status: 'False', message: 'm' }] } }));
    expect(msg).toContain('spec.overrides[0].reason: Required value');
  });

  it('refuses an Operator whose spec is not an object', async () => {
    const msg = refusal(await create(K.op, { spec: 'x' }));
    expect(msg).toContain('spec: Invalid value: "string": spec in body must be of type object: "string"');
  });
});
