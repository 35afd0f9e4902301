// Upstream's TLS profiles (modern, intermediate, old, custom) for servers and clients, their flags, and the serving
// certificate watcher. See README.md.
export {
  CURVES,
  GO_CIPHER_SUITES,
  GO_DEFAULT_CURVES,
  GO_DEFAULT_TLS12_CIPHERS,
  INTERMEDIATE,
  MODERN,
  OLD,
  TLS13_CIPHERS,
  TLS_VERSIONS,
  cipherList,
  clientOptions,
  ecdhCurve,
  serverOptions,
  tls12Suites,
} from './profile.ts';
export type { NodeTLSVersion, TLSProfile } from './profile.ts';
export { TLSFlagError, TLS_FLAG_HELP, readCSV, tlsProfileFromFlags } from './flags.ts';
export type { TLSFlagValues } from './flags.ts';
export { watchCertificate } from './certwatcher.ts';
export type { CertWatcher, KeyPair } from './certwatcher.ts';
