import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { TerminalError } from '../../shared/controller/index.ts';
import { defaultTargetNamespaces, targetNamespacesError } from './install-modes.ts';
import { goPermissionJSON, objectNameForBaseAndSuffix, uniqueName } from './names.ts';
import { registryV1Renderer, renderRegistryV1, RenderError } from './render.ts';
import { bundle, csvWith, installModes } from './testing.ts';
import type { CSVSpec, InstallModeType } from '../../shared/registryv1/index.ts';
import { RABBITMQ_BUNDLE, renderConformanceDir } from '../../../test/support/testdata.ts';

const ALL: InstallModeType = 'AllNamespaces';
const OWN: InstallModeType = 'OwnNamespace';
const SINGLE: InstallModeType = 'SingleNamespace';
const MULTI: InstallModeType = 'MultiNamespace';
const GATES_ON = { singleOwnNamespaceInstallSupport: true, deploymentConfig: true } as const;
const GATES_OFF = { singleOwnNamespaceInstallSupport: false, deploymentConfig: false } as const;

const spec = (...modes: InstallModeType[]): CSVSpec => ({
  installModes: installModes(...modes),
  install: {
    strategy: 'deployment',
    spec: {
      deployments: [{ name: 'op', spec: { selector: { matchLabels: { app: 'op' } }, template: { spec: { containers: [{ name: 'c' }] } } } }],
      permissions: [{ serviceAccountName: 'sa', rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }],
    },
  },
});

describe('target namespaces (install mode × targets, render.go)', () => {
  it.each([
    { modes: [ALL], targets: [''], want: undefined },
    { modes: [ALL], targets: ['install'], want: 'supported install modes [AllNamespaces] do not support targeting own namespace' },
    { modes: [ALL], targets: ['other'], want: 'supported install modes [AllNamespaces] do not support target namespaces [other]' },
    { modes: [ALL], targets: [], want: 'exactly one target namespace must be specified' },
    { modes: [OWN], targets: ['install'], want: undefined },
    { modes: [OWN], targets: [''], want: 'supported install modes [OwnNamespace] do not support targeting all namespaces' },
    { modes: [OWN], targets: ['other'], want: 'supported install modes [OwnNamespace] do not support target namespaces [other]' },
    { modes: [SINGLE], targets: ['other'], want: undefined },
    { modes: [SINGLE], targets: ['install'], want: 'supported install modes [SingleNamespace] do not support targeting own namespace' },
    { modes: [SINGLE], targets: [], want: 'exactly one target namespace must be specified' },
    { modes: [MULTI], targets: [], want: 'at least one target namespace must be specified' },
    { modes: [MULTI], targets: ['a', 'b'], want: undefined },
    { modes: [MULTI], targets: ['a', 'install'], want: 'supported install modes [MultiNamespace] do not support targeting own namespace' },
    { modes: [MULTI, OWN], targets: ['a', 'install'], want: undefined },
    { modes: [MULTI, ALL], targets: ['a', ''], want: 'supported install modes [AllNamespaces MultiNamespace] do not support target namespaces [a ]' },
    { modes: [ALL, OWN, SINGLE, MULTI], targets: ['install'], want: undefined },
    { modes: [OWN, SINGLE], targets: ['other'], want: undefined },
  ])('$modes with $targets', ({ modes, targets, want }) => {
    expect(targetNamespacesError(csvWith(spec(...modes)), 'install', targets)).toBe(want);
  });

  it('defaults to all namespaces only when AllNamespaces is supported', () => {
    expect(defaultTargetNamespaces(csvWith(spec(ALL, OWN)))).toEqual(['']);
    expect(defaultTargetNamespaces(csvWith(spec(OWN, SINGLE)))).toEqual([]);
  });
});

describe('unique names', () => {
  it('caps base+suffix at 63 characters as ObjectNameForBaseAndSuffix does (64 when the sum is exactly 63)', () => {
    expect(objectNameForBaseAndSuffix('abc', 'xyz')).toBe('abc-xyz');
    expect(objectNameForBaseAndSuffix('a'.repeat(40), 'b'.repeat(30))).toBe(`${'a'.repeat(32)}-${'b'.repeat(30)}`);
    expect(objectNameForBaseAndSuffix('a'.repeat(33), 'b'.repeat(30))).toHaveLength(64);
  });
  it('hashes the Go encoding/json of the permission (struct order, omitempty, HTML escaping)', () => {
    expect(goPermissionJSON({ serviceAccountName: 'a<b', rules: [{ verbs: ['get'], resources: ['x&y'], apiGroups: [] }] })).toBe(
      '{"serviceAccountName":"a\\u003cb","rules":[{"verbs":["get"],"resources":["x\\u0026y"]}]}\n',
    );
    expect(goPermissionJSON({ serviceAccountName: 's' })).toBe('{"serviceAccountName":"s","rules":null}\n');
    expect(uniqueName('op.v1-sa', { serviceAccountName: 'sa', rules: [] })).toMatch(/^op\.v1-sa-[0-9a-z]+$/);
  });
});

describe('renderRegistryV1', () => {
  const render = (s: CSVSpec, opts: Parameters<typeof renderRegistryV1>[1], extra: Parameters<typeof bundle>[1] = {}) =>
    renderRegistryV1(bundle(csvWith(s), extra), opts);
  const errorOf = (fn: () => unknown): RenderError => {
    try {
      fn();
    } catch (err) {
      if (err instanceof RenderError) return err;
      throw err;
    }
    throw new Error('no error');
  };

  it('renders Roles in each target namespace for SingleNamespace and ClusterRoles with the namespaces rule for AllNamespaces', () => {
    const single = render(spec(SINGLE, ALL), { installNamespace: 'install', watchNamespace: 'watch' });
    expect(single.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}`)).toEqual([
      'ServiceAccount/install',
      'Role/watch',
      'RoleBinding/watch',
      'Deployment/install',
    ]);
    const deployment = single.find((o) => o.kind === 'Deployment') as unknown as { spec: { template: { metadata: { annotations: Record<string, string> } } } };
    expect(deployment.spec.template.metadata.annotations).toMatchObject({ 'olm.targetNamespaces': 'watch', 'olm.operatorNamespace': 'install' });
    const all = render(spec(SINGLE, ALL), { installNamespace: 'install' });
    const clusterRole = all.find((o) => o.kind === 'ClusterRole') as unknown as { rules: unknown[] };
    expect(clusterRole.rules.at(-1)).toEqual({ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['namespaces'] });
  });

  it.each([
    {
      name: 'apiservices',
      s: { ...spec(ALL), apiservicedefinitions: { owned: [{}] } },
      want: 'unsupported bundle: apiServiceDefintions are not supported',
    },
    {
      name: 'webhooks without a certificate provider, on the install path (upstream turns webhook support on only with a provider)',
      s: { ...spec(ALL), webhookdefinitions: [{ type: 'ValidatingAdmissionWebhook' as const, generateName: 'v', deploymentName: 'op' }] },
      want: 'unsupported bundle: webhookDefinitions are not supported',
      certProvider: null,
      manifestProvider: GATES_ON,
    },
    {
      name: 'MultiNamespace only',
      s: spec(MULTI),
      want: 'unsupported bundle: bundle must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes',
    },
    {
      name: 'MultiNamespace only, on the install path with SingleOwnNamespaceInstallSupport',
      s: spec(MULTI),
      want: 'unsupported bundle: bundle must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes',
      manifestProvider: GATES_ON,
    },
    {
      name: 'MultiNamespace only, on the install path without SingleOwnNamespaceInstallSupport (that gate is checked first)',
      s: spec(MULTI),
      want: 'unsupported bundle: bundle does not support AllNamespaces install mode',
      manifestProvider: GATES_OFF,
    },
  ])('gates unsupported bundles: $name', ({ s, want, certProvider, manifestProvider }) => {
    const err = errorOf(() => render(s, { installNamespace: 'ns', certProvider, manifestProvider }));
    expect(err.kind).toBe('UnsupportedBundle');
    expect(err.message).toBe(want);
  });

  it.each([
    { modes: [OWN], config: {}, want: 'required field "watchNamespace" is missing' },
    { modes: [SINGLE], config: { watchNamespace: null }, want: 'required field "watchNamespace" is missing' },
    { modes: [SINGLE], config: { watchNamespace: 123 }, want: 'invalid type for field "watchNamespace": got number, want string' },
    { modes: [ALL], config: { unknownField: 'x' }, want: 'unknown field "unknownField"' },
    { modes: [ALL], config: { watchNamespace: 'x' }, want: 'unknown field "watchNamespace"' },
    {
      modes: [ALL, OWN],
      config: { watchNamespace: 5 },
      want: 'multiple errors found:\n  - invalid value for field "watchNamespace"\n  - invalid type for field "watchNamespace": got number, want null\n  - invalid type for field "watchNamespace": got number, want string',
    },
    {
      modes: [ALL],
      config: { deploymentConfig: { env: 'x', nodeSelector: [] } },
      want: 'multiple errors found:\n  - invalid type for field "deploymentConfig.env": got string, want array\n  - invalid type for field "deploymentConfig.nodeSelector": got array, want object',
    },
    {
      modes: [ALL],
      config: { deploymentConfig: { env: 'x', nodeSelector: [] }, bogus: 1 },
      want: 'multiple errors found:\n  - validation failed\n  - invalid type for field "deploymentConfig.env": got string, want array\n  - invalid type for field "deploymentConfig.nodeSelector": got array, want object\n  - unknown field "bogus"',
    },
    { modes: [OWN], config: { watchNamespace: '' }, want: 'invalid format for field "watchNamespace": \'\' is not valid ownNamespaceInstallMode: invalid value "": must be "ns" (the namespace where the operator is installed) because this operator only supports OwnNamespace install mode' },
    { modes: [OWN, SINGLE], config: { watchNamespace: '' }, want: 'multiple errors found:\n  - field "watchNamespace" must have minimum length of 1 (len=0)\n  - field "watchNamespace" must match pattern "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"' },
    { modes: [OWN], config: { a: 1, b: 2 }, want: 'multiple errors found:\n  - required field "watchNamespace" is missing\n  - unknown field "a"' },
    { modes: [ALL], config: true, want: 'invalid type: got boolean, want object' },
    { modes: [ALL], config: { deploymentConfig: 'x' }, want: 'invalid type for field "deploymentConfig": got string, want object' },
    { modes: [ALL], config: { deploymentConfig: { selector: {} } }, want: 'unknown field "selector"' },
    // Kubernetes types are $refs upstream: a single problem inside one prints only the library's `validation failed`.
    { modes: [ALL], config: { deploymentConfig: { env: [{ value: 'x' }] } }, want: 'validation failed' },
    {
      modes: [ALL],
      config: { deploymentConfig: { volumeMounts: [{ name: 5 }] } },
      want: 'multiple errors found:\n  - validation failed\n  - required field "mountPath" is missing\n  - invalid type for field "deploymentConfig.volumeMounts.0.name": got number, want string',
    },
    // The full Kubernetes types (upstream's registryv1bundleconfig.json): wrong types deep inside are refused too.
    { modes: [ALL], config: { deploymentConfig: { tolerations: [{ key: 'k', operator: 'Exists', tolerationSeconds: '300' }] } }, want: 'validation failed' },
    {
      modes: [ALL],
      config: { deploymentConfig: { tolerations: [{ key: 'k', tolerationSeconds: 1.5, effect: 1 }] } },
      want: 'multiple errors found:\n  - validation failed\n  - invalid type for field "deploymentConfig.tolerations.0.effect": got number, want string\n  - invalid type for field "deploymentConfig.tolerations.0.tolerationSeconds": got number, want integer',
    },
    {
      modes: [ALL],
      config: { deploymentConfig: { affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: '1', podAffinityTerm: { topologyKey: 'z' } }] } } } },
      want: 'validation failed',
    },
    {
      modes: [OWN],
      config: { watchNamespace: 'ns', deploymentConfig: { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: '1' }] }, podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: '1' }] } } } },
      want: "multiple errors found:\n  - validation failed\n  - 'allOf' failed\n  - validation failed\n  - 'allOf' failed\n  - validation failed",
    },
    {
      modes: [SINGLE],
      config: { watchNamespace: 'x'.repeat(64) },
      want: 'field "watchNamespace" must have maximum length of 63 (len=64)',
    },
    {
      modes: [OWN],
      config: { watchNamespace: 'wrong' },
      want: 'invalid format for field "watchNamespace": \'wrong\' is not valid ownNamespaceInstallMode: invalid value "wrong": must be "ns" (the namespace where the operator is installed) because this operator only supports OwnNamespace install mode',
    },
    {
      modes: [SINGLE],
      config: { watchNamespace: 'ns' },
      want: 'invalid format for field "watchNamespace": \'ns\' is not valid singleNamespaceInstallMode: invalid value "ns": must be different from "ns" (the install namespace) because this operator uses SingleNamespace install mode to watch a different namespace',
    },
    {
      modes: [SINGLE],
      config: { watchNamespace: 'Bad_NS', extra: 1 },
      want: 'multiple errors found:\n  - field "watchNamespace" must match pattern "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"\n  - unknown field "extra"',
    },
  ])('bundle config $config with $modes', ({ modes, config, want }) => {
    const err = errorOf(() => render(spec(...modes), { installNamespace: 'ns', config }));
    expect(err.kind).toBe('InvalidConfiguration');
    expect(err.message).toBe(`invalid ClusterExtension configuration: invalid configuration: ${want}`);
  });

  it.each([
    { q: 'abc', want: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'" },
    { q: '1Xi', want: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'" },
    { q: '1Ti2', want: "unable to parse quantity's suffix" },
    { q: '1.2.3', want: "unable to parse quantity's suffix" },
  ])('a deploymentConfig quantity that does not parse ($q) is an invalid deploymentConfig', ({ q, want }) => {
    const err = errorOf(() => render(spec(ALL), { installNamespace: 'ns', config: { deploymentConfig: { resources: { limits: { cpu: q } } } } }));
    expect(err.kind).toBe('InvalidConfiguration');
    expect(err.message).toBe(`invalid deploymentConfig: failed to unmarshal deploymentConfig: ${want}`);
  });

  it('validates the configuration before the bundle, and the bundle before generating', () => {
    expect(errorOf(() => render(spec(ALL), { installNamespace: 'ns' }, { packageName: '' })).message).toBe('package name is empty');
    expect(errorOf(() => render(spec(ALL), { installNamespace: 'ns', config: { x: 1 } }, { packageName: '' })).kind).toBe('InvalidConfiguration');
  });

  it('the library renders a bundle with webhooks without a certificate provider; the controller port refuses it, and uses cert-manager by default', async () => {
    const webhooks = { ...spec(ALL), webhookdefinitions: [{ type: 'ValidatingAdmissionWebhook' as const, generateName: 'v.x.io', deploymentName: 'op', sideEffects: 'None', admissionReviewVersions: ['v1'], containerPort: 443 }] };
    const plain = render(webhooks, { installNamespace: 'ns' });
    expect(plain.map((o) => o.kind)).not.toContain('Certificate');
    const vwc = plain.find((o) => o.kind === 'ValidatingWebhookConfiguration')!;
    expect(vwc.metadata.annotations).toBeUndefined();

    const dir = RABBITMQ_BUNDLE;
    const refused = await registryV1Renderer({ certProvider: null }).render(dir, { installNamespace: 'rmq' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RenderError);
    expect((refused as Error).message).toBe('unsupported bundle: webhookDefinitions are not supported');
    const installed = await registryV1Renderer().render(dir, { installNamespace: 'rmq' });
    expect(installed.objects.filter((o) => o.kind === 'Certificate' || o.kind === 'Issuer').map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'Issuer/messaging-topology-operator-service-cert-selfsigned-issuer',
      'Certificate/messaging-topology-operator-service-cert',
    ]);
  });

  it('the controller port makes configuration errors terminal (InvalidConfiguration) and leaves the rest retryable', async () => {
    const dir = join(renderConformanceDir(), 'bundles/argocd-operator.v0.6.0');
    const renderer = registryV1Renderer({ singleOwnNamespaceInstallSupport: true });
    const err = await renderer.render(dir, { installNamespace: 'ns', config: { bogus: true } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TerminalError);
    expect((err as TerminalError).reason).toBe('InvalidConfiguration');
    expect((err as Error).message).toBe('invalid ClusterExtension configuration: invalid configuration: unknown field "bogus"');
    const missing = await renderer.render('/nonexistent', { installNamespace: 'ns' }).catch((e: unknown) => e);
    expect(missing).not.toBeInstanceOf(TerminalError);
    expect((missing as Error).message).toBe('open metadata/annotations.yaml: no such file or directory');
    expect((await renderer.render(dir, { installNamespace: 'ns', watchNamespace: 'ns' })).objects).toHaveLength(14);
  });

  it('the controller port gives the bundle’s olm.properties (metadata/properties.yaml merged in), as upstream records it', async () => {
    const renderer = registryV1Renderer();
    const demo = (v: string): string => join(import.meta.dirname, '../../../demo/bundles', `demo-operator.v${v}`);
    expect((await renderer.render(demo('0.1.0'), { installNamespace: 'demo' })).properties).toBe('[{"type":"olm.maxOpenShiftVersion","value":"4.22"}]');
    expect((await renderer.render(demo('0.3.0'), { installNamespace: 'demo' })).properties).toBeUndefined();
  });
});

describe('the install path’s feature gates (upstream’s RegistryV1ManifestProvider)', () => {
  const render = (s: CSVSpec, opts: Omit<Parameters<typeof renderRegistryV1>[1], 'installNamespace'>) =>
    renderRegistryV1(bundle(csvWith(s)), { installNamespace: 'ns', certProvider: 'cert-manager', ...opts });
  const errorOf = (fn: () => unknown): RenderError => {
    try {
      fn();
    } catch (err) {
      if (err instanceof RenderError) return err;
      throw err;
    }
    throw new Error('no error');
  };
  const targets = (objects: readonly KubeObject[]): string | undefined => {
    const dep = objects.find((o) => o.kind === 'Deployment') as unknown as { spec: { template: { metadata: { annotations: Record<string, string> } } } };
    return dep.spec.template.metadata.annotations['olm.targetNamespaces'];
  };
  const envOf = (objects: readonly KubeObject[]): unknown => {
    const dep = objects.find((o) => o.kind === 'Deployment') as unknown as { spec: { template: { spec: { containers: { env?: unknown }[] } } } };
    return dep.spec.template.spec.containers[0]!.env;
  };

  describe('SingleOwnNamespaceInstallSupport', () => {
    it.each([[OWN], [SINGLE], [OWN, SINGLE]])('off: a bundle without AllNamespaces (%s) is unsupported, with or without a configuration', (...modes) => {
      for (const config of [undefined, { watchNamespace: 'ns' }]) {
        const err = errorOf(() => render(spec(...modes), { manifestProvider: GATES_OFF, config }));
        expect(err.kind).toBe('UnsupportedBundle');
        expect(err.message).toBe('unsupported bundle: bundle does not support AllNamespaces install mode');
      }
    });

    it('off: without spec.config the configuration is not read, so the bundle installs for all namespaces', () => {
      expect(targets(render(spec(ALL, OWN), { manifestProvider: GATES_OFF }))).toBe('');
    });

    it('off: a configuration that is given is still validated and used (watchNamespace included)', () => {
      expect(targets(render(spec(ALL, OWN), { manifestProvider: GATES_OFF, config: { watchNamespace: 'ns' } }))).toBe('ns');
      const err = errorOf(() => render(spec(ALL), { manifestProvider: GATES_OFF, config: { bogus: 1 } }));
      expect(err.kind).toBe('InvalidConfiguration');
      expect(err.message).toBe('invalid ClusterExtension configuration: invalid configuration: unknown field "bogus"');
    });

    it('on: OwnNamespace and SingleNamespace bundles install with the right watchNamespace', () => {
      expect(targets(render(spec(OWN), { manifestProvider: GATES_ON, config: { watchNamespace: 'ns' } }))).toBe('ns');
      expect(targets(render(spec(SINGLE), { manifestProvider: GATES_ON, config: { watchNamespace: 'other' } }))).toBe('other');
      expect(targets(render(spec(ALL, OWN), { manifestProvider: GATES_ON }))).toBe('');
    });

    it.each([[OWN], [SINGLE]])('on: the configuration is validated without spec.config, so a %s bundle needs a watchNamespace', (mode) => {
      const err = errorOf(() => render(spec(mode), { manifestProvider: GATES_ON }));
      expect(err.kind).toBe('InvalidConfiguration');
      expect(err.message).toBe('invalid ClusterExtension configuration: invalid configuration: required field "watchNamespace" is missing');
    });
  });

  describe('DeploymentConfig', () => {
    const env = [{ name: 'TEST_ENV', value: 'test-value' }];
    it.each([
      { name: 'both gates off', gates: GATES_OFF },
      { name: 'SingleOwnNamespaceInstallSupport on', gates: { singleOwnNamespaceInstallSupport: true, deploymentConfig: false } },
    ])('off ($name): deploymentConfig is not part of the schema, an unknown field', ({ gates }) => {
      const err = errorOf(() => render(spec(ALL), { manifestProvider: gates, config: { deploymentConfig: { env } } }));
      expect(err.kind).toBe('InvalidConfiguration');
      expect(err.message).toBe('invalid ClusterExtension configuration: invalid configuration: unknown field "deploymentConfig"');
    });

    it('on: deploymentConfig reaches the Deployment, with or without SingleOwnNamespaceInstallSupport', () => {
      expect(envOf(render(spec(ALL), { manifestProvider: GATES_ON, config: { deploymentConfig: { env } } }))).toEqual(env);
      const gates = { singleOwnNamespaceInstallSupport: false, deploymentConfig: true };
      expect(envOf(render(spec(ALL), { manifestProvider: gates, config: { deploymentConfig: { env } } }))).toEqual(env);
    });

    it('on: its schema problems and undecodable quantities are configuration errors, found before the bundle checks', () => {
      const bad = errorOf(() => render(spec(ALL), { manifestProvider: GATES_ON, config: { deploymentConfig: { env: 'not-an-array' } } }));
      expect(bad.message).toBe('invalid ClusterExtension configuration: invalid configuration: invalid type for field "deploymentConfig.env": got string, want array');
      const q = errorOf(() =>
        renderRegistryV1(bundle(csvWith(spec(ALL)), { packageName: '' }), {
          installNamespace: 'ns',
          manifestProvider: GATES_ON,
          config: { deploymentConfig: { resources: { requests: { memory: '1Ti2' } } } },
        }),
      );
      expect(q.kind).toBe('InvalidConfiguration');
      expect(q.message).toBe("invalid deploymentConfig: failed to unmarshal deploymentConfig: unable to parse quantity's suffix");
    });
  });

  it('the controller port takes the gates (both off by default, as upstream) and makes their configuration errors terminal', async () => {
    const dir = join(import.meta.dirname, '../../../demo/bundles/demo-operator.v0.1.0');
    const config = { deploymentConfig: { env: [{ name: 'A', value: 'b' }] } };
    const off = await registryV1Renderer().render(dir, { installNamespace: 'demo', config }).catch((e: unknown) => e);
    expect(off).toBeInstanceOf(TerminalError);
    expect((off as TerminalError).reason).toBe('InvalidConfiguration');
    expect((off as Error).message).toBe('invalid ClusterExtension configuration: invalid configuration: unknown field "deploymentConfig"');
    const on = await registryV1Renderer({ deploymentConfig: true }).render(dir, { installNamespace: 'demo', config });
    expect(envOf(on.objects)).toContainEqual({ name: 'A', value: 'b' });
  });
});
