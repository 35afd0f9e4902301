// The CRD upgrade safety preflight against CRDs read back from the real kube-apiserver: what the
// server stores (defaults, status.storedVersions) must not create spurious findings, and real
// breaking changes are reported in upstream's words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterExtension } from '../../../api/v1/index.ts';
import { CrdUpgradeSafetyPreflight, kubeCrdGetter, type Crd, type Schema } from '../../../internal/operator-controller/preflights/crdupgradesafety/index.ts';
import type { KubeClient } from '../../../internal/shared/kube/index.ts';
import { controlPlane } from '../../support/env.ts';
import { adminClient, until } from '../kube/helpers.ts';

const GROUP = `crdsafety-${Math.random().toString(36).slice(2, 8)}.olm.test`;
async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected the preflight to fail');
}

const NAME = `gadgets.${GROUP}`;
let kube: KubeClient;
let preflight: CrdUpgradeSafetyPreflight;
const signal = new AbortController().signal;

const ext = (enforcement?: 'None'): ClusterExtension =>
  ({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name: 'gadgets' },
    spec: {
      namespace: 'default',
      source: { sourceType: 'Catalog', catalog: { packageName: 'gadgets' } },
      ...(enforcement && { install: { preflight: { crdUpgradeSafety: { enforcement } } } }),
    },
  }) as ClusterExtension;

const spec: Record<string, Schema> = {
  size: { type: 'integer', minimum: 1, maximum: 100, default: 3 },
  color: { type: 'string', enum: ['red', 'green'] },
  owner: { type: 'string', description: 'who owns it' },
  parts: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } },
};

function gadgets(versions: { name: string; storage: boolean; spec: Record<string, Schema> }[], scope = 'Namespaced'): Crd {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: NAME },
    spec: {
      group: GROUP,
      scope,
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
      versions: versions.map((v) => ({
        name: v.name,
        served: true,
        storage: v.storage,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: v.spec } } } },
      })),
    },
  };
}

beforeAll(async () => {
  kube = await adminClient(controlPlane());
  preflight = new CrdUpgradeSafetyPreflight(kubeCrdGetter(kube));
  await kube.create(gadgets([{ name: 'v1alpha1', storage: true, spec }]));
  await until('CRD established', async () => {
    const crd = await kube.get<Crd>({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: NAME });
    const conditions = (crd.status?.['conditions'] ?? []) as { type: string; status: string }[];
    return conditions.some((c) => c.type === 'Established' && c.status === 'True');
  });
});

afterAll(async () => {
  await kube?.delete({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: NAME }).catch(() => undefined);
  await kube?.close();
});

describe('CRD upgrade safety against the API server', () => {
  it('the same CRD, as the server stored it, is a safe upgrade; so are additive changes', async () => {
    await expect(preflight.check(ext(), [gadgets([{ name: 'v1alpha1', storage: true, spec }])], signal)).resolves.toBeUndefined();
    const additive = {
      ...spec,
      color: { type: 'string', enum: ['red', 'green', 'blue'] },
      owner: { type: 'string', description: 'the team that owns it' },
      weight: { type: 'number' },
    };
    await expect(
      preflight.check(ext(), [gadgets([{ name: 'v1alpha1', storage: false, spec: additive }, { name: 'v1', storage: true, spec: additive }])], signal),
    ).resolves.toBeUndefined();
  });

  it('reports every breaking change of the existing CRD in one message', async () => {
    const { owner: _owner, ...withoutOwner } = spec;
    const breaking = {
      ...withoutOwner,
      size: { type: 'integer', minimum: 2, maximum: 100, default: 3 },
      color: { type: 'string', enum: ['red'] },
    };
    const next = gadgets([{ name: 'v1', storage: true, spec: breaking }], 'Cluster');
    const sameVersion = gadgets([{ name: 'v1alpha1', storage: true, spec: breaking }], 'Cluster');
    expect(await failure(preflight.check(ext(), [next], signal))).toBe(
      `validating upgrade for CRD "${NAME}": scope: scope changed : "Namespaced" -> "Cluster"\n` +
        'storedVersionRemoval: stored versions removed : [v1alpha1]',
    );
    expect(await failure(preflight.check(ext(), [sameVersion], signal))).toBe(
      `validating upgrade for CRD "${NAME}": existingFieldRemoval: removed field : v1alpha1.^.spec.owner\n` +
        'scope: scope changed : "Namespaced" -> "Cluster"\n' +
        'v1alpha1: ^.spec.color: enum: allowed enum values removed : ["green"]\n' +
        'v1alpha1: ^.spec.owner: type: type changed : "string" -> ""\n' +
        'v1alpha1: ^.spec.size: minimum: minimum increased : 1 -> 2',
    );
  });

  it('a CRD the cluster does not have yet passes; enforcement None skips the check', async () => {
    const fresh = { ...gadgets([{ name: 'v1', storage: true, spec }], 'Cluster'), metadata: { name: `widgets.${GROUP}` } };
    await expect(preflight.check(ext(), [fresh], signal)).resolves.toBeUndefined();
    await expect(preflight.check(ext('None'), [gadgets([{ name: 'v1', storage: true, spec }], 'Cluster')], signal)).resolves.toBeUndefined();
  });
});
