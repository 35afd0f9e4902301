// Upstream's default TLS profile for servers and clients. See README.md.
export { INTERMEDIATE, TLS13_CIPHERS, cipherList, clientOptions, ecdhCurve } from './profile.ts';
export type { TLSProfile } from './profile.ts';
export { DEFAULT_TLS_RELOAD_INTERVAL_MS, watchCertificate } from './certwatcher.ts';
export type { CertWatcher, CertWatcherOptions, KeyPair } from './certwatcher.ts';
