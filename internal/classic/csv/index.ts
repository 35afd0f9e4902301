// ClusterServiceVersions of classic (upstream's olm-operator CSV side): the state machine, requirements, install
// strategy, replacement, copies into target namespaces and the CSV metrics. See README.md.
export { csvSetup } from './setup.ts';
export type { CSVOptions } from './setup.ts';
export { CERT_MIN_FRESH_MS, CERT_VALID_FOR_MS, createSignedClientPair, createSignedServingPair, generateCA, pemSHA256 } from './certs.ts';
export { CA_HASH_ANNOTATION, OLM_CA_KEY, hostsFor, secretName as certSecretName } from './webhooks.ts';
