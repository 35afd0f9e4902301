// registry+v1 bundle directory → plain manifests, in upstream's order of steps:
// load → gating (RegistryV1ManifestProvider.Get) → bundle config → the 13 checks → target
// namespaces → generators. Every failure is a RenderError carrying all of upstream's messages.
import type { KubeObject } from '../../../api/meta/v1.ts';
import { ReasonInvalidConfiguration } from '../../../api/v1/index.ts';
import { TerminalError } from '../../shared/controller/index.ts';
import type { BundleRenderer, RenderedBundle, RenderRequest } from '../controller/index.ts';
import { CERT_PROVIDERS, type CertificateProvider } from './certproviders.ts';
import { isObject } from '../../shared/toolkit/index.ts';
import { bundleConfigSchema, configErrors, formatConfigErrors } from './config.ts';
import { GENERATORS, GenerateError } from './generators.ts';
import {
  loadRegistryV1,
  quantityError,
  supportedInstallModes,
  webhooksOf,
  type DeploymentConfig,
  type RegistryV1,
} from '../../shared/registryv1/index.ts';
import { goStringSlice as goList } from '../../shared/gocompat/index.ts';
import { defaultTargetNamespaces, targetNamespacesError } from './install-modes.ts';
import { validateBundle } from './validators.ts';

export type RenderErrorKind = 'UnsupportedBundle' | 'InvalidConfiguration' | 'InvalidBundle';

/** Why a bundle cannot be rendered: every problem, in upstream's joined text unless `message` words them. */
export class RenderError extends Error {
  override readonly name = 'RenderError';
  readonly kind: RenderErrorKind;
  constructor(kind: RenderErrorKind, messages: readonly string[], message = messages.join('\n')) {
    super(message);
    this.kind = kind;
  }
}

export interface RenderOptions {
  readonly installNamespace: string;
  /** The namespace to watch; undefined or `""` means the bundle's default (AllNamespaces when supported). */
  readonly watchNamespace?: string;
  /** The bundle configuration (`spec.config.inline`): `{watchNamespace?, deploymentConfig?}`. */
  readonly config?: unknown;
  /**
   * Certificate provider for bundles with webhooks. None by default, as upstream's renderer library: webhook
   * configurations, Services and Deployments render without CA injection, certificate volumes or issuer objects.
   */
  readonly certProvider?: CertificateProvider | 'cert-manager' | 'openshift-serviceca' | null;
  /**
   * The controller's install path (upstream's RegistryV1ManifestProvider) with its feature gates. Absent: the
   * renderer library, which takes any bundle its checks accept and reads the whole configuration schema.
   */
  readonly manifestProvider?: ManifestProviderGates;
}

/** What the controller's install path adds to the library, and the operator-controller feature gates it follows. */
export interface ManifestProviderGates {
  /**
   * SingleOwnNamespaceInstallSupport. Off: a bundle without AllNamespaces support is refused, and the configuration is
   * read only when one is given. On: such bundles install, and the configuration is always validated (an absent
   * one as `{}`, so a required watchNamespace is reported missing).
   */
  readonly singleOwnNamespaceInstallSupport: boolean;
  /** DeploymentConfig. Off: `deploymentConfig` is left out of the configuration schema (an unknown field). */
  readonly deploymentConfig: boolean;
}

/**
 * The bundle checks upstream's manifest provider makes before rendering, in its order. `provider` absent: the
 * library's (apiservices and install modes only; webhooks render without a provider).
 */
function gate(rv1: RegistryV1, certProvider: CertificateProvider | undefined, provider: ManifestProviderGates | undefined): void {
  if ((rv1.csv.spec?.apiservicedefinitions?.owned ?? []).length > 0) {
    throw new RenderError('UnsupportedBundle', ['unsupported bundle: apiServiceDefintions are not supported']);
  }
  // Upstream's process turns webhook support on exactly when it has a certificate provider, so without one the
  // message is the plain "not supported" (its "certificate provider is nil" variant cannot be reached).
  if (provider && webhooksOf(rv1.csv).length > 0 && !certProvider) {
    throw new RenderError('UnsupportedBundle', ['unsupported bundle: webhookDefinitions are not supported']);
  }
  const modes = supportedInstallModes(rv1.csv);
  if (provider && !provider.singleOwnNamespaceInstallSupport && !modes.includes('AllNamespaces')) {
    throw new RenderError('UnsupportedBundle', ['unsupported bundle: bundle does not support AllNamespaces install mode']);
  }
  if (!modes.some((m) => m === 'AllNamespaces' || m === 'SingleNamespace' || m === 'OwnNamespace')) {
    throw new RenderError('UnsupportedBundle', [
      'unsupported bundle: bundle must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes',
    ]);
  }
}

function resolveProvider(p: RenderOptions['certProvider']): CertificateProvider | undefined {
  if (p === null || p === undefined) return undefined;
  return typeof p === 'string' ? CERT_PROVIDERS[p] : p;
}

/** What decoding deploymentConfig into OLMv0's typed SubscriptionConfig rejects beyond the schema: quantities. */
function deploymentConfigTypeError(dc: DeploymentConfig | undefined): string | undefined {
  const quantities: unknown[] = [];
  for (const key of ['limits', 'requests']) {
    const list = (dc?.resources as Record<string, unknown> | null | undefined)?.[key];
    if (isObject(list)) quantities.push(...Object.values(list));
  }
  for (const v of dc?.volumes ?? []) {
    const emptyDir = (v as Record<string, unknown>)['emptyDir'];
    if (isObject(emptyDir) && emptyDir['sizeLimit'] != null) quantities.push(emptyDir['sizeLimit']);
  }
  return quantities.map((q) => quantityError(q)).find((err) => err !== undefined);
}

/** The configuration the provider renders with: `{}` when none is read (the bundle's default target namespaces). */
function bundleConfig(rv1: RegistryV1, opts: RenderOptions): { watchNamespace?: string; deploymentConfig?: DeploymentConfig } {
  const provider = opts.manifestProvider;
  const watchGiven = opts.watchNamespace !== undefined && opts.watchNamespace !== '';
  // Upstream reads the configuration when the gate is on or the extension has one; otherwise it is not even validated.
  if (provider && !provider.singleOwnNamespaceInstallSupport && opts.config === undefined && !watchGiven) return {};
  let value: unknown = opts.config ?? {};
  if (watchGiven && isObject(value)) value = { ...value, watchNamespace: opts.watchNamespace };
  const schema = bundleConfigSchema(rv1.csv, { deploymentConfig: provider?.deploymentConfig ?? true });
  const errs = configErrors(schema, value, opts.installNamespace);
  if (errs.length > 0) {
    const detail = formatConfigErrors(errs);
    throw new RenderError('InvalidConfiguration', errs, `invalid ClusterExtension configuration: invalid configuration: ${detail}`);
  }
  const config = isObject(value) ? value : {};
  const watch = config['watchNamespace'];
  // Only a schema with deploymentConfig lets one through; it is then decoded into OLMv0's SubscriptionConfig.
  const deploymentConfig = (config['deploymentConfig'] ?? undefined) as DeploymentConfig | undefined;
  const typedProblem = deploymentConfigTypeError(deploymentConfig);
  if (typedProblem !== undefined) {
    const m = `failed to unmarshal deploymentConfig: ${typedProblem}`;
    throw new RenderError('InvalidConfiguration', [m], `invalid deploymentConfig: ${m}`);
  }
  return { ...(typeof watch === 'string' && { watchNamespace: watch }), ...(deploymentConfig !== undefined && { deploymentConfig }) };
}

/** Renders an already loaded bundle. Throws RenderError. */
export function renderRegistryV1(rv1: RegistryV1, opts: RenderOptions): KubeObject[] {
  const certProvider = resolveProvider(opts.certProvider);
  gate(rv1, certProvider, opts.manifestProvider);
  const { watchNamespace, deploymentConfig } = bundleConfig(rv1, opts);

  const problems = validateBundle(rv1);
  if (problems.length > 0) throw new RenderError('InvalidBundle', problems);

  const targetNamespaces = watchNamespace !== undefined ? [watchNamespace] : defaultTargetNamespaces(rv1.csv);
  const why = targetNamespacesError(rv1.csv, opts.installNamespace, targetNamespaces);
  if (why !== undefined) {
    const m = `invalid target namespaces ${goList(targetNamespaces)}: ${why}`;
    throw new RenderError('InvalidBundle', [m], `invalid option(s): ${m}`);
  }

  const genOpts = { installNamespace: opts.installNamespace, targetNamespaces, certProvider, deploymentConfig };
  try {
    return GENERATORS.flatMap((g) => g(rv1, genOpts));
  } catch (err) {
    if (err instanceof GenerateError) throw new RenderError('InvalidBundle', [err.message]);
    throw err;
  }
}

/** Renders the registry+v1 bundle in `dir`. Throws BundleLoadError or RenderError. */
export async function renderBundle(dir: string, opts: RenderOptions): Promise<KubeObject[]> {
  return renderRegistryV1(await loadRegistryV1(dir), opts);
}

export interface RegistryV1RendererOptions extends Partial<ManifestProviderGates> {
  /** Default cert-manager; `null`: none (bundles with webhooks are refused). */
  readonly certProvider?: RenderOptions['certProvider'];
}

/**
 * The controller's BundleRenderer, upstream's manifest provider: cert-manager unless another provider (or `null`,
 * none) is given, and a bundle with webhooks refused without one; the SingleOwnNamespaceInstallSupport and
 * DeploymentConfig gates off unless turned on, as upstream's defaults. Configuration problems are terminal
 * (InvalidConfiguration), everything else is retried, as upstream does for unsupported or invalid bundles.
 */
export function registryV1Renderer(defaults: RegistryV1RendererOptions = {}): BundleRenderer {
  const certProvider = defaults.certProvider === undefined ? 'cert-manager' : defaults.certProvider;
  const manifestProvider: ManifestProviderGates = {
    singleOwnNamespaceInstallSupport: defaults.singleOwnNamespaceInstallSupport === true,
    deploymentConfig: defaults.deploymentConfig === true,
  };
  return {
    async render(dir: string, request: RenderRequest): Promise<RenderedBundle> {
      try {
        const bundle = await loadRegistryV1(dir);
        const objects = renderRegistryV1(bundle, { ...request, certProvider, manifestProvider });
        // As upstream's revision generator: the CSV's olm.properties (properties.yaml merged in), when it has one.
        const properties = bundle.csv.metadata.annotations?.['olm.properties'];
        return properties === undefined ? { objects } : { objects, properties };
      } catch (err) {
        if (err instanceof RenderError && err.kind === 'InvalidConfiguration') {
          throw new TerminalError(ReasonInvalidConfiguration, err.message, { cause: err });
        }
        throw err;
      }
    },
  };
}
