// The bundle configuration schema and its validator. Expected messages are what upstream's
// validation prints for the same input: operator-controller's vendored schema compiled by
// santhosh-tekuri/jsonschema v6.0.3 (the version its go.mod pins) and each BasicOutput unit worded
// by config.go's formatSingleError. Go visits object properties in random order; where a message
// lists several problems, this validator lists them sorted by property name.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { baseBundleConfigSchema, bundleConfigSchema, configErrors, formatConfigErrors, VALIDATION_KEYWORDS, type Schema } from './config.ts';
import { csvWith, installModes } from './testing.ts';

const csv = csvWith({ installModes: installModes('AllNamespaces') });
const errorsOf = (config: unknown): string[] => configErrors(bundleConfigSchema(csv), config, 'ns');
const messageOf = (config: unknown): string => formatConfigErrors(errorsOf(config));
const dc = (deploymentConfig: unknown): unknown => ({ deploymentConfig });
const creationTimestamp = (ts: unknown): unknown => dc({ volumes: [{ name: 'v', ephemeral: { volumeClaimTemplate: { metadata: { creationTimestamp: ts }, spec: {} } } }] });

describe('the vendored schema (operator-controller rukpak/bundle/registryv1bundleconfig.json)', () => {
  it('is upstream\'s file unmodified (git blob 7ce7b8df at df2c201d)', () => {
    const bytes = readFileSync(new URL('./registryv1bundleconfig.json', import.meta.url));
    const blob = createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
    expect(blob).toBe('7ce7b8df3d591cdc768614adc034ef214eee215f');
  });

  it('uses only keywords the validator applies, annotations, and formats it knows (int32/int64 are unknown to the library)', () => {
    const annotations = new Set(['$schema', '$id', 'title', 'description', 'default', 'components']);
    const keywords = new Set<string>(VALIDATION_KEYWORDS);
    const unknown = new Set<string>();
    const formats = new Set<string>();
    const walk = (s: Schema): void => {
      for (const [k, v] of Object.entries(s)) {
        if (k === 'format') formats.add(String(v));
        if (!keywords.has(k) && !annotations.has(k) && !k.startsWith('x-kubernetes-')) unknown.add(k);
      }
      for (const sub of [...Object.values(s.properties ?? {}), ...Object.values(s.components?.schemas ?? {}), ...(s.allOf ?? []), ...(s.anyOf ?? []), ...(s.oneOf ?? [])]) walk(sub);
      if (s.items) walk(s.items);
      if (typeof s.additionalProperties === 'object') walk(s.additionalProperties);
    };
    walk(baseBundleConfigSchema());
    expect([...unknown]).toEqual([]);
    expect([...formats].sort()).toEqual(['date-time', 'int32', 'int64']);
    expect(Object.keys(baseBundleConfigSchema().components?.schemas ?? {})).toHaveLength(78);
  });

  it('is edited per install modes as buildBundleConfigSchema does, leaving the base as it was', () => {
    const own = bundleConfigSchema(csvWith({ installModes: installModes('OwnNamespace') }));
    expect(own.required).toEqual(['watchNamespace']);
    expect(own.properties?.['watchNamespace']).toMatchObject({ type: 'string', format: 'ownNamespaceInstallMode' });
    expect(Object.keys(bundleConfigSchema(csv).properties ?? {})).toEqual(['deploymentConfig']);
    expect(Object.keys(bundleConfigSchema(csv, { deploymentConfig: false }).properties ?? {})).toEqual([]);
    expect(baseBundleConfigSchema().properties?.['watchNamespace']).toMatchObject({ anyOf: [{ type: 'null' }, { type: 'string' }] });
  });
});

describe('deploymentConfig against the full Kubernetes types', () => {
  it('accepts a full deploymentConfig (every field, integral numbers and number quantities, a valid date-time)', () => {
    const full = {
      nodeSelector: { disk: 'ssd' },
      tolerations: [{ key: 'a', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 30 }, { key: 'b', operator: 'Equal', value: 'x', tolerationSeconds: 3.0 }],
      resources: { limits: { cpu: '100m', memory: 268435456 }, requests: { cpu: 0.5 } },
      envFrom: [{ secretRef: { name: 's', optional: true } }, { prefix: 'P_', configMapRef: { name: 'c' } }],
      env: [{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }, { name: 'B', value: 'b', unknownField: 1 }],
      volumes: [
        { name: 'v', emptyDir: { sizeLimit: '1Gi' } },
        { name: 'w', ephemeral: { volumeClaimTemplate: { metadata: { creationTimestamp: '2019-01-20t10:00:00.5+05:30' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } },
        { name: 'p', projected: { defaultMode: 420, sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 3600 } }] } },
      ],
      volumeMounts: [{ name: 'v', mountPath: '/data', readOnly: true }],
      affinity: {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'In', values: ['a'] }] }] } },
        podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { a: 'b' } } } }] },
      },
      annotations: { a: 'b' },
    };
    expect(errorsOf(dc(full))).toEqual([]);
  });

  it.each([
    // A single problem inside a Kubernetes type ($ref) prints only the library's `validation failed`.
    { name: 'toleration: tolerationSeconds a string', config: dc({ tolerations: [{ key: 'k', operator: 'Exists', tolerationSeconds: '300' }] }), want: 'validation failed' },
    { name: 'toleration: tolerationSeconds not integral', config: dc({ tolerations: [{ tolerationSeconds: 1.5 }] }), want: 'validation failed' },
    { name: 'toleration: key a number', config: dc({ tolerations: [{ key: 5 }] }), want: 'validation failed' },
    { name: 'toleration: null', config: dc({ tolerations: [null] }), want: 'validation failed' },
    // Two problems in one toleration: the reference node, then each problem at its path.
    {
      name: 'toleration: two wrong types',
      config: dc({ tolerations: [{ key: 'k', tolerationSeconds: '300', effect: 1 }] }),
      want: 'multiple errors found:\n  - validation failed\n  - invalid type for field "deploymentConfig.tolerations.0.effect": got number, want string\n  - invalid type for field "deploymentConfig.tolerations.0.tolerationSeconds": got string, want integer',
    },
    {
      name: 'toleration: a non-integral tolerationSeconds beside another problem',
      config: dc({ tolerations: [{ key: 5, tolerationSeconds: 1.5 }] }),
      want: 'multiple errors found:\n  - validation failed\n  - invalid type for field "deploymentConfig.tolerations.0.key": got number, want string\n  - invalid type for field "deploymentConfig.tolerations.0.tolerationSeconds": got number, want integer',
    },
    // Affinity terms sit behind allOf:[{$ref}] wrappers; what lies below a one-cause reference is not listed.
    {
      name: 'node affinity term: values a string',
      config: dc({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'In', values: 'x' }] }] } } } }),
      want: 'validation failed',
    },
    {
      name: 'pod affinity term: weight a string',
      config: dc({ affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: '1', podAffinityTerm: { topologyKey: 'z' } }] } } }),
      want: 'validation failed',
    },
    {
      name: 'pod anti-affinity term: topologyKey missing',
      config: dc({ affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { a: 1 } } }] } } }),
      want: 'validation failed',
    },
    {
      name: 'affinity: problems under nodeAffinity and podAffinity',
      config: dc({ affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: '1' }] }, podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: '1' }] } } }),
      want: "multiple errors found:\n  - validation failed\n  - 'allOf' failed\n  - validation failed\n  - 'allOf' failed\n  - validation failed",
    },
    // Quantities are oneOf [string, number].
    { name: 'quantity: a boolean', config: dc({ resources: { limits: { cpu: true } } }), want: 'validation failed' },
    {
      name: 'quantity: two wrong',
      config: dc({ resources: { limits: { cpu: true }, requests: { memory: [] } } }),
      want: 'multiple errors found:\n  - validation failed\n  - validation failed\n  - validation failed',
    },
    // Problems outside the Kubernetes types keep their paths; a problem inside one stands as `validation failed`.
    {
      name: 'nodeSelector and a toleration',
      config: dc({ nodeSelector: { a: 1 }, tolerations: [{ key: 5 }] }),
      want: 'multiple errors found:\n  - invalid type for field "deploymentConfig.nodeSelector.a": got number, want string\n  - validation failed',
    },
    { name: 'env var without a name', config: dc({ env: [{ value: 'x' }] }), want: 'validation failed' },
    { name: 'volumeMount without mountPath', config: dc({ volumeMounts: [{ name: 'a' }] }), want: 'validation failed' },
    {
      name: 'volume and volumeMount',
      config: dc({ volumes: [{ name: 'v', secret: { defaultMode: 1.5 } }], volumeMounts: [{ name: 'v', mountPath: '/x', readOnly: 'yes' }] }),
      want: 'multiple errors found:\n  - validation failed\n  - validation failed',
    },
    { name: 'tolerations not a list', config: dc({ tolerations: 'x' }), want: 'invalid type for field "deploymentConfig.tolerations": got string, want array' },
    { name: 'nodeSelector null', config: dc({ nodeSelector: null }), want: 'required field "deploymentConfig.nodeSelector" is missing' },
  ])('$name', ({ config, want }) => {
    expect(messageOf(config)).toBe(want);
  });

  it('checks date-time (metav1.Time) as the library does; the message stays behind its references', () => {
    // Each of these is refused upstream; the date-time message itself is not listed (it lies below a one-cause reference).
    for (const ts of ['yesterday', '2021-13-01T00:00:00Z', '2021-02-30T00:00:00Z', '2019-02-29T10:00:00Z', '2021-02-28T25:00:00Z', '2021-02-28 20:00:00Z', '2019-01-20T10:00:00.Z', '2019-01-20T10:00:00+0100', '2020-02-29T23:59:60+01:00', 7]) {
      expect(messageOf(creationTimestamp(ts)), String(ts)).toBe('validation failed');
    }
    for (const ts of ['2020-02-29T23:59:60Z', '2020-02-29T22:59:60-01:00', '2019-01-20T10:00:00.123456+05:30']) {
      expect(errorsOf(creationTimestamp(ts)), ts).toEqual([]);
    }
  });

  it("words date-time failures as the library does (a bare schema: in deploymentConfig the only date-time, ObjectMeta's, lies below one-cause references)", () => {
    const schema: Schema = { type: 'object', properties: { t: { type: 'string', format: 'date-time' } } };
    const at = (t: string): string[] => configErrors(schema, { t }, 'ns');
    const want = (t: string, detail: string): string[] => [`invalid format for field "t": '${t}' is not valid date-time: ${detail}`];
    expect(at('2021-13-01T00:00:00Z')).toEqual(want('2021-13-01T00:00:00Z', 'invalid date element: parsing time "2021-13-01": month out of range'));
    expect(at('2021-0a-28T20:00:00Z')).toEqual(want('2021-0a-28T20:00:00Z', 'invalid date element: parsing time "2021-0a-28" as "2006-01-02": cannot parse "0a-28" as "01"'));
    expect(at('2021-02-30T00:00:00Z')).toEqual(want('2021-02-30T00:00:00Z', 'invalid date element: parsing time "2021-02-30": day out of range'));
    expect(at('2021-02-28T25:00:00Z')).toEqual(want('2021-02-28T25:00:00Z', 'invalid time element: hour/min/sec out of range'));
    expect(at('2021-02-28 20:00:00Z')).toEqual(want('2021-02-28 20:00:00Z', '11th character must be t or T'));
    expect(at('yesterday')).toEqual(want('yesterday', 'less than 20 characters long'));
    expect(at('2020-02-29T23:59:60+01:00')).toEqual(want('2020-02-29T23:59:60+01:00', 'invalid time element: invalid leap second'));
    expect(at('2019-01-20T10:00:00+0100')).toEqual(want('2019-01-20T10:00:00+0100', 'invalid time element: offset must be 6 characters long'));
  });
});
