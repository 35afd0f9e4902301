// ClusterServiceVersions of classic (upstream's olm-operator CSV side): the state machine, requirements, install
// strategy, replacement, copies into target namespaces and the CSV metrics. See README.md.
export { csvSetup } from './setup.ts';
export type { CSVOptions, CSVParts } from './setup.ts';
export { clusterRequirements } from './cluster-requirements.ts';
export { CSV_FINALIZER, INSTALL_TIMEOUT_MS, csvSteps, type CSVState, type CSVStep, type CSVStepPorts } from './steps.ts';
export { CONDITIONS_LENGTH_LIMIT, isCopied, isObsolete, isUncopiable, setPhase, setPhaseWithEvent, setPhaseWithEventIfChanged, type PhaseEvents } from './phase.ts';
export { installModeSet, unsupportedTargets } from './installmodes.ts';
export { DEPLOYMENT_SPEC_HASH_LABEL, buildDeployment, checkInstalled, deploymentStatus } from './install.ts';
export { requirementAndPermissionStatus, type RequirementSource } from './requirements.ts';
export { copyPrototype, operatorGroupFromAnnotations } from './copy.ts';
export { csvMetrics, type CSVMetrics } from './metrics.ts';
export { CERT_MIN_FRESH_MS, CERT_VALID_FOR_MS, createSignedClientPair, createSignedServingPair, generateCA, pemSHA256, type KeyPair } from './certs.ts';
export { CA_HASH_ANNOTATION, OLM_CA_KEY, hostsFor, secretName as certSecretName } from './webhooks.ts';
