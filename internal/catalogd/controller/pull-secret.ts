// The global pull secret (`--global-pull-secret <namespace>/<name>`): a `kubernetes.io/dockerconfigjson`
// (or legacy `dockercfg`) Secret, watched by an informer, whose auths are the registry
// credentials of every pull. Changes apply to the next pull; a missing Secret means anonymous
// pulls, an unreadable one is logged (once per version) and ignored.
import type { KubeObject } from '../../../api/meta/v1.ts';
import { credentialsFromSecretData, readCertificateDir, RegistryClient, type CredentialProvider, type RegistryClientOptions } from '../../shared/image/index.ts';
import { Informer, stripManagedFields, type KubeClient } from '../../shared/kube/index.ts';
import type { Logger } from '../../shared/observability/index.ts';

export interface Secret extends KubeObject {
  data?: Record<string, string>;
  type?: string;
}

export interface GlobalPullSecret {
  readonly informer: Informer<Secret>;
  readonly credentials: CredentialProvider;
}

/** `<namespace>/<name>` → its parts; throws on anything else. */
export function parseSecretRef(text: string): { namespace: string; name: string } {
  const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)$/.exec(text);
  if (!m) throw new Error(`must be <namespace>/<name>, got ${JSON.stringify(text)}`);
  return { namespace: m[1]!, name: m[3]! };
}

export function globalPullSecret(options: { client: KubeClient; namespace: string; name: string; logger?: Logger }): GlobalPullSecret {
  const { namespace, name, logger } = options;
  const informer = new Informer<Secret>({
    client: options.client,
    apiVersion: 'v1',
    kind: 'Secret',
    namespace,
    fieldSelector: { 'metadata.name': name },
    transform: stripManagedFields,
    ...(logger && { logger: logger.child({ informer: 'global-pull-secret' }) }),
  });
  let parsedVersion: string | undefined;
  let parsed: CredentialProvider | undefined;
  const current = (): CredentialProvider | undefined => {
    const secret = informer.get(`${namespace}/${name}`);
    if (!secret) return undefined;
    const version = secret.metadata.resourceVersion ?? '';
    if (version !== parsedVersion) {
      parsedVersion = version;
      try {
        parsed = credentialsFromSecretData(secret.data ?? {}, `global pull secret ${namespace}/${name}`);
      } catch (err) {
        parsed = undefined;
        logger?.error('ignoring the global pull secret', { err });
      }
    }
    return parsed;
  };
  return { informer, credentials: { lookup: (domain, path) => current()?.lookup(domain, path) } };
}

/** What both controllers need to pull images: the flags' registry settings, ready to use. */
export interface RegistryAccessOptions {
  readonly client: KubeClient;
  readonly logger: Logger;
  readonly insecureRegistries: readonly string[];
  readonly globalPullSecret?: { readonly namespace: string; readonly name: string };
  /** Directory of extra CA certificates (PEM). */
  readonly pullCasDir?: string;
  readonly registry?: Pick<RegistryClientOptions, 'retries' | 'retryDelayMs' | 'headersTimeoutMs' | 'bodyTimeoutMs'>;
}

/** A registry client with the global pull secret's credentials (its informer to start, if any) and extra CAs. */
export async function registryAccess(o: RegistryAccessOptions): Promise<{ readonly registry: RegistryClient; readonly informer?: Informer<Secret> }> {
  const secret = o.globalPullSecret && globalPullSecret({ client: o.client, ...o.globalPullSecret, logger: o.logger });
  const registry = new RegistryClient({
    insecureRegistries: o.insecureRegistries,
    ...(secret && { credentials: secret.credentials }),
    ...(o.pullCasDir && { ca: await readCertificateDir(o.pullCasDir) }),
    ...o.registry,
    logger: o.logger.child({ component: 'registry' }),
  });
  return { registry, ...(secret && { informer: secret.informer }) };
}
