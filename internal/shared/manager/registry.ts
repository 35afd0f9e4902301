// How the controllers reach registries: the flags they share (`--global-pull-secret`,
// `--pull-cas-dir`, `--insecure-registries`, `--registries-conf`), and a registry client built from them.
//
// `--registries-conf` is containers-registries.conf(5) (mirrors, location rewrites, insecure and blocked
// registries; `../image/registries-conf.ts`), read with its `registries.conf.d/` drop-ins while the flags are
// read: a file that cannot be used stops the binary with one line naming the file and line.
//
// The global pull secret is a `kubernetes.io/dockerconfigjson` (or legacy `dockercfg`) Secret,
// watched by an informer, whose auths are the registry credentials of every pull. Changes apply to
// the next pull; a missing Secret means anonymous pulls, an unreadable one is logged (once per
// version) and ignored.
import {
  credentialsFromSecretData,
  loadRegistriesConf,
  readCertificateDir,
  RegistryClient,
  SYSTEM_REGISTRIES_CONF,
  type CredentialProvider,
  type RegistriesConf,
  watchCaPool,
  type CaPoolWatcher,
  type RegistryClientOptions,
} from '../image/index.ts';
import { Informer, stripManagedFields, type KubeClient, type Secret } from '../kube/index.ts';
import type { Logger } from '../observability/index.ts';
import { UsageError, type Flag } from './options.ts';

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
  /**
   * Watch `pullCasDir` and the system trust store's `SSL_CERT_DIR` / `SSL_CERT_FILE` as upstream's pull-ca-pool
   * CertPoolWatcher (operator-controller and catalogd): the directory reloaded on change, the process ended on a
   * change to the system store. Off (classic OLM): the directory is read once.
   */
  readonly watchPullCas?: boolean;
  /** registries.conf and its drop-ins, when they configure any registry. */
  readonly registriesConf?: RegistriesConf;
  readonly registry?: Pick<RegistryClientOptions, 'retries' | 'retryDelayMs' | 'headersTimeoutMs' | 'bodyTimeoutMs'>;
}

/**
 * A registry client with the global pull secret's credentials (its informer to start, if any) and extra CAs (with
 * `watchPullCas`, the watcher to stop at the end).
 */
export async function registryAccess(
  o: RegistryAccessOptions,
): Promise<{ readonly registry: RegistryClient; readonly informer?: Informer<Secret>; readonly caPool?: CaPoolWatcher }> {
  const secret = o.globalPullSecret && globalPullSecret({ client: o.client, ...o.globalPullSecret, logger: o.logger });
  const caPool = o.watchPullCas ? await watchCaPool({ ...(o.pullCasDir && { dir: o.pullCasDir }), logger: o.logger.child({ component: 'pull-ca-pool' }) }) : undefined;
  const registry = new RegistryClient({
    insecureRegistries: o.insecureRegistries,
    ...(secret && { credentials: secret.credentials }),
    ...(caPool ? { ca: caPool } : o.pullCasDir && { ca: await readCertificateDir(o.pullCasDir) }),
    ...(o.registriesConf && { registriesConf: o.registriesConf }),
    ...o.registry,
    logger: o.logger.child({ component: 'registry' }),
  });
  if (o.registriesConf) {
    o.logger.info('registries configuration', { files: o.registriesConf.files, prefixes: o.registriesConf.registries.map((r) => r.prefix) });
  }
  return { registry, ...(secret && { informer: secret.informer }), ...(caPool && { caPool }) };
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
  'registries-conf': {
    type: 'string',
    help:
      'containers-registries.conf(5) file for pulls (mirrors, location rewrites, insecure and blocked registries), with the ' +
      `drop-ins of registries.conf.d/ beside it (default: env CONTAINERS_REGISTRIES_CONF, else ${SYSTEM_REGISTRIES_CONF} if it exists; "" for none)`,
  },
} as const satisfies Record<string, Flag>;

export type RegistryFlagValues = Record<keyof typeof registryFlags, string | boolean | undefined>;
export type RegistryFlagOptions = Pick<RegistryAccessOptions, 'insecureRegistries' | 'globalPullSecret' | 'pullCasDir' | 'registriesConf'>;

/** Where `--registries-conf` points when it is not given: `$CONTAINERS_REGISTRIES_CONF` (must exist), else the system file (may be missing). */
export interface RegistriesConfDefaults {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly systemFile?: string;
}

/**
 * The registry flags' values as options; a bad value is a UsageError naming `<binary>: --<flag>`. Reads the
 * registries.conf files (see `registriesConfFile`).
 */
export function registryOptions(binary: string, values: RegistryFlagValues, defaults: RegistriesConfDefaults = {}): RegistryFlagOptions {
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
  const conf = registriesConfFile(values['registries-conf'], defaults);
  let registriesConf: RegistriesConf | undefined;
  if (conf.file !== '') {
    try {
      registriesConf = loadRegistriesConf(conf.file, { required: conf.required });
    } catch (err) {
      throw new UsageError(`${binary}: --registries-conf${conf.from ? ` (${conf.from})` : ''}: ${(err as Error).message}`);
    }
  }
  return {
    insecureRegistries,
    ...(globalPullSecret && { globalPullSecret }),
    ...(pullCasDir !== '' && { pullCasDir }),
    ...(registriesConf && !registriesConf.empty && { registriesConf }),
  };
}

/**
 * The registries.conf to read: the flag's value (`""`: none), else `$CONTAINERS_REGISTRIES_CONF`, both required
 * to exist; else the system file, read only when it exists (its drop-in directory too, as containers/image does).
 */
export function registriesConfFile(
  flag: string | boolean | undefined,
  defaults: RegistriesConfDefaults = {},
): { file: string; required: boolean; from?: string } {
  if (typeof flag === 'string') return { file: flag.trim(), required: true };
  const fromEnv = (defaults.env ?? process.env).CONTAINERS_REGISTRIES_CONF?.trim();
  if (fromEnv) return { file: fromEnv, required: true, from: 'env CONTAINERS_REGISTRIES_CONF' };
  return { file: defaults.systemFile ?? SYSTEM_REGISTRIES_CONF, required: false };
}
