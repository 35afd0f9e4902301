// Old/new CRD pairs through the preflight, each pinning the exact message crdify + operator-controller
// produce (olmv1.md §5.4).
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../api/meta/v1.ts';
import type { ClusterExtension } from '../../../../api/v1/index.ts';
import { compareKubeAwareVersions } from './schema.ts';
import { CrdUpgradeSafetyPreflight, validateUpgrade, type Crd, type CrdVersion, type Schema } from './index.ts';

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected the preflight to fail');
}

const NAME = 'crontabs.stable.example.com';

function version(name: string, spec: Record<string, Schema>, extra: Partial<CrdVersion> & { required?: string[] } = {}): CrdVersion {
  const { required, ...rest } = extra;
  return {
    name,
    served: true,
    storage: name === 'v1',
    schema: {
      openAPIV3Schema: {
        type: 'object',
        properties: { spec: { type: 'object', properties: spec, ...(required && { required }) } },
      },
    },
    ...rest,
  };
}

function crd(versions: CrdVersion[], opts: { scope?: string; storedVersions?: string[]; webhook?: boolean } = {}): Crd {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: NAME },
    spec: {
      group: 'stable.example.com',
      scope: opts.scope ?? 'Namespaced',
      versions,
      ...(opts.webhook && { conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'] } } }),
    },
    ...(opts.storedVersions && { status: { storedVersions: opts.storedVersions } }),
  };
}

const base: Record<string, Schema> = {
  cronSpec: { type: 'string', description: 'the schedule', maxLength: 64 },
  image: { type: 'string' },
  replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
  mode: { type: 'string', enum: ['a', 'b'] },
  tags: { type: 'array', items: { type: 'string' }, maxItems: 5 },
  labels: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 8 },
};
const old = crd([version('v1', base)], { storedVersions: ['v1'] });
const withSpec = (spec: Record<string, Schema>, extra?: Parameters<typeof version>[2]): Crd =>
  crd([version('v1', spec, extra)]);

describe('validateUpgrade: same version', () => {
  it('passes an identical CRD and additive changes: new optional field, new enum value, looser bounds, new description', () => {
    expect(validateUpgrade(old, old)).toEqual([]);
    const next = withSpec({
      ...base,
      cronSpec: { type: 'string', description: 'a different description', maxLength: 128 },
      replicas: { type: 'integer', minimum: 0, maximum: 20, default: 1 },
      mode: { type: 'string', enum: ['a', 'b', 'c'] },
      extra: { type: 'string' },
    });
    expect(validateUpgrade(old, next)).toEqual([]);
  });

  it('description-only changes are allowed, at any depth', () => {
    const next = withSpec({ ...base, tags: { type: 'array', items: { type: 'string', description: 'one tag' }, maxItems: 5 } });
    expect(validateUpgrade(old, next)).toEqual([]);
  });

  it('a removed field: existingFieldRemoval plus the property compared with nothing', () => {
    const { image: _image, ...rest } = base;
    expect(validateUpgrade(old, withSpec(rest))).toEqual([
      'existingFieldRemoval: removed field : v1.^.spec.image',
      'v1: ^.spec.image: type: type changed : "string" -> ""',
    ]);
  });

  it('enum: values removed, and a constraint where there was none', () => {
    const next = withSpec({ ...base, mode: { type: 'string', enum: ['a', 'c'] }, image: { type: 'string', enum: ['y', 'x'] } });
    expect(validateUpgrade(old, next)).toEqual([
      'v1: ^.spec.image: enum: enum constraint added when there was none previously : ["x" "y"]',
      'v1: ^.spec.mode: enum: allowed enum values removed : ["b"]',
    ]);
  });

  it('required: new required fields', () => {
    const next = withSpec(base, { required: ['image', 'cronSpec'] });
    expect(validateUpgrade(old, next)).toEqual(['v1: ^.spec: required: new required fields: [cronSpec image]']);
  });

  it('type changes', () => {
    const next = withSpec({ ...base, replicas: { type: 'string', minimum: 1, maximum: 10, default: 1 } });
    expect(validateUpgrade(old, next)).toEqual(['v1: ^.spec.replicas: type: type changed : "integer" -> "string"']);
  });

  it('defaults added, changed and removed', () => {
    const next = withSpec({
      ...base,
      image: { type: 'string', default: 'nginx' },
      replicas: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
    });
    expect(validateUpgrade(old, next)).toEqual([
      'v1: ^.spec.image: default: default added when there was none previously : "\\"nginx\\""',
      'v1: ^.spec.replicas: default: default value changed : "1" -> "3"',
    ]);
    expect(validateUpgrade(next, old)).toEqual([
      'v1: ^.spec.image: default: default value removed : "\\"nginx\\""',
      'v1: ^.spec.replicas: default: default value changed : "3" -> "1"',
    ]);
  });

  it('min/max/length/items/properties tightened or added', () => {
    const next = withSpec({
      ...base,
      cronSpec: { type: 'string', description: 'the schedule', maxLength: 32, minLength: 1 },
      replicas: { type: 'integer', minimum: 2, maximum: 9.5, default: 1 },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 4, minItems: 1 },
      labels: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 7, minProperties: 1 },
    });
    expect(validateUpgrade(old, next)).toEqual([
      'v1: ^.spec.cronSpec: maxLength: maximum decreased : 64 -> 32',
      'v1: ^.spec.cronSpec: minLength: minimum constraint added when there was none previously : 1',
      'v1: ^.spec.labels: maxProperties: maximum decreased : 8 -> 7',
      'v1: ^.spec.labels: minProperties: minimum constraint added when there was none previously : 1',
      'v1: ^.spec.replicas: maximum: maximum decreased : 10 -> 9.5',
      'v1: ^.spec.replicas: minimum: minimum increased : 1 -> 2',
      'v1: ^.spec.tags: maxItems: maximum decreased : 5 -> 4',
      'v1: ^.spec.tags: minItems: minimum constraint added when there was none previously : 1',
    ]);
  });

  it('pattern added, changed or removed (crdify default removalPolicy: Disallow), nullable added or removed', () => {
    const withPattern = withSpec({ ...base, image: { type: 'string', pattern: '^a' } });
    expect(validateUpgrade(old, withPattern)).toEqual(['v1: ^.spec.image: pattern: pattern added : "" -> "^a"']);
    expect(validateUpgrade(withPattern, withSpec({ ...base, image: { type: 'string', pattern: '^b' } }))).toEqual([
      'v1: ^.spec.image: pattern: pattern changed : "^a" -> "^b"',
    ]);
    expect(validateUpgrade(withPattern, old)).toEqual(['v1: ^.spec.image: pattern: pattern removed : "^a" -> ""']);
    const nullable = withSpec({ ...base, image: { type: 'string', nullable: true } });
    expect(validateUpgrade(old, nullable)).toEqual(['v1: ^.spec.image: nullable: nullable added : false -> true']);
    expect(validateUpgrade(nullable, old)).toEqual(['v1: ^.spec.image: nullable: nullable removed : true -> false']);
  });

  it('changes no check handles fail closed, condensed to the Go field names', () => {
    const next = withSpec({ ...base, image: { type: 'string', format: 'email' } });
    expect(validateUpgrade(old, next)).toEqual(['v1: ^.spec.image: unhandled: unhandled changes found (Format "" -> "email")']);
    const listType = withSpec({ ...base, tags: { type: 'array', items: { type: 'string' }, maxItems: 5, 'x-kubernetes-list-type': 'set' } });
    expect(validateUpgrade(old, listType)).toEqual(['v1: ^.spec.tags: unhandled: unhandled changes found (XListType nil -> &"set")']);
  });
});

describe('validateUpgrade: upstream invalid-upgrade pair (old-crd.json -> crd-invalid-upgrade.json)', () => {
  it('reports every check upstream expects, and nothing unhandled', () => {
    const props = (extra: Record<string, Schema> = {}): Record<string, Schema> => ({
      removedField: { type: 'integer' },
      enum: { type: 'integer' },
      minMaxValue: { type: 'integer' },
      required: { type: 'integer' },
      minMaxItems: { type: 'array', items: { type: 'string' } },
      minMaxLength: { type: 'string' },
      defaultVal: { type: 'string' },
      requiredVal: { type: 'string' },
      ...extra,
    });
    const root = (spec: Record<string, Schema>, extra: Schema): Schema => ({
      type: 'object',
      properties: { spec: { type: 'object', properties: spec } },
      ...extra,
    });
    const oldCrd = crd(
      [
        { name: 'v1', served: true, storage: false, schema: { openAPIV3Schema: root(props(), { required: ['requiredVal'] }) } },
        { name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: root(props(), { required: ['requiredVal'] }) } },
      ],
      { scope: 'Cluster', storedVersions: ['v1', 'v2'] },
    );
    const tightened = props({
      enum: { type: 'integer', enum: [1, 2] },
      minMaxValue: { type: 'integer', minimum: 2, maximum: 3 },
      minMaxItems: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string' } },
      minMaxLength: { type: 'string', minLength: 1, maxLength: 10 },
      defaultVal: { type: 'string', default: 'foo' },
    });
    const newCrd = crd([
      {
        name: 'v2',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: root(tightened, { maxProperties: 20, minProperties: 1, required: ['requiredVal', 'requiredAdded'] }) },
      },
    ]);
    expect(validateUpgrade(oldCrd, newCrd)).toEqual([
      'scope: scope changed : "Cluster" -> "Namespaced"',
      'storedVersionRemoval: stored versions removed : [v1]',
      'v2: ^: maxProperties: maximum constraint added when there was none previously : 20',
      'v2: ^: minProperties: minimum constraint added when there was none previously : 1',
      'v2: ^: required: new required fields: [requiredAdded]',
      'v2: ^.spec.defaultVal: default: default added when there was none previously : "\\"foo\\""',
      'v2: ^.spec.enum: enum: enum constraint added when there was none previously : [1 2]',
      'v2: ^.spec.minMaxItems: maxItems: maximum constraint added when there was none previously : 2',
      'v2: ^.spec.minMaxItems: minItems: minimum constraint added when there was none previously : 1',
      'v2: ^.spec.minMaxLength: maxLength: maximum constraint added when there was none previously : 10',
      'v2: ^.spec.minMaxLength: minLength: minimum constraint added when there was none previously : 1',
      'v2: ^.spec.minMaxValue: maximum: maximum constraint added when there was none previously : 3',
      'v2: ^.spec.minMaxValue: minimum: minimum constraint added when there was none previously : 2',
    ]);
  });
});

describe('validateUpgrade: CRD-wide', () => {
  it('scope changed', () => {
    expect(validateUpgrade(old, crd([version('v1', base)], { scope: 'Cluster' }))).toEqual([
      'scope: scope changed : "Namespaced" -> "Cluster"',
    ]);
  });

  it('stored versions removed; a removed version that was never stored is not', () => {
    const two = crd([version('v1alpha1', base), version('v1', base)], { storedVersions: ['v1alpha1', 'v1'] });
    expect(validateUpgrade(two, crd([version('v1', base)]))).toEqual(['storedVersionRemoval: stored versions removed : [v1alpha1]']);
    const neverStored = crd([version('v1alpha1', base), version('v1', base)], { storedVersions: ['v1'] });
    expect(validateUpgrade(neverStored, crd([version('v1', base)]))).toEqual([]);
  });
});

describe('validateUpgrade: served versions', () => {
  const v2 = { ...base, mode: { type: 'string', enum: ['a'] } };

  it('compares every pair of served versions of the new CRD', () => {
    const next = crd([version('v1', base), version('v2', v2)]);
    expect(validateUpgrade(old, next)).toEqual(['v1 -> v2: ^.spec.mode: enum: allowed enum values removed : ["b"]']);
  });

  it('skips served-version comparison when the new CRD converts through a webhook', () => {
    expect(validateUpgrade(old, crd([version('v1', base), version('v2', v2)], { webhook: true }))).toEqual([]);
  });

  it('a webhook on the old CRD only does not excuse the new one', () => {
    const oldWithWebhook = crd([version('v1', base), version('v2', v2)], { webhook: true });
    expect(validateUpgrade(oldWithWebhook, crd([version('v1', base), version('v2', v2)]))).toEqual([
      'v1 -> v2: ^.spec.mode: enum: allowed enum values removed : ["b"]',
    ]);
  });

  it('ratchets: problems the existing CRD already had pass, new ones are reported alone', () => {
    const existing = crd([version('v1', base), version('v2', v2)]);
    expect(validateUpgrade(existing, existing)).toEqual([]);
    const extra = crd([
      version('v1', { ...base, extraField: { type: 'boolean' } }),
      version('v2', { ...v2, extraField: { type: 'string' } }),
    ]);
    expect(validateUpgrade(existing, extra)).toEqual(['v1 -> v2: ^.spec.extraField: type: type changed : "boolean" -> "string"']);
  });

  it('orders versions as Kubernetes does (alpha < beta < GA) and skips unserved ones', () => {
    const next = crd([
      version('v1', base),
      version('v1alpha1', { ...base, mode: { type: 'string', enum: ['a', 'b', 'z'] } }),
      version('v1beta1', base, { served: false }),
    ]);
    expect(validateUpgrade(old, next)).toEqual(['v1alpha1 -> v1: ^.spec.mode: enum: allowed enum values removed : ["z"]']);
    const names = ['v1', 'foo', 'v2beta1', 'v1alpha2', 'v10', 'v1beta1', 'v1alpha1'];
    expect(names.sort(compareKubeAwareVersions)).toEqual(['foo', 'v1alpha1', 'v1alpha2', 'v1beta1', 'v2beta1', 'v1', 'v10']);
  });
});

describe('CrdUpgradeSafetyPreflight', () => {
  const ext = (enforcement?: 'None' | 'Strict'): ClusterExtension =>
    ({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterExtension',
      metadata: { name: 'ext' },
      spec: {
        namespace: 'ns',
        source: { sourceType: 'Catalog', catalog: { packageName: 'p' } },
        ...(enforcement && { install: { preflight: { crdUpgradeSafety: { enforcement } } } }),
      },
    }) as ClusterExtension;
  const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns' } };
  const scoped = crd([version('v1', base)], { scope: 'Cluster' });
  const signal = new AbortController().signal;

  it('joins every failing CRD into one message, each as upstream words it', async () => {
    const other: Crd = { ...scoped, metadata: { name: 'others.stable.example.com' } };
    const preflight = new CrdUpgradeSafetyPreflight(async () => old);
    expect(await failure(preflight.check(ext(), [cm, scoped, other], signal))).toBe(
      'validating upgrade for CRD "crontabs.stable.example.com": scope: scope changed : "Namespaced" -> "Cluster"\n' +
        'validating upgrade for CRD "others.stable.example.com": scope: scope changed : "Namespaced" -> "Cluster"',
    );
  });

  it('passes CRDs that do not exist yet and objects that are not CRDs', async () => {
    const seen: string[] = [];
    const preflight = new CrdUpgradeSafetyPreflight(async (name) => {
      seen.push(name);
      return undefined;
    });
    await expect(preflight.check(ext(), [cm, scoped], signal)).resolves.toBeUndefined();
    expect(seen).toEqual([NAME]);
  });

  it('enforcement None turns the check off; Strict keeps it', async () => {
    const preflight = new CrdUpgradeSafetyPreflight(async () => old);
    await expect(preflight.check(ext('None'), [scoped], signal)).resolves.toBeUndefined();
    await expect(preflight.check(ext('Strict'), [scoped], signal)).rejects.toThrow('scope changed');
  });

  it('a failed read of the existing CRD is an error naming it', async () => {
    const preflight = new CrdUpgradeSafetyPreflight(async () => {
      throw new Error('connection refused');
    });
    expect(await failure(preflight.check(ext(), [scoped], signal))).toBe(
      'getting existing resource for CRD "crontabs.stable.example.com": connection refused',
    );
  });
});
