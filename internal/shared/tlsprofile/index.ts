// Upstream's default TLS profile for servers and clients. See README.md.
export { INTERMEDIATE, TLS13_CIPHERS, cipherList, clientOptions, ecdhCurve } from './profile.ts';
export type { TLSProfile } from './profile.ts';
