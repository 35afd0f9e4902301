// Owned webhooks as upstream's olm-operator installs them (install/certresources.go, install/webhook.go,
// olm/apiservices.go): per deployment serving webhooks a Service `<deployment>-service`, a serving certificate signed
// by a fresh CA in Secret `<service>-cert` (reused until it should rotate), a Role and RoleBinding letting the
// deployment's service account read it, the `system:auth-delegator` ClusterRoleBinding and the kube-system
// `extension-apiserver-authentication-reader` RoleBinding, the certificate mounted at both well-known paths with the
// CA's hash as the `olmcahash` template annotation; then the Validating/MutatingWebhookConfigurations (generateName,
// owner and description labels, the CA as caBundle, the OperatorGroup's namespace selector) and the CRDs' conversion.
import type { KubeObject, LabelSelector } from '../../../api/meta/v1.ts';
import { ClusterServiceVersionKind, OperatorGroupLabelPrefix, type ClusterServiceVersion, type OperatorGroup, type WebhookDescription } from '../../../api/operators/index.ts';
import { errorMessage, realClock } from '../../shared/controller/index.ts';
import { ignoreNotFound, isOwnedBy, objectRef, retryOnConflict, type KubeClient } from '../../shared/kube/index.ts';
import { deepHash } from '../olmcache/index.ts';
import { CERT_MIN_FRESH_MS, CERT_VALID_FOR_MS, createSignedServingPair, generateCA, pemSHA256, shouldRotate, type KeyPair } from './certs.ts';
import { csvOwnerLabels, csvOwnerReference } from './install.ts';

export const WEBHOOK_DESC_LABEL = 'olm.webhook-description-generate-name';
export const WEBHOOK_HASH_LABEL = 'olm.webhook-description-hash';
export const OLM_CA_KEY = 'olmCAKey';
export const CA_HASH_ANNOTATION = 'olmcahash';
const FIELD_MANAGER = 'olm.install';
const ADMISSION = 'admissionregistration.k8s.io/v1';
const RBAC = 'rbac.authorization.k8s.io';
const MANAGED = { 'olm.managed': 'true' };

type Obj = Record<string, unknown>;

export const serviceName = (deployment: string): string => `${deployment}-service`;
export const secretName = (service: string): string => `${service}-cert`;
export const hostsFor = (service: string, namespace: string): string[] => [`${service}.${namespace}`, `${service}.${namespace}.svc`, `${service}.${namespace}.svc.cluster.local`];

export const webhooksOf = (csv: ClusterServiceVersion): WebhookDescription[] => csv.spec.webhookdefinitions ?? [];
const kindFor = (type: string): string | undefined =>
  type === 'ValidatingAdmissionWebhook' ? 'ValidatingWebhookConfiguration' : type === 'MutatingAdmissionWebhook' ? 'MutatingWebhookConfiguration' : undefined;

/** classic's AddDefaultCertVolumeAndVolumeMounts and SetCAAnnotation on a copy of a deployment spec. */
export function withCertVolumes(spec: Obj, secret: string, caHash: string): Obj {
  const out = structuredClone(spec);
  const template = (out['template'] ??= {}) as Obj;
  const meta = (template['metadata'] ??= {}) as Obj;
  const podSpec = (template['spec'] ??= {}) as Obj;
  const add = (volume: Obj, mount: { name: string; mountPath: string }): void => {
    const volumes = (podSpec['volumes'] ?? []) as Obj[];
    const i = volumes.findIndex((v) => v['name'] === volume['name']);
    if (i >= 0) volumes[i] = volume;
    else volumes.push(volume);
    podSpec['volumes'] = volumes;
    for (const c of (podSpec['containers'] ?? []) as Obj[]) {
      const mounts = (c['volumeMounts'] ?? []) as Obj[];
      // A mount of the same name is kept; one at the same path is replaced; else appended.
      if (mounts.some((m) => m['name'] === mount.name)) continue;
      const j = mounts.findIndex((m) => m['mountPath'] === mount.mountPath);
      if (j >= 0) mounts[j] = { ...mount };
      else mounts.push({ ...mount });
      c['volumeMounts'] = mounts;
    }
  };
  const secretVolume = (name: string, cert: string, key: string): Obj => ({ name, secret: { secretName: secret, items: [{ key: 'tls.crt', path: cert }, { key: 'tls.key', path: key }] } });
  add(secretVolume('apiservice-cert', 'apiserver.crt', 'apiserver.key'), { name: 'apiservice-cert', mountPath: '/apiserver.local.config/certificates' });
  add(secretVolume('webhook-cert', 'tls.crt', 'tls.key'), { name: 'webhook-cert', mountPath: '/tmp/k8s-webhook-server/serving-certs' });
  meta['annotations'] = { ...((meta['annotations'] ?? {}) as Record<string, string>), [CA_HASH_ANNOTATION]: caHash };
  return out;
}

interface SecretObj extends KubeObject {
  data?: Record<string, string>;
}
const decode = (v: string | undefined): string | undefined => (v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8'));

/** Create, or replace keeping the resourceVersion, adding the CSV as owner when the object is adoptable. */
async function createOrReplace(client: KubeClient, desired: KubeObject, csv: ClusterServiceVersion, signal: AbortSignal): Promise<void> {
  const ref = objectRef(desired);
  await retryOnConflict(
    async () => {
      const existing = await ignoreNotFound(client.get(ref, { signal }));
      if (!existing) {
        await client.create({ ...desired, metadata: { ...desired.metadata, ownerReferences: [csvOwnerReference(csv)] } }, { signal });
        return;
      }
      // upstream's Adoptable: an object already owned by some CSV gets this one added.
      const owners = existing.metadata.ownerReferences ?? [];
      const adoptable = owners.some((r) => r.kind === ClusterServiceVersionKind);
      const ownerReferences = adoptable && !isOwnedBy(existing, csv) ? [csvOwnerReference(csv)] : undefined;
      await client.update({ ...desired, metadata: { ...desired.metadata, resourceVersion: existing.metadata.resourceVersion, ...(ownerReferences && { ownerReferences }) } }, { signal });
    },
    { signal },
  );
}

export interface CertInstall {
  /** Strategy deployment specs with the certificate mounted, by deployment name. */
  readonly specs: Map<string, Obj>;
  /** The CA PEM of each deployment's webhooks. */
  readonly caPEM: Map<string, string>;
  /** When certificates were (re)issued: their rotation time (upstream's certsRotateAt). */
  readonly rotateAt?: Date;
}

/** upstream's installCertRequirements for the deployments that serve webhooks. */
export async function installCertRequirements(client: KubeClient, csv: ClusterServiceVersion, signal: AbortSignal, now = realClock.date()): Promise<CertInstall> {
  const namespace = csv.metadata.namespace ?? '';
  const specs = new Map<string, Obj>();
  const caPEMs = new Map<string, string>();
  const webhooks = webhooksOf(csv);
  if (webhooks.length === 0) return { specs, caPEM: caPEMs };
  const expiration = new Date(now.getTime() + CERT_VALID_FOR_MS);
  let ca: KeyPair | undefined;
  let rotated = false;
  for (const d of csv.spec.install.spec?.deployments ?? []) {
    const descs = webhooks.filter((w) => w.deploymentName === d.name);
    if (descs.length === 0) continue;
    const depSpec = structuredClone(d.spec) as Obj;
    const service = serviceName(d.name);
    const ports: { name: string; port: number; targetPort: number | string }[] = [];
    for (const w of descs) {
      const port = w.containerPort && w.containerPort > 0 ? w.containerPort : 443;
      const p = { name: String(port), port, targetPort: w.targetPort ?? port };
      if (!ports.some((x) => x.name === p.name && x.port === p.port && String(x.targetPort) === String(p.targetPort))) ports.push(p);
    }
    await client.apply(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: service, namespace, labels: { ...MANAGED }, ownerReferences: [csvOwnerReference(csv)] },
        spec: { ports, selector: ((depSpec['selector'] as Obj | undefined)?.['matchLabels'] ?? {}) as Obj },
      },
      { fieldManager: FIELD_MANAGER, force: true, signal },
    );
    const hosts = hostsFor(service, namespace);
    const secret = secretName(service);
    const existing = await ignoreNotFound(client.get<SecretObj>({ apiVersion: 'v1', kind: 'Secret', name: secret, namespace }, { signal }));
    let caPEM: string;
    if (existing && !shouldRotate({ caPEM: decode(existing.data?.[OLM_CA_KEY]), certPEM: decode(existing.data?.['tls.crt']) }, hosts, now)) {
      caPEM = decode(existing.data?.[OLM_CA_KEY])!;
    } else {
      ca ??= generateCA(expiration, undefined, now);
      const serving = createSignedServingPair(expiration, ca, hosts, undefined, now);
      caPEM = ca.certPEM;
      const body: SecretObj = {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'kubernetes.io/tls',
        metadata: { name: secret, namespace, labels: { ...MANAGED }, annotations: { [CA_HASH_ANNOTATION]: pemSHA256(caPEM) } },
        data: { 'tls.crt': Buffer.from(serving.certPEM).toString('base64'), 'tls.key': Buffer.from(serving.keyPEM).toString('base64'), [OLM_CA_KEY]: Buffer.from(caPEM).toString('base64') },
      };
      await createOrReplace(client, body, csv, signal);
      rotated = true;
    }
    await createOrReplace(
      client,
      { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: secret, namespace, labels: { ...MANAGED } }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: [secret] }] },
      csv,
      signal,
    );
    const podSpec = ((depSpec['template'] ??= {}) as Obj)['spec'] as Obj;
    if (!podSpec['serviceAccountName']) podSpec['serviceAccountName'] = 'default';
    const subject = { kind: 'ServiceAccount', apiGroup: '', name: podSpec['serviceAccountName'] as string, namespace };
    await createOrReplace(
      client,
      { apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: secret, namespace, labels: { ...MANAGED } }, subjects: [subject], roleRef: { apiGroup: RBAC, kind: 'Role', name: secret } },
      csv,
      signal,
    );
    await client.apply(
      {
        apiVersion: `${RBAC}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: { name: `${service}-system:auth-delegator`, labels: { ...MANAGED, ...csvOwnerLabels(csv) } },
        subjects: [subject],
        roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'system:auth-delegator' },
      },
      { fieldManager: FIELD_MANAGER, force: true, signal },
    );
    await client.apply(
      {
        apiVersion: `${RBAC}/v1`,
        kind: 'RoleBinding',
        metadata: { name: `${service}-auth-reader`, namespace: 'kube-system', labels: { ...MANAGED } },
        subjects: [subject],
        roleRef: { apiGroup: RBAC, kind: 'Role', name: 'extension-apiserver-authentication-reader' },
      },
      { fieldManager: FIELD_MANAGER, force: true, signal },
    );
    specs.set(d.name, withCertVolumes(depSpec, secret, pemSHA256(caPEM)));
    caPEMs.set(d.name, caPEM);
  }
  return { specs, caPEM: caPEMs, ...(rotated && { rotateAt: new Date(expiration.getTime() - CERT_MIN_FRESH_MS) }) };
}

/** The OperatorGroup's namespace selector for webhooks (upstream's NamespaceLabelSelector). */
export function groupNamespaceSelector(og: OperatorGroup): LabelSelector | undefined {
  if ((og.spec?.targetNamespaces ?? []).length === 0) return og.spec?.selector;
  if (!og.metadata.uid) throw new Error('Missing UID');
  return { matchLabels: { [`${OperatorGroupLabelPrefix}${og.metadata.uid}`]: '' } };
}

/** A webhook of a configuration (upstream's GetValidatingWebhook / GetMutatingWebhook). */
function webhookEntry(w: WebhookDescription, namespace: string, selector: LabelSelector | undefined, caPEM: string): Obj {
  const hook: Obj = { name: w.generateName };
  if (w.rules) hook['rules'] = w.rules;
  if (w.failurePolicy !== undefined) hook['failurePolicy'] = w.failurePolicy;
  if (w.matchPolicy !== undefined) hook['matchPolicy'] = w.matchPolicy;
  if (selector) hook['namespaceSelector'] = selector;
  if (w.objectSelector) hook['objectSelector'] = w.objectSelector;
  hook['sideEffects'] = w.sideEffects;
  if (w.timeoutSeconds !== undefined) hook['timeoutSeconds'] = w.timeoutSeconds;
  hook['admissionReviewVersions'] = w.admissionReviewVersions;
  hook['clientConfig'] = {
    service: { name: `${(w.deploymentName ?? '').replaceAll('.', '-')}-service`, namespace, ...(w.webhookPath !== undefined && { path: w.webhookPath }), port: w.containerPort ?? 443 },
    caBundle: Buffer.from(caPEM).toString('base64'),
  };
  if (w.type === 'MutatingAdmissionWebhook' && w.reinvocationPolicy !== undefined) hook['reinvocationPolicy'] = w.reinvocationPolicy;
  return hook;
}

const webhookLabels = (csv: ClusterServiceVersion, w: WebhookDescription): Record<string, string> => ({
  ...csvOwnerLabels(csv),
  [WEBHOOK_DESC_LABEL]: w.generateName,
  [WEBHOOK_HASH_LABEL]: deepHash(w),
  ...MANAGED,
});

/** Only AllNamespaces supported (upstream's isSingletonOperator). */
const allNamespacesOnly = (csv: ClusterServiceVersion): boolean => (csv.spec.installModes ?? []).every((m) => (m.type === 'AllNamespaces') === !!m.supported);

/** upstream's createOrUpdateWebhook for every webhook description. */
export async function installWebhooks(client: KubeClient, csv: ClusterServiceVersion, og: OperatorGroup, caPEMs: ReadonlyMap<string, string>, signal: AbortSignal): Promise<void> {
  const namespace = csv.metadata.namespace ?? '';
  for (const w of webhooksOf(csv)) {
    const caPEM = caPEMs.get(w.deploymentName ?? '') ?? '';
    const kind = kindFor(w.type);
    if (kind) {
      const selector = groupNamespaceSelector(og);
      const existing = await client.list({ apiVersion: ADMISSION, kind }, { labelSelector: { matchLabels: { ...csvOwnerLabels(csv), [WEBHOOK_DESC_LABEL]: w.generateName } }, signal });
      const hook = webhookEntry(w, namespace, selector, caPEM);
      if (existing.items.length === 0) {
        await client.create({ apiVersion: ADMISSION, kind, metadata: { generateName: `${w.generateName}-`, labels: webhookLabels(csv, w) }, webhooks: [hook] }, { signal });
      }
      for (const cfg of existing.items) {
        await client.update({ ...cfg, apiVersion: ADMISSION, kind, metadata: { ...cfg.metadata, labels: { ...(cfg.metadata.labels ?? {}), ...webhookLabels(csv, w) } }, webhooks: [hook] }, { signal });
      }
      continue;
    }
    if (w.type !== 'ConversionWebhook') continue;
    if (!allNamespacesOnly(csv)) throw new Error('unable to manage conversion webhook: CSVs with conversion webhooks must support only AllNamespaces');
    if ((w.conversionCRDs ?? []).length === 0) throw new Error('unable to manager conversion webhook: conversion webhook must have at least one CRD specified');
    for (const name of w.conversionCRDs ?? []) {
      await retryOnConflict(
        async () => {
          let crd: KubeObject & { spec: Obj };
          try {
            crd = await client.get({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name }, { signal });
          } catch (err) {
            throw new Error(`unable to get CRD ${name} specified in Conversion Webhook: ${errorMessage(err)}`, { cause: err });
          }
          if (!(csv.spec.customresourcedefinitions?.owned ?? []).some((o) => o.name === name)) throw new Error(`csv ${csv.metadata.name ?? ''} does not own CRD ${name}`);
          if (crd.spec['preserveUnknownFields'] === true) throw new Error('crd.Spec.PreserveUnknownFields must be false to let API Server call webhook to do the conversion');
          crd.spec['conversion'] = {
            strategy: 'Webhook',
            webhook: {
              clientConfig: {
                service: { namespace, name: `${(w.deploymentName ?? '').replaceAll('.', '-')}-service`, path: w.webhookPath ?? '/', port: w.containerPort ?? 443 },
                caBundle: Buffer.from(caPEM).toString('base64'),
              },
              conversionReviewVersions: w.admissionReviewVersions,
            },
          };
          try {
            await client.update(crd, { signal });
          } catch (err) {
            if ((err as { reason?: string }).reason === 'Conflict') throw err;
            throw new Error(`Error updating CRD with Conversion info: ${errorMessage(err)}`, { cause: err });
          }
        },
        { signal },
      );
    }
  }
}

/** upstream's cleanUpRemovedWebhooks + areWebhooksAvailable: every description has its configuration (or conversion). */
export async function webhooksAvailable(client: KubeClient, csv: ClusterServiceVersion, signal: AbortSignal): Promise<boolean> {
  const names = new Set(webhooksOf(csv).map((w) => w.generateName));
  for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
    const owned = await client.list({ apiVersion: ADMISSION, kind }, { labelSelector: { matchLabels: csvOwnerLabels(csv) }, signal });
    for (const cfg of owned.items) {
      const desc = cfg.metadata.labels?.[WEBHOOK_DESC_LABEL];
      if (desc === undefined) throw new Error(`${kind.charAt(0).toLowerCase()}${kind.slice(1)} ${cfg.metadata.name ?? ''} does not have WebhookDesc key`);
      if (!names.has(desc)) {
        await ignoreNotFound(client.delete({ apiVersion: ADMISSION, kind, name: cfg.metadata.name ?? '' }, { signal }));
      }
    }
  }
  for (const w of webhooksOf(csv)) {
    const kind = kindFor(w.type);
    if (kind) {
      const list = await client.list({ apiVersion: ADMISSION, kind }, { labelSelector: { matchLabels: { ...csvOwnerLabels(csv), [WEBHOOK_DESC_LABEL]: w.generateName, [WEBHOOK_HASH_LABEL]: deepHash(w) } }, signal });
      if (list.items.length === 0) return false;
      continue;
    }
    for (const name of w.conversionCRDs ?? []) {
      const crd = await client.get<KubeObject & { spec: { conversion?: { strategy?: string; webhook?: { clientConfig?: { caBundle?: string } } } } }>({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name }, { signal });
      const conv = crd.spec.conversion;
      if (conv?.strategy !== 'Webhook' || !conv.webhook?.clientConfig?.caBundle) throw new Error('conversionWebhook not ready');
    }
  }
  return true;
}

/** The CA a webhook was configured with (upstream's getWebhookCABundle), PEM. */
async function webhookCABundle(client: KubeClient, csv: ClusterServiceVersion, w: WebhookDescription, signal: AbortSignal): Promise<string> {
  const kind = kindFor(w.type);
  if (kind) {
    const list = await client.list<KubeObject & { webhooks?: { clientConfig?: { caBundle?: string } }[] }>(
      { apiVersion: ADMISSION, kind },
      { labelSelector: { matchLabels: { ...csvOwnerLabels(csv), [WEBHOOK_DESC_LABEL]: w.generateName } }, signal },
    ).catch((err: unknown) => {
      throw new Error(`could not retrieve generated ${kind}: ${errorMessage(err)}`, { cause: err });
    });
    const ca = list.items[0]?.webhooks?.[0]?.clientConfig?.caBundle;
    if (ca) return Buffer.from(ca, 'base64').toString('utf8');
  } else {
    for (const name of w.conversionCRDs ?? []) {
      const crd = await ignoreNotFound(client.get<KubeObject & { spec: { conversion?: { webhook?: { clientConfig?: { caBundle?: string } } } } }>({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name }, { signal }));
      const ca = crd?.spec.conversion?.webhook?.clientConfig?.caBundle;
      if (ca) return Buffer.from(ca, 'base64').toString('utf8');
    }
  }
  throw new Error('unable to find CA');
}

/**
 * upstream's updateDeploymentSpecsWithAPIServiceData for webhooks: the specs as they were installed (the certificate
 * mounted, the CA's hash), so their hashes compare; throws when the CA or the Secret cannot be found.
 */
export async function installedSpecs(client: KubeClient, csv: ClusterServiceVersion, signal: AbortSignal): Promise<Map<string, Obj>> {
  const specs = new Map<string, Obj>();
  const namespace = csv.metadata.namespace ?? '';
  for (const w of webhooksOf(csv)) {
    let caPEM: string;
    try {
      caPEM = await webhookCABundle(client, csv, w, signal);
    } catch (err) {
      throw new Error(`could not retrieve caBundle for WebhookDescription ${w.generateName}: ${errorMessage(err)}`, { cause: err });
    }
    const d = (csv.spec.install.spec?.deployments ?? []).find((x) => x.name === w.deploymentName);
    if (!d) throw new Error(`strategyDetailsDeployment is missing deployment ${w.deploymentName ?? ''} for WebhookDescription ${w.generateName}`);
    const spec = structuredClone(specs.get(d.name) ?? d.spec) as Obj;
    const podSpec = ((spec['template'] ??= {}) as Obj)['spec'] as Obj;
    if (!podSpec['serviceAccountName']) podSpec['serviceAccountName'] = 'default';
    const secret = secretName(serviceName(d.name));
    if (!(await ignoreNotFound(client.get({ apiVersion: 'v1', kind: 'Secret', name: secret, namespace }, { signal })))) throw new Error(`unable to get secret ${secret}`);
    specs.set(d.name, withCertVolumes(spec, secret, pemSHA256(caPEM)));
  }
  return specs;
}

/** upstream's ShouldRotateCerts: a webhook deployment's Secret is missing or its certificate should rotate. */
export async function shouldRotateCerts(client: KubeClient, csv: ClusterServiceVersion, signal: AbortSignal, now = realClock.date()): Promise<boolean> {
  const namespace = csv.metadata.namespace ?? '';
  const withCerts = new Set(webhooksOf(csv).map((w) => w.deploymentName ?? ''));
  for (const d of csv.spec.install.spec?.deployments ?? []) {
    if (!withCerts.has(d.name)) continue;
    const service = serviceName(d.name);
    const secret = await ignoreNotFound(client.get<SecretObj>({ apiVersion: 'v1', kind: 'Secret', name: secretName(service), namespace }, { signal }));
    if (!secret) return true;
    if (shouldRotate({ caPEM: decode(secret.data?.[OLM_CA_KEY]), certPEM: decode(secret.data?.['tls.crt']) }, hostsFor(service, namespace), now)) return true;
  }
  return false;
}

