// Upstream's default TLS profile for servers and clients. See README.md.
export { INTERMEDIATE, TLS13_CIPHERS, cipherList, clientOptions, ecdhCurve } from './profile.ts';
export { watchCertificate } from './certwatcher.ts';
export type { CertWatcher, KeyPair } from './certwatcher.ts';
