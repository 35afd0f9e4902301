// The TLS profile upstream's controllers apply by default (internal/shared/util/tlsprofiles: `--tls-profile`
// defaults to `intermediate`, Mozilla's Server Side TLS v5.8 data): to catalogd's catalog server and to
// operator-controller's HTTP client for catalogd. Node names for what Go configures: OpenSSL cipher names for the
// IANA suites, OpenSSL group names for the curves.
import { createSecureContext } from 'node:tls';
import { tryOr } from '../toolkit/index.ts';

export interface TLSProfile {
  readonly name: string;
  readonly minVersion: 'TLSv1.2' | 'TLSv1.3';
  /** TLS 1.2 suites, OpenSSL names, in the profile's order (Go cannot restrict TLS 1.3 suites; neither is it here). */
  readonly tls12Ciphers: readonly string[];
  /** Key exchange groups in the profile's order, OpenSSL names. */
  readonly curves: readonly string[];
}

/** Mozilla's intermediate configuration as upstream embeds it: TLS 1.2+, ECDHE with AEAD only (no CBC, no RSA kx). */
export const INTERMEDIATE: TLSProfile = {
  name: 'intermediate',
  minVersion: 'TLSv1.2',
  tls12Ciphers: [
    'ECDHE-ECDSA-AES128-GCM-SHA256',
    'ECDHE-RSA-AES128-GCM-SHA256',
    'ECDHE-ECDSA-AES256-GCM-SHA384',
    'ECDHE-RSA-AES256-GCM-SHA384',
    'ECDHE-ECDSA-CHACHA20-POLY1305',
    'ECDHE-RSA-CHACHA20-POLY1305',
  ],
  // X25519MLKEM768, X25519, prime256v1, secp384r1
  curves: ['X25519MLKEM768', 'X25519', 'P-256', 'P-384'],
};

/** The TLS 1.3 suites Go offers (not configurable in Go), in its server order. */
export const TLS13_CIPHERS: readonly string[] = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

const supported = new Map<string, boolean>();

/** Whether this Node's OpenSSL knows the group (X25519MLKEM768 needs OpenSSL 3.5). An empty trust store keeps the probe cheap. */
function groupSupported(group: string): boolean {
  if (!supported.has(group)) supported.set(group, tryOr(() => Boolean(createSecureContext({ ecdhCurve: group, ca: [] })), false));
  return supported.get(group) === true;
}

/**
 * The profile's groups this runtime supports, as `ecdhCurve` takes them. Upstream's Go drops the curves its crypto/tls
 * does not know the same way (and refuses a profile left with none).
 */
export function ecdhCurve(profile: TLSProfile): string {
  const groups = profile.curves.filter(groupSupported);
  if (groups.length === 0) throw new Error(`tls profile ${JSON.stringify(profile.name)}: none of its curves is supported by this runtime`);
  return groups.join(':');
}

/** The `ciphers` string for Node: Go's TLS 1.3 suites, then the profile's TLS 1.2 suites. */
export function cipherList(profile: TLSProfile): string {
  return [...TLS13_CIPHERS, ...profile.tls12Ciphers].join(':');
}

/** Options for a TLS client (node:tls / undici `connect`) holding to the profile. */
export function clientOptions(profile: TLSProfile = INTERMEDIATE): { minVersion: TLSProfile['minVersion']; ciphers: string; ecdhCurve: string } {
  return { minVersion: profile.minVersion, ciphers: cipherList(profile), ecdhCurve: ecdhCurve(profile) };
}
