// Upstream operator-controller's e2e features (test/e2e/features, vendored) in the standard profile: the standard
// CRDs, operator-controller with WebhookProviderCertManager on and every other gate off (upstream's test-e2e).
import { defineProfileTests } from './support/runner.ts';

defineProfileTests('standard');
