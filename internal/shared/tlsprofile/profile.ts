// The TLS profiles of upstream's controllers (internal/shared/util/tlsprofiles): `modern` and `intermediate` from
// Mozilla's Server Side TLS data that upstream embeds (v6.0 in v1.11; intermediate unchanged since v5.8), `old` as
// upstream keeps it from v5.8, and `custom` from the `--tls-custom-*` flags (./flags.ts). Held here in the names Node
// configures: OpenSSL cipher names for Go's IANA suite names, OpenSSL group names for the curves.
import { constants } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { tryOr } from '../toolkit/index.ts';

/** Node's names of the TLS versions (`TLSv1` is Go's and upstream's `TLSv1.0`). */
export type NodeTLSVersion = 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';

export interface TLSProfile {
  readonly name: string;
  readonly minVersion: NodeTLSVersion;
  /** TLS 1.0–1.2 suites, OpenSSL names, in Go's server preference order (Go cannot restrict TLS 1.3 suites; neither is it here). */
  readonly tls12Ciphers: readonly string[];
  /** Key exchange groups in the profile's order, OpenSSL names. */
  readonly curves: readonly string[];
}

/**
 * Every suite Go's crypto/tls knows by name (`tls.CipherSuites()` then `tls.InsecureCipherSuites()`, Go 1.26), the
 * names upstream's `--tls-custom-ciphers` takes, with OpenSSL's name of the same IANA suite. The TLS 1.3 three are
 * accepted by the flag and, as in Go, change nothing.
 */
export const GO_CIPHER_SUITES: Readonly<Record<string, { readonly openssl: string; readonly tls13?: true }>> = {
  TLS_AES_128_GCM_SHA256: { openssl: 'TLS_AES_128_GCM_SHA256', tls13: true },
  TLS_AES_256_GCM_SHA384: { openssl: 'TLS_AES_256_GCM_SHA384', tls13: true },
  TLS_CHACHA20_POLY1305_SHA256: { openssl: 'TLS_CHACHA20_POLY1305_SHA256', tls13: true },
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: { openssl: 'ECDHE-ECDSA-AES128-SHA' },
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: { openssl: 'ECDHE-ECDSA-AES256-SHA' },
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: { openssl: 'ECDHE-RSA-AES128-SHA' },
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: { openssl: 'ECDHE-RSA-AES256-SHA' },
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: { openssl: 'ECDHE-ECDSA-AES128-GCM-SHA256' },
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: { openssl: 'ECDHE-ECDSA-AES256-GCM-SHA384' },
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: { openssl: 'ECDHE-RSA-AES128-GCM-SHA256' },
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: { openssl: 'ECDHE-RSA-AES256-GCM-SHA384' },
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: { openssl: 'ECDHE-RSA-CHACHA20-POLY1305' },
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: { openssl: 'ECDHE-ECDSA-CHACHA20-POLY1305' },
  TLS_RSA_WITH_RC4_128_SHA: { openssl: 'RC4-SHA' },
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: { openssl: 'DES-CBC3-SHA' },
  TLS_RSA_WITH_AES_128_CBC_SHA: { openssl: 'AES128-SHA' },
  TLS_RSA_WITH_AES_256_CBC_SHA: { openssl: 'AES256-SHA' },
  TLS_RSA_WITH_AES_128_CBC_SHA256: { openssl: 'AES128-SHA256' },
  TLS_RSA_WITH_AES_128_GCM_SHA256: { openssl: 'AES128-GCM-SHA256' },
  TLS_RSA_WITH_AES_256_GCM_SHA384: { openssl: 'AES256-GCM-SHA384' },
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: { openssl: 'ECDHE-ECDSA-RC4-SHA' },
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: { openssl: 'ECDHE-RSA-RC4-SHA' },
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: { openssl: 'ECDHE-RSA-DES-CBC3-SHA' },
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: { openssl: 'ECDHE-ECDSA-AES128-SHA256' },
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: { openssl: 'ECDHE-RSA-AES128-SHA256' },
};

/** Go's server preference order of the TLS 1.0–1.2 suites (`cipherSuitesPreferenceOrder`): a Go server picks by it, whatever order it was configured in. */
const GO_PREFERENCE_ORDER = [
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
  'TLS_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_RSA_WITH_AES_128_CBC_SHA',
  'TLS_RSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256',
  'TLS_RSA_WITH_AES_128_CBC_SHA256',
  'TLS_ECDHE_ECDSA_WITH_RC4_128_SHA',
  'TLS_ECDHE_RSA_WITH_RC4_128_SHA',
  'TLS_RSA_WITH_RC4_128_SHA',
] as const;

/** The curve names upstream's `--tls-custom-curves` takes, with OpenSSL's group name (`secp256r1` is the IANA name of prime256v1). */
export const CURVES: Readonly<Record<string, string>> = {
  X25519MLKEM768: 'X25519MLKEM768',
  X25519: 'X25519',
  prime256v1: 'P-256',
  secp256r1: 'P-256',
  secp384r1: 'P-384',
  secp521r1: 'P-521',
  SecP256r1MLKEM768: 'SecP256r1MLKEM768',
  SecP384r1MLKEM1024: 'SecP384r1MLKEM1024',
};

/** Upstream's `--tls-custom-version` values and Node's names for them. */
export const TLS_VERSIONS: Readonly<Record<string, NodeTLSVersion>> = { 'TLSv1.0': 'TLSv1', 'TLSv1.1': 'TLSv1.1', 'TLSv1.2': 'TLSv1.2', 'TLSv1.3': 'TLSv1.3' };

/** Go's names → the profile's TLS 1.0–1.2 suites, OpenSSL names in Go's preference order (TLS 1.3 names dropped, as Go ignores them). */
export function tls12Suites(goNames: readonly string[]): string[] {
  const wanted = new Set(goNames);
  return GO_PREFERENCE_ORDER.filter((n) => wanted.has(n)).map((n) => GO_CIPHER_SUITES[n]!.openssl);
}

/** What a Go server offers without CipherSuites: ECDHE with AEAD or AES-CBC-SHA (RSA key exchange, 3DES, CBC-SHA256 and RC4 off by default). */
export const GO_DEFAULT_TLS12_CIPHERS: readonly string[] = tls12Suites(GO_PREFERENCE_ORDER.slice(0, 10));

/** What a Go 1.26 server offers without CurvePreferences. */
export const GO_DEFAULT_CURVES: readonly string[] = ['X25519MLKEM768', 'SecP256r1MLKEM768', 'SecP384r1MLKEM1024', 'X25519', 'P-256', 'P-384', 'P-521'];

const MOZILLA_CURVES = ['X25519MLKEM768', 'X25519', 'prime256v1', 'secp384r1'].map((c) => CURVES[c]!);

/** Mozilla's modern configuration as upstream embeds it: TLS 1.3 only (its suites are Go's three, not restrictable). */
export const MODERN: TLSProfile = { name: 'modern', minVersion: 'TLSv1.3', tls12Ciphers: [], curves: MOZILLA_CURVES };

/** Mozilla's intermediate configuration as upstream embeds it: TLS 1.2+, ECDHE with AEAD only (no CBC, no RSA kx). */
export const INTERMEDIATE: TLSProfile = {
  name: 'intermediate',
  minVersion: 'TLSv1.2',
  tls12Ciphers: tls12Suites([
    'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
    'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
    'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
    'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
    'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
    'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
  ]),
  curves: MOZILLA_CURVES,
};

/** Mozilla v5.8's old configuration, which upstream keeps (old_profile.go): TLS 1.0+, CBC, RSA key exchange and 3DES too. */
export const OLD: TLSProfile = {
  name: 'old',
  minVersion: 'TLSv1',
  tls12Ciphers: tls12Suites([
    'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
    'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
    'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
    'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
    'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
    'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
    'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256',
    'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256',
    'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA',
    'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA',
    'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
    'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
    'TLS_RSA_WITH_AES_128_GCM_SHA256',
    'TLS_RSA_WITH_AES_256_GCM_SHA384',
    'TLS_RSA_WITH_AES_128_CBC_SHA256',
    'TLS_RSA_WITH_AES_128_CBC_SHA',
    'TLS_RSA_WITH_AES_256_CBC_SHA',
    'TLS_RSA_WITH_3DES_EDE_CBC_SHA',
  ]),
  curves: MOZILLA_CURVES,
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
  const groups = [...new Set(profile.curves)].filter(groupSupported);
  if (groups.length === 0) throw new Error(`tls profile ${JSON.stringify(profile.name)}: none of its curves is supported by this runtime`);
  return groups.join(':');
}

/**
 * The `ciphers` string for Node: Go's TLS 1.3 suites, then the profile's TLS 1.0–1.2 suites. Below TLS 1.2 OpenSSL 3
 * needs security level 0 (SHA-1 signatures, 3DES), where Go simply allows what it is configured with.
 */
export function cipherList(profile: TLSProfile): string {
  const list = [...TLS13_CIPHERS, ...profile.tls12Ciphers];
  return (below12(profile) ? [...list, '@SECLEVEL=0'] : list).join(':');
}

const below12 = (p: TLSProfile): boolean => p.minVersion === 'TLSv1' || p.minVersion === 'TLSv1.1';

/**
 * The lowest version that can handshake: a profile without a TLS 1.0–1.2 suite (Go would refuse every such hello for
 * want of a shared suite) only speaks TLS 1.3.
 */
function effectiveMinVersion(profile: TLSProfile): NodeTLSVersion {
  return profile.tls12Ciphers.length === 0 ? 'TLSv1.3' : profile.minVersion;
}

/** Options for a TLS client (node:tls / undici `connect`) holding to the profile. */
export function clientOptions(profile: TLSProfile = INTERMEDIATE): { minVersion: NodeTLSVersion; ciphers: string; ecdhCurve: string } {
  return { minVersion: effectiveMinVersion(profile), ciphers: cipherList(profile), ecdhCurve: ecdhCurve(profile) };
}

/**
 * Options for a TLS server holding to the profile as a Go server does: the suite by Go's preference order (a client
 * listing ChaCha20 first, having no AES hardware, gets ChaCha20, as Go's `aesgcmPreferred` gives it: OpenSSL's
 * PRIORITIZE_CHACHA), no client certificate asked for, so an empty trust store (`ca: []`) instead of node's ~140
 * bundled roots, which take 60–70 ms to parse. Given to the server and again to each reloaded context
 * (setSecureContext starts from node's defaults).
 */
export function serverOptions(profile: TLSProfile = INTERMEDIATE): {
  minVersion: NodeTLSVersion;
  ciphers: string;
  ecdhCurve: string;
  honorCipherOrder: true;
  secureOptions: number;
  ca: Buffer[];
} {
  return { ...clientOptions(profile), honorCipherOrder: true, secureOptions: constants.SSL_OP_PRIORITIZE_CHACHA, ca: [] };
}
