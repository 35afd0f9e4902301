// How both controllers reach registries: the flags they share (`--global-pull-secret`,
// `--pull-cas-dir`, `--insecure-registries`), and a registry client built from them.
//
// The global pull secret is a `kubernetes.io/dockerconfigjson` (or legacy `dockercfg`) Secret,
// watched by an informer, whose auths are the registry credentials of every pull. Changes apply to
// the next pull; a missing Secret means anonymous pulls, an unreadable one is logged (once per
// version) and ignored.
import type { KubeObject } from '../../../api/meta/v1.ts';
import { credentialsFromSecretData, readCertificateDir, RegistryClient, type CredentialProvider, type RegistryClientOptions } from '../image/index.ts';
import { Informer, stripManagedFields, type KubeClient } from '../kube/index.ts';
import type { Logger } from '../observability/index.ts';
import { UsageError, type Flag } from './options.ts';

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

/** The registry flags of both controllers. */
export const registryFlags = {
  'global-pull-secret': { type: 'string', help: '<namespace>/<name> of a dockerconfigjson Secret whose credentials every pull uses' },
  'pull-cas-dir': { type: 'string', help: 'directory of CA certificates (PEM) trusted for registries, besides the system ones' },
  'insecure-registries': {
    type: 'string',
    default: process.env.OLM_INSECURE_REGISTRIES ?? '',
    help: 'comma-separated host[:port] registries reached over plain HTTP (default: env OLM_INSECURE_REGISTRIES)',
  },
} as const satisfies Record<string, Flag>;

export type RegistryFlagValues = Record<keyof typeof registryFlags, string | boolean | undefined>;
export type RegistryFlagOptions = Pick<RegistryAccessOptions, 'insecureRegistries' | 'globalPullSecret' | 'pullCasDir'>;

/** The registry flags' values as options; a bad value is a UsageError naming `<binary>: --<flag>`. */
export function registryOptions(binary: string, values: RegistryFlagValues): RegistryFlagOptions {
  const str = (v: string | boolean | undefined): string => (typeof v === 'string' ? v.trim() : '');
  const secret = str(values['global-pull-secret']);
  let globalPullSecret: RegistryFlagOptions['globalPullSecret'];
  if (secret !== '') {
    try {
      globalPullSecret = parseSecretRef(secret);
    } catch (err) {
      throw new UsageError(`${binary}: --global-pull-secret: ${(err as Error).message}`);
    }
  }
  const insecureRegistries = str(values['insecure-registries'])
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const pullCasDir = str(values['pull-cas-dir']);
  return { insecureRegistries, ...(globalPullSecret && { globalPullSecret }), ...(pullCasDir !== '' && { pullCasDir }) };
}
