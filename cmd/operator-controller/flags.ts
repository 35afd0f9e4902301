// operator-controller's own flags (names as upstream's where upstream has the flag) and their
// translation into OperatorControllerOptions. Problems are a UsageError naming the flag.
import type { CertProviderName, OperatorControllerOptions } from '../../internal/operator-controller/index.ts';
import { v1CurrentMinor } from '../../internal/openshift/index.ts';
import {
  parseFeatureGates,
  registryFlags,
  registryOptions,
  secureMetricsFlags,
  tlsFlags,
  tlsProfileOption,
  UsageError,
  type Flag,
  type SecureMetrics,
} from '../../internal/shared/manager/index.ts';
import type { Version } from '../../internal/shared/semver/index.ts';

/**
 * operator-controller's feature gates and their defaults: upstream's (features/features.go: both webhook providers GA
 * and on, the four alpha gates off), and ours, ServiceAccountInstalls (off: spec.serviceAccount is ignored, as upstream
 * v1.11; on: extensions install as it).
 */
export const OPERATOR_CONTROLLER_FEATURE_GATES = {
  SingleOwnNamespaceInstallSupport: false,
  WebhookProviderCertManager: true,
  WebhookProviderOpenshiftServiceCA: true,
  BoxcutterRuntime: false,
  DeploymentConfig: false,
  BundleReleaseSupport: false,
  ServiceAccountInstalls: false,
} as const;

/** Upstream operator-controller's metrics: HTTPS on :8443 with --tls-cert/--tls-key, off without them. */
export const OPERATOR_CONTROLLER_METRICS: SecureMetrics = {
  defaultAddress: ':8443',
  pairError: 'unable to configure TLS certificates: tls-cert and tls-key flags must be used together',
  addressError: 'metrics-bind-address requires tls-cert and tls-key flags to be set',
};

export const operatorControllerFlags = {
  ...secureMetricsFlags(OPERATOR_CONTROLLER_METRICS.defaultAddress),
  'tls-cert': { type: 'string', help: 'The certificate file used for the metrics server. Required to enable the metrics server. Requires tls-key.' },
  'tls-key': { type: 'string', help: 'The key file used for the metrics server. Required to enable the metrics server. Requires tls-cert' },
  ...tlsFlags,
  'cache-path': { type: 'string', default: '/var/cache', help: 'directory of the bundle image cache (unpack/)' },
  'system-namespace': {
    type: 'string',
    default: process.env.POD_NAMESPACE || 'olmv1-system',
    help: 'namespace of operator-controller’s own objects (revision records); default: env POD_NAMESPACE, then olmv1-system',
  },
  'catalogd-cas-dir': { type: 'string', help: 'directory of CA certificates (PEM) trusted for catalogd’s content server' },
  'write-status-name': {
    type: 'string',
    help: 'ClusterOperator whose Upgradeable condition reports extensions blocking the next OpenShift minor (olm on OpenShift; needs RELEASE_VERSION); unset: off',
  },
  'feature-gates': {
    type: 'string',
    default: '',
    help:
      'key=value pairs of feature gates: WebhookProviderCertManager=true|false (default true), WebhookProviderOpenshiftServiceCA=true|false (default true), ' +
      'BoxcutterRuntime=true|false (default false), SingleOwnNamespaceInstallSupport=true|false (default false), ' +
      'DeploymentConfig=true|false (default false), BundleReleaseSupport=true|false (default false); ' +
      'webhook certificates come from cert-manager when its gate is on, else from OpenShift service-ca when that one is, else webhook bundles are refused; ' +
      'BoxcutterRuntime keeps revisions as ClusterObjectSets (needs the experimental CRDs, config/crd/experimental); ' +
      'SingleOwnNamespaceInstallSupport installs bundles without AllNamespaces support (their watchNamespace checked even without spec.config), ' +
      'off they are refused; DeploymentConfig accepts spec.config.inline.deploymentConfig, off it is an unknown field; ' +
      'BundleReleaseSupport reads the release key of olm.package and reports status.install.bundle.release, off a release stays in the version’s build metadata. ' +
      'ServiceAccountInstalls=true|false (default false; not upstream): honour the deprecated spec.serviceAccount — the account must exist, ' +
      'its missing permissions are listed before installing, and the extension’s objects are managed as it; off, the field is ignored as upstream',
  },
  ...registryFlags,
} as const satisfies Record<string, Flag>;

export type OperatorControllerFlagValues = Record<keyof typeof operatorControllerFlags, string | boolean | undefined>;

const str = (v: string | boolean | undefined): string => (typeof v === 'string' ? v.trim() : '');

/** OpenShift gating (`--write-status-name`): the ClusterOperator and the cluster's minor from RELEASE_VERSION, or undefined when off. */
export function v1GatingOptions(values: OperatorControllerFlagValues, releaseVersion: string | undefined): { name: string; currentMinor: Version } | undefined {
  const name = str(values['write-status-name']);
  if (name === '') return undefined;
  // As cluster-olm-operator, which does not start without a release version it can parse.
  try {
    return { name, currentMinor: v1CurrentMinor(releaseVersion ?? '') };
  } catch (err) {
    throw new UsageError(`operator-controller: --write-status-name: RELEASE_VERSION ${JSON.stringify(releaseVersion ?? '')}: ${(err as Error).message}`);
  }
}

export function operatorControllerOptions(values: OperatorControllerFlagValues): OperatorControllerOptions {
  const cachePath = str(values['cache-path']);
  if (cachePath === '') throw new UsageError('operator-controller: --cache-path: must not be empty');
  const systemNamespace = str(values['system-namespace']);
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(systemNamespace)) {
    throw new UsageError(`operator-controller: --system-namespace: must be a namespace name, got ${JSON.stringify(systemNamespace)}`);
  }
  const catalogdCasDir = str(values['catalogd-cas-dir']);
  let gates: Record<keyof typeof OPERATOR_CONTROLLER_FEATURE_GATES, boolean>;
  try {
    gates = parseFeatureGates(str(values['feature-gates']), OPERATOR_CONTROLLER_FEATURE_GATES);
  } catch (err) {
    throw new UsageError(`operator-controller: --feature-gates: ${(err as Error).message}`);
  }
  const tlsProfile = tlsProfileOption('operator-controller', values);
  // Upstream's getCertificateProvider: cert-manager first, then OpenShift service-ca, else none.
  const certProvider: CertProviderName | null = gates.WebhookProviderCertManager ? 'cert-manager' : gates.WebhookProviderOpenshiftServiceCA ? 'openshift-serviceca' : null;
  return {
    cachePath,
    systemNamespace,
    ...registryOptions('operator-controller', values),
    ...(catalogdCasDir !== '' && { catalogdCasDir }),
    ...(tlsProfile.name !== 'intermediate' && { tlsProfile }),
    ...(certProvider !== 'cert-manager' && { certProvider }),
    ...(gates.BoxcutterRuntime && { boxcutterRuntime: true }),
    ...(gates.SingleOwnNamespaceInstallSupport && { singleOwnNamespaceInstallSupport: true }),
    ...(gates.DeploymentConfig && { deploymentConfig: true }),
    ...(gates.BundleReleaseSupport && { bundleReleaseSupport: true }),
    ...(gates.ServiceAccountInstalls && { serviceAccountInstalls: true }),
  };
}
