// operator-controller's options: what its flags set (cmd/operator-controller/flags.ts) plus knobs
// for tests and embedding.
import type { RateLimiter } from '../shared/controller/index.ts';
import type { RegistriesConf, RegistryClientOptions } from '../shared/image/index.ts';
import type { TLSProfile } from '../shared/tlsprofile/index.ts';

/** The certificate providers the renderer knows (render/certproviders.ts). */
export type CertProviderName = 'cert-manager' | 'openshift-serviceca';

export interface OperatorControllerOptions {
  /** `--cache-path`: bundle image cache (`unpack/`). */
  readonly cachePath: string;
  /** `--system-namespace`: where revision records live (operator-controller's own namespace). */
  readonly systemNamespace: string;
  /** `--catalogd-cas-dir`: CA certificates (PEM) trusted for catalogd's HTTPS content server. */
  readonly catalogdCasDir?: string;
  /** `--tls-profile` etc.: the TLS profile of the client for catalogd's content server (default intermediate). */
  readonly tlsProfile?: TLSProfile;
  /** `--pull-cas-dir`: CA certificates (PEM) trusted for registries. */
  readonly pullCasDir?: string;
  /** `--global-pull-secret`: `<namespace>/<name>` of a dockerconfigjson Secret for every pull. */
  readonly globalPullSecret?: { readonly namespace: string; readonly name: string };
  /** `--insecure-registries`: host[:port] reached over plain HTTP. */
  readonly insecureRegistries: readonly string[];
  /** `--registries-conf` (or its default): registries.conf mirrors, location rewrites, insecure and blocked registries. */
  readonly registriesConf?: RegistriesConf;
  /**
   * The certificate provider of bundles with webhooks, from `--feature-gates` as upstream's getCertificateProvider:
   * WebhookProviderCertManager → `cert-manager` (the default), else WebhookProviderOpenshiftServiceCA →
   * `openshift-serviceca`, else `null` (webhook bundles are refused). Absent: `cert-manager`.
   */
  readonly certProvider?: CertProviderName | null;
  /**
   * `--feature-gates=BoxcutterRuntime=true`: revisions are ClusterObjectSets rolled out by their own controller
   * (objectset/), as upstream's experimental runtime; off: revision records in Secrets, applied by the extension's
   * controller (applier/).
   */
  readonly boxcutterRuntime?: boolean;
  /**
   * `--feature-gates=ServiceAccountInstalls=true` (ours, off by default; upstream v1.11 ignores the field): a
   * ClusterExtension's `spec.serviceAccount.name` is honoured — the account must exist, a preflight lists every
   * permission it lacks, and every request about the extension's objects impersonates it. Off or absent: as upstream,
   * the field is ignored (logged at info when set) and every extension installs as operator-controller itself.
   */
  readonly serviceAccountInstalls?: boolean;
  /**
   * `--feature-gates=SingleOwnNamespaceInstallSupport=true` (upstream's default: off). On: bundles that do not support
   * AllNamespaces install in OwnNamespace/SingleNamespace mode, and the bundle configuration is validated even when the
   * extension has no `spec.config` (a required watchNamespace is reported missing). Off: such bundles are refused
   * (`unsupported bundle: bundle does not support AllNamespaces install mode`) and the configuration is read only
   * when `spec.config` is set.
   */
  readonly singleOwnNamespaceInstallSupport?: boolean;
  /**
   * `--feature-gates=DeploymentConfig=true` (default off): `spec.config.inline.deploymentConfig` customises the
   * bundle's Deployments. Off: the key is not part of the configuration schema (`unknown field "deploymentConfig"`).
   */
  readonly deploymentConfig?: boolean;
  /**
   * `--feature-gates=BundleReleaseSupport=true` (default off): an explicit `release` of a bundle's `olm.package`
   * property counts, and `status.install.bundle.release` is reported apart from the version. Off: a release is
   * read from (and reported in) the version's build metadata, as registry+v1 has it.
   */
  readonly bundleReleaseSupport?: boolean;

  // Knobs for tests and embedding; no flags.
  /** Re-run every extension this often (a safety net: drift of installed objects is watched); default 10 minutes. */
  readonly resyncMs?: number;
  readonly registry?: Pick<RegistryClientOptions, 'retries' | 'retryDelayMs' | 'headersTimeoutMs' | 'bodyTimeoutMs'>;
  readonly rateLimiter?: () => RateLimiter<string>;
}
