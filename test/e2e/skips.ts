// Where each scenario runs. The in-process profiles (standard.test.ts, experimental.test.ts: controllers in the test
// process, KWOK nodes) run every scenario but those that need what only Pods give — the controllers deployed as
// Pods, operators' containers really running —, which the deployed profiles (standard-pods.test.ts,
// experimental-pods.test.ts: the project's image on a real node) run instead (DEPLOYED_FEATURES, DEPLOYED_SCENARIOS).
// A scenario whose feature gate is off in the profile is skipped as upstream's hooks.go skips it (its reason says which
// gate), and a scenario with a tag upstream's Makefile filters out (`--godog.tags=~@demo`) is skipped the same way.
// NOT_YET names what the deployed profiles cannot run yet, each with why; keep it empty.
export const DEPLOYED_FEATURES: Readonly<Record<string, string>> = {
  metrics:
    'needs operator-controller and catalogd deployed as in-cluster Pods behind their metrics Services (a ServiceAccount token sent through a port-forward to each Pod); the profiles run both controllers in the test process',
  tls: "patches the catalogd Deployment's args with TLS-profile settings, waits for its rollout and then probes its metrics endpoint; the profiles run catalogd in the test process, not as a Deployment",
  proxy:
    "patches the operator-controller Deployment's env with HTTPS_PROXY and waits for its rollout, then recognises the CONNECT by the in-cluster catalogd Service's host name; the profiles run operator-controller in the test process, with catalogd at 127.0.0.1",
  ha: "force-deletes the catalogd leader Pod of a 2-replica catalogd Deployment and reads the Lease holder's Pod; the profiles run catalogd in the test process, not as Pods",
};

/** Single scenarios that need Pods, keyed `<feature>: <scenario name>`. */
export const DEPLOYED_SCENARIOS: Readonly<Record<string, string>> = {
  'install: Install operator having webhooks':
    "needs the webhook-operator's container really running its admission and conversion webhook server (it denies, mutates and converts WebhookTest objects); KWOK's nodes run no containers",
};

/** Tags upstream's Makefile leaves out of test-e2e and test-experimental-e2e. */
export const EXCLUDED_TAGS: Readonly<Record<string, string>> = {
  demo: "upstream's test-e2e / test-experimental-e2e run with --godog.tags=~@demo (the demos install operatorhub.io's catalog from the internet)",
};

/** Features and scenarios (as in DEPLOYED_*) the deployed profiles cannot run yet, with why. */
export const NOT_YET: Readonly<Record<string, string>> = {
  'install: Install operator having webhooks': "needs cert-manager running in the cluster (WebhookProviderCertManager) and a webhook operator's image",
};
