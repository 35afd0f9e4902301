import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { certManagerProvider, openshiftServiceCAProvider } from './certproviders.ts';
import { applyDeploymentConfig, type CSVSpec, type WebhookDescription } from '../../shared/registryv1/index.ts';
import { additionalResourcesGenerator, crdGenerator, deploymentGenerator, GenerateError, serviceGenerator, validatingWebhookGenerator, mutatingWebhookGenerator } from './generators.ts';
import { renderRegistryV1 } from './render.ts';
import { bundle, crd, csvWith, installModes } from './testing.ts';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const webhookSpec = (hooks: WebhookDescription[], podSpec: Obj = { containers: [{ name: 'manager' }] }): CSVSpec => ({
  installModes: installModes('AllNamespaces'),
  customresourcedefinitions: { owned: [{ name: 'things.x.io' }] },
  install: {
    strategy: 'deployment',
    spec: { deployments: [{ name: 'my.webhook', spec: { selector: { matchLabels: { app: 'w' } }, template: { spec: podSpec } } }] },
  },
  webhookdefinitions: hooks,
});

const hook = (over: Partial<WebhookDescription>): WebhookDescription => ({
  type: 'ValidatingAdmissionWebhook',
  generateName: 'vthing.x.io',
  deploymentName: 'my.webhook',
  containerPort: 443,
  targetPort: 9443,
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  webhookPath: '/validate',
  ...over,
});

const opts = (targets: string[], certProvider = certManagerProvider) => ({ installNamespace: 'inst', targetNamespaces: targets, certProvider });

describe('webhook generators', () => {
  it('names the configuration after generateName minus a trailing "-", points at the deployment service, and selects target namespaces', () => {
    const rv1 = bundle(csvWith(webhookSpec([hook({ generateName: 'vthing.x.io-' })])));
    const [vwc] = validatingWebhookGenerator(rv1, opts(['a', 'b'])) as Obj[];
    expect(vwc).toEqual({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'vthing.x.io', namespace: 'inst', annotations: { 'cert-manager.io/inject-ca-from': 'inst/my-webhook-service-cert' } },
      webhooks: [
        {
          name: 'vthing.x.io',
          clientConfig: { service: { namespace: 'inst', name: 'my-webhook-service', path: '/validate', port: 443 } },
          namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['a', 'b'] }] },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    });
    expect((validatingWebhookGenerator(rv1, opts([''])) as Obj[])[0]!.webhooks[0].namespaceSelector).toBeUndefined();
  });

  it('keeps reinvocationPolicy on mutating webhooks only', () => {
    const rv1 = bundle(csvWith(webhookSpec([hook({ type: 'MutatingAdmissionWebhook', generateName: 'm.x.io', reinvocationPolicy: 'IfNeeded' })])));
    expect((mutatingWebhookGenerator(rv1, opts([''])) as Obj[])[0]!.webhooks[0].reinvocationPolicy).toBe('IfNeeded');
    expect(validatingWebhookGenerator(rv1, opts(['']))).toEqual([]);
  });

  it('one Service per webhook deployment with deduplicated, sorted ports; OpenShift annotates it with the serving cert secret', () => {
    const rv1 = bundle(
      csvWith(
        webhookSpec([
          hook({ generateName: 'a.x.io', containerPort: 8443, targetPort: 8443 }),
          hook({ generateName: 'b.x.io' }),
          hook({ generateName: 'c.x.io', containerPort: undefined, targetPort: undefined }),
          hook({ generateName: 'd.x.io' }),
        ]),
      ),
    );
    const [svc] = serviceGenerator(rv1, opts([''], openshiftServiceCAProvider)) as Obj[];
    expect(svc!.metadata).toEqual({
      name: 'my-webhook-service',
      namespace: 'inst',
      annotations: { 'service.beta.openshift.io/serving-cert-secret-name': 'my-webhook-service-cert' },
    });
    expect(svc!.spec).toEqual({
      ports: [
        { name: '443', port: 443, targetPort: 443 },
        { name: '443', port: 443, targetPort: 9443 },
        { name: '8443', port: 8443, targetPort: 8443 },
      ],
      selector: { app: 'w' },
    });
  });

  it('wires conversion webhooks into their CRDs and refuses preserveUnknownFields', () => {
    const conv = hook({ type: 'ConversionWebhook', generateName: 'cthing.x.io', conversionCRDs: ['things.x.io'], webhookPath: undefined, containerPort: 9443 });
    const rv1 = bundle(csvWith(webhookSpec([conv])), { crds: [crd('things.x.io', { group: 'x.io' })] });
    const [out] = crdGenerator(rv1, opts([''], openshiftServiceCAProvider)) as Obj[];
    expect(out!.metadata.annotations).toEqual({ 'service.beta.openshift.io/inject-cabundle': 'true' });
    expect(out!.spec.conversion).toEqual({
      strategy: 'Webhook',
      webhook: {
        clientConfig: { service: { namespace: 'inst', name: 'my-webhook-service', path: '/', port: 9443 } },
        conversionReviewVersions: ['v1'],
      },
    });
    expect(out!.status).toEqual({ acceptedNames: { kind: '', plural: '' }, conditions: null, storedVersions: null });
    const bad = bundle(csvWith(webhookSpec([conv])), { crds: [crd('things.x.io', { preserveUnknownFields: true })] });
    expect(() => crdGenerator(bad, opts(['']))).toThrow(
      new GenerateError(
        "custom resource definition 'things.x.io' must have .spec.preserveUnknownFields set to false to let API Server call webhook to do the conversion",
      ),
    );
  });

  it('replaces webhook certificate volumes and mounts with the provider secret', () => {
    const podSpec = {
      containers: [
        { name: 'manager', volumeMounts: [{ name: 'certs', mountPath: '/tmp/k8s-webhook-server/serving-certs' }, { name: 'data', mountPath: '/data' }] },
      ],
      volumes: [{ name: 'certs', secret: { secretName: 'old' } }, { name: 'data', emptyDir: {} }, { name: 'apiservice-cert', emptyDir: {} }],
    };
    const rv1 = bundle(csvWith(webhookSpec([hook({})], podSpec)));
    const [dep] = deploymentGenerator(rv1, opts([''])) as Obj[];
    const pod = dep!.spec.template.spec;
    expect(pod.volumes.map((v: Obj) => v.name)).toEqual(['data', 'webhook-cert', 'apiservice-cert']);
    expect(pod.volumes[2].secret).toEqual({
      secretName: 'my-webhook-service-cert',
      items: [
        { key: 'tls.crt', path: 'apiserver.crt' },
        { key: 'tls.key', path: 'apiserver.key' },
      ],
    });
    expect(pod.containers[0].volumeMounts).toEqual([
      { name: 'data', mountPath: '/data' },
      { name: 'webhook-cert', mountPath: '/tmp/k8s-webhook-server/serving-certs' },
      { name: 'apiservice-cert', mountPath: '/apiserver.local.config/certificates' },
    ]);
    expect(dep!.status).toEqual({});
    expect(deploymentGenerator(bundle(csvWith(webhookSpec([], { containers: [{ name: 'm', resources: { limits: { cpu: '1000m', memory: '2048Mi' } } }], volumes: [{ name: 'e', emptyDir: { sizeLimit: '1024Ki' } }] }))), { ...opts(['']), deploymentConfig: undefined }).map((d) => (d as Obj).spec.template.spec)).toEqual([
      { containers: [{ name: 'm', resources: { limits: { cpu: '1', memory: '2Gi' } } }], volumes: [{ name: 'e', emptyDir: { sizeLimit: '1Mi' } }] },
    ]);
    expect(dep!.spec.strategy).toEqual({});
    expect(pod.containers[0].resources).toEqual({});
  });

  it('cert-manager adds a self-signed Issuer and a Certificate per webhook deployment, last in the output', () => {
    const objs = renderRegistryV1(bundle(csvWith(webhookSpec([hook({})])), { crds: [crd('things.x.io')] }), {
      installNamespace: 'inst',
      certProvider: 'cert-manager',
    });
    expect(objs.map((o) => o.kind)).toEqual(['CustomResourceDefinition', 'Deployment', 'ValidatingWebhookConfiguration', 'Service', 'Issuer', 'Certificate']);
    expect(objs.slice(-2)).toEqual([
      {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Issuer',
        metadata: { name: 'my-webhook-service-cert-selfsigned-issuer', namespace: 'inst' },
        spec: { selfSigned: {} },
      },
      {
        apiVersion: 'cert-manager.io/v1',
        kind: 'Certificate',
        metadata: { name: 'my-webhook-service-cert', namespace: 'inst' },
        spec: {
          secretName: 'my-webhook-service-cert',
          commonName: 'my-webhook-service.inst',
          dnsNames: ['my-webhook-service.inst', 'my-webhook-service.inst.svc', 'my-webhook-service.inst.svc.cluster.local'],
          usages: ['server auth'],
          issuerRef: { name: 'my-webhook-service-cert-selfsigned-issuer' },
          duration: '17520h0m0s',
          renewBefore: '24h0m0s',
        },
      },
    ]);
    const openshift = renderRegistryV1(bundle(csvWith(webhookSpec([hook({})])), { crds: [crd('things.x.io')] }), {
      installNamespace: 'inst',
      certProvider: 'openshift-serviceca',
    });
    expect(openshift.map((o) => o.kind)).not.toContain('Certificate');
  });
});

describe('deploymentConfig', () => {
  const deployment = (): KubeObject =>
    structuredClone({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', annotations: { keep: 'deployment' } },
      spec: {
        template: {
          metadata: { annotations: { keep: 'pod' } },
          spec: {
            containers: [
              {
                name: 'a',
                env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }],
                envFrom: [{ configMapRef: { name: 'cm' } }],
                volumeMounts: [{ name: 'v', mountPath: '/old' }],
                resources: { limits: { cpu: '1' } },
              },
            ],
            volumes: [{ name: 'v', emptyDir: {} }],
            tolerations: [{ key: 'k', operator: 'Exists' }],
            nodeSelector: { old: 'x' },
            affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1 }] }, podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 't' }] } },
          },
        },
      },
    });
  const pod = (d: KubeObject): Obj => (d as Obj).spec.template.spec;

  it('overrides env by name and appends the rest; appends envFrom and tolerations unless already there', () => {
    const d = deployment();
    applyDeploymentConfig(d, {
      env: [{ name: 'B', value: 'new' }, { name: 'C', value: '3' }],
      envFrom: [{ configMapRef: { name: 'cm' } }, { secretRef: { name: 's' } }],
      tolerations: [{ key: 'k', operator: 'Exists', value: '' }, { key: 'n', operator: 'Equal', value: 'v' }],
    });
    const c = pod(d).containers[0];
    expect(c.env).toEqual([{ name: 'A', value: '1' }, { name: 'B', value: 'new' }, { name: 'C', value: '3' }]);
    expect(c.envFrom).toEqual([{ configMapRef: { name: 'cm' } }, { secretRef: { name: 's' } }]);
    expect(pod(d).tolerations).toEqual([{ key: 'k', operator: 'Exists' }, { key: 'n', operator: 'Equal', value: 'v' }]);
  });

  it('replaces volumes and mounts by name (unlike OLMv0), resources and nodeSelector wholesale', () => {
    const d = deployment();
    applyDeploymentConfig(d, {
      volumes: [{ name: 'v', configMap: { name: 'c' } }, { name: 'w', emptyDir: {} }],
      volumeMounts: [{ name: 'v', mountPath: '/new' }],
      resources: { requests: { cpu: '2' } },
      nodeSelector: { os: 'linux' },
    });
    expect(pod(d).volumes).toEqual([{ name: 'v', configMap: { name: 'c' } }, { name: 'w', emptyDir: {} }]);
    expect(pod(d).containers[0].volumeMounts).toEqual([{ name: 'v', mountPath: '/new' }]);
    expect(pod(d).containers[0].resources).toEqual({ requests: { cpu: '2' } });
    expect(pod(d).nodeSelector).toEqual({ os: 'linux' });
  });

  it.each([
    { name: 'absent leaves affinity alone', affinity: undefined, want: 'unchanged' },
    { name: '{} erases it', affinity: {}, want: undefined },
    { name: 'an empty sub-field erases that sub-field', affinity: { nodeAffinity: {} }, want: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 't' }] } } },
    { name: 'erasing every sub-field erases affinity', affinity: { nodeAffinity: {}, podAffinity: {} }, want: undefined },
    {
      name: 'a set sub-field replaces that sub-field',
      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'z' }] } },
      want: {
        nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1 }] },
        podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 't' }] },
        podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'z' }] },
      },
    },
  ])('affinity: $name', ({ affinity, want }) => {
    const d = deployment();
    const before = structuredClone(pod(d).affinity);
    applyDeploymentConfig(d, { affinity });
    expect(pod(d).affinity).toEqual(want === 'unchanged' ? before : want);
  });

  it('adds annotations to the Deployment and its pod template without overriding existing keys', () => {
    const d = deployment();
    applyDeploymentConfig(d, { annotations: { keep: 'config', extra: 'x' } });
    expect(d.metadata.annotations).toEqual({ keep: 'deployment', extra: 'x' });
    expect((d as Obj).spec.template.metadata.annotations).toEqual({ keep: 'pod', extra: 'x' });
  });
});

describe('additional resources', () => {
  it('places the kinds operator-registry v1.73.0 added: NetworkPolicy and PodMonitor in the install namespace, the console kinds cluster-wide', () => {
    const rv1 = bundle(csvWith(), {
      others: [
        { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'np', namespace: 'elsewhere' }, spec: { podSelector: {}, policyTypes: ['Ingress'] } },
        { apiVersion: 'monitoring.coreos.com/v1', kind: 'PodMonitor', metadata: { name: 'pm' } },
        { apiVersion: 'console.openshift.io/v1', kind: 'ConsolePlugin', metadata: { name: 'cp' } },
      ],
    });
    expect(additionalResourcesGenerator(rv1, opts(['']))).toEqual([
      { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'np', namespace: 'inst' }, spec: { podSelector: {}, policyTypes: ['Ingress'] } },
      { apiVersion: 'monitoring.coreos.com/v1', kind: 'PodMonitor', metadata: { name: 'pm', namespace: 'inst' } },
      { apiVersion: 'console.openshift.io/v1', kind: 'ConsolePlugin', metadata: { name: 'cp' } },
    ]);
  });
});
