// The package server's serving certificate, as upstream OLM keeps the one of its packageserver APIService
// (install/certresources.go, install/apiservice.go): a CA and a serving certificate for the Service's names
// (`<service>.<namespace>`, `….svc`, `….svc.cluster.local`), both valid 730 days, in the Secret `<service>-cert`
// (kubernetes.io/tls: tls.crt, tls.key, and the CA in olmCAKey; annotation olmcahash, label olm.managed=true),
// re-issued a day before either expires or when it no longer fits; the CA is the APIService's spec.caBundle.
//
// The leader's controller (one key) ensures the Secret and the caBundle from the informers' caches, level-triggered:
// a deleted or edited Secret, or an APIService created or changed, brings it back; otherwise it looks again at the
// rotation time (at most an hour later). Every replica serves the Secret's pair, taken from its informer when it
// changes (`servingPair`), without a restart.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { Controller, type Reconciler, type Result } from '../../shared/controller/index.ts';
import type { KubeClient } from '../../shared/kube/index.ts';
import { realClock, tryOr, type Clock, type Logger } from '../../shared/toolkit/index.ts';
import {
  CA_HASH_ANNOTATION,
  CERT_MIN_FRESH_MS,
  CERT_VALID_FOR_MS,
  OLM_CA_KEY,
  certSecretName,
  createSignedServingPair,
  generateCA,
  hostsFor,
  pemSHA256,
} from '../csv/index.ts';

/** The APIService of packages.operators.coreos.com/v1 (upstream's name). */
export const PACKAGES_APISERVICE = 'v1.packages.operators.coreos.com';
/** The controller looks again at least this often (the rotation time may be two years away). */
export const RECHECK_MS = 3600_000;

export interface ServiceRef {
  readonly namespace: string;
  readonly name: string;
}

export interface TLSSecret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

export interface APIService extends KubeObject {
  spec?: { caBundle?: string; insecureSkipTLSVerify?: boolean; service?: { namespace?: string; name?: string; port?: number } };
}

/** The Secret holding the package server's certificate: upstream's SecretName(serviceName). */
export const servingSecretName = (service: ServiceRef): string => certSecretName(service.name);
/** The names the certificate is for: upstream's HostnamesForService. */
export const servingHosts = (service: ServiceRef): string[] => hostsFor(service.name, service.namespace);

/** A Secret's PEMs (base64-decoded data); undefined for what is missing. */
export function secretPEMs(secret: TLSSecret | undefined): { caPEM?: string; certPEM?: string; keyPEM?: string } {
  const decode = (k: string): string | undefined => {
    const v = secret?.data?.[k];
    return v === undefined || v === '' ? undefined : Buffer.from(v, 'base64').toString('utf8');
  };
  const [caPEM, certPEM, keyPEM] = [decode(OLM_CA_KEY), decode('tls.crt'), decode('tls.key')];
  return { ...(caPEM && { caPEM }), ...(certPEM && { certPEM }), ...(keyPEM && { keyPEM }) };
}

export type CertDecision =
  | { readonly issue: true; readonly reason: string }
  | { readonly issue: false; readonly caPEM: string; readonly certPEM: string; readonly keyPEM: string; readonly rotateAt: Date };

/**
 * Whether the Secret's certificate must be (re)issued (upstream's shouldRotateCerts: a CA and certificate both present
 * and readable, both active and more than a day from expiry, the certificate signed by the CA for every host; ours
 * also: the key is the certificate's), and if not, when it will be: a day before the earlier expiry.
 */
export function certDecision(secret: TLSSecret | undefined, hosts: readonly string[], now: Date): CertDecision {
  if (!secret) return { issue: true, reason: 'no Secret' };
  const { caPEM, certPEM, keyPEM } = secretPEMs(secret);
  const missing = [!caPEM && OLM_CA_KEY, !certPEM && 'tls.crt', !keyPEM && 'tls.key'].filter((k): k is string => !!k);
  if (missing.length > 0) return { issue: true, reason: `the Secret has no ${missing.join(', ')}` };
  let ca: X509Certificate;
  let cert: X509Certificate;
  try {
    ca = new X509Certificate(caPEM!);
    cert = new X509Certificate(certPEM!);
  } catch (err) {
    return { issue: true, reason: `unreadable certificate: ${(err as Error).message}` };
  }
  try {
    if (!cert.checkPrivateKey(createPrivateKey(keyPEM!))) return { issue: true, reason: 'tls.key is not the key of tls.crt' };
  } catch (err) {
    return { issue: true, reason: `unreadable key: ${(err as Error).message}` };
  }
  const t = now.getTime();
  for (const [what, c] of [['CA', ca], ['certificate', cert]] as const) {
    const from = Date.parse(c.validFrom);
    const to = Date.parse(c.validTo);
    if (t < from) return { issue: true, reason: `the ${what} is not valid before ${new Date(from).toISOString()}` };
    if (t > to - CERT_MIN_FRESH_MS) return { issue: true, reason: `the ${what} expires at ${new Date(to).toISOString()}, within a day` };
  }
  if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return { issue: true, reason: 'the certificate is not signed by the CA' };
  const unnamed = hosts.filter((h) => cert.checkHost(h) === undefined);
  if (unnamed.length > 0) return { issue: true, reason: `the certificate is not for ${unnamed.join(', ')}` };
  const rotateAt = new Date(Math.min(Date.parse(ca.validTo), Date.parse(cert.validTo)) - CERT_MIN_FRESH_MS);
  return { issue: false, caPEM: caPEM!, certPEM: certPEM!, keyPEM: keyPEM!, rotateAt };
}

/** A new CA and serving certificate for `service`, as the Secret upstream writes (without its resourceVersion). */
export function issueSecret(service: ServiceRef, now: Date): TLSSecret {
  const expiration = new Date(now.getTime() + CERT_VALID_FOR_MS);
  const ca = generateCA(expiration, undefined, now);
  const serving = createSignedServingPair(expiration, ca, servingHosts(service), undefined, now);
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/tls',
    metadata: {
      name: servingSecretName(service),
      namespace: service.namespace,
      labels: { 'olm.managed': 'true' },
      annotations: { [CA_HASH_ANNOTATION]: pemSHA256(ca.certPEM) },
    },
    data: { 'tls.crt': b64(serving.certPEM), 'tls.key': b64(serving.keyPEM), [OLM_CA_KEY]: b64(ca.certPEM) },
  };
}

/** The pair a replica serves from the Secret, or undefined when it has none that loads. */
export function servingPair(secret: TLSSecret | undefined): { certPEM: string; keyPEM: string } | undefined {
  const { certPEM, keyPEM } = secretPEMs(secret);
  if (!certPEM || !keyPEM) return undefined;
  if (!tryOr(() => new X509Certificate(certPEM).checkPrivateKey(createPrivateKey(keyPEM)), false)) return undefined;
  return { certPEM, keyPEM };
}

type Watched<T> = { get(key: string): T | undefined; onEvent(cb: (type: 'add' | 'update' | 'delete', obj: T) => void): () => void };

export interface CertificateControllerOptions {
  readonly client: KubeClient;
  readonly service: ServiceRef;
  /** The informers: the Secret (by name, in the Service's namespace) and the APIService (by name). */
  readonly secrets: Watched<TLSSecret>;
  readonly apiServices: Watched<APIService>;
  readonly logger: Logger;
  /** The certificates' validity and rotation; default the toolkit's realClock. */
  readonly clock?: Clock;
}

/**
 * The controller: the leader's reconcile of the Secret and the APIService's caBundle, one key (the Secret's), which the
 * Secret's and the APIService's events enqueue.
 */
export function certificateController(o: CertificateControllerOptions): Controller {
  const { client, service, logger } = o;
  const name = servingSecretName(service);
  const key = `${service.namespace}/${name}`;
  const reconciler: Reconciler = {
    async reconcile(_key, signal): Promise<Result> {
      const now = (o.clock ?? realClock).date();
      const existing = o.secrets.get(key);
      const decision = certDecision(existing, servingHosts(service), now);
      let caPEM: string;
      let rotateAt: Date;
      if (decision.issue) {
        const secret = issueSecret(service, now);
        // A stale cache fails the update with a conflict (or the create with AlreadyExists): the controller retries.
        if (existing) await client.update({ ...secret, metadata: { ...existing.metadata, ...secret.metadata, resourceVersion: existing.metadata.resourceVersion } }, { signal });
        else await client.create(secret, { signal });
        logger.info('issued the package server certificate', { secret: key, reason: decision.reason });
        caPEM = secretPEMs(secret).caPEM!;
        rotateAt = new Date(now.getTime() + CERT_VALID_FOR_MS - CERT_MIN_FRESH_MS);
      } else {
        caPEM = decision.caPEM;
        rotateAt = decision.rotateAt;
      }
      const caBundle = Buffer.from(caPEM).toString('base64');
      const apiService = o.apiServices.get(PACKAGES_APISERVICE);
      // Without the APIService there is nothing to trust the CA: its creation brings this back.
      if (apiService && (apiService.spec?.caBundle !== caBundle || apiService.spec.insecureSkipTLSVerify)) {
        // insecureSkipTLSVerify goes: the API server refuses it beside a caBundle.
        await client.patch({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: PACKAGES_APISERVICE }, 'merge', { spec: { caBundle, insecureSkipTLSVerify: null } }, { signal });
        logger.info('set the APIService caBundle', { apiService: PACKAGES_APISERVICE });
      }
      return { requeueAfterMs: Math.max(1000, Math.min(RECHECK_MS, rotateAt.getTime() - now.getTime())) };
    },
  };
  const controller = new Controller({ name: 'packageserver-certificate', reconciler, logger });
  controller.watch(o.secrets, () => key);
  controller.watch(o.apiServices, () => key);
  // Once at the start, whether or not either object exists; then events and the requeue after each pass.
  controller.enqueue(key);
  return controller;
}
