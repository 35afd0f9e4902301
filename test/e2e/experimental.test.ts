// Upstream operator-controller's e2e features (test/e2e/features, vendored) in the experimental profile: the
// experimental CRDs, operator-controller with BoxcutterRuntime, BundleReleaseSupport, DeploymentConfig,
// SingleOwnNamespaceInstallSupport and WebhookProviderCertManager on, catalogd with APIV1MetasHandler and
// GraphQLCatalogQueries on (upstream's test-experimental-e2e, helm/experimental.yaml).
import { defineProfileTests } from './support/runner.ts';

defineProfileTests('experimental');
