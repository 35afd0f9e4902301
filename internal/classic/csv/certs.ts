// The certificates upstream's olm-operator makes for webhook deployments (pkg/controller/certs): a self-signed
// ECDSA P-256 CA (`CN=olm-selfsigned-<serial hex>, O=Red Hat, Inc.`, CA, certSign) and a serving pair for a
// Service's host names signed by it (`CN=<first host>`, serverAuth, the host names as DNS SANs), both valid for
// two years; keys in SEC1 PEM ("EC PRIVATE KEY") as Go's MarshalECPrivateKey writes them. X.509 is encoded here
// (DER) and signed with node:crypto; node's X509Certificate reads them back for the rotation check.
import { X509Certificate, createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { realClock } from '../../shared/toolkit/index.ts';

export const ORGANIZATION = 'Red Hat, Inc.';
/** Certificates are valid this long (upstream's DefaultCertValidFor, 730 days). */
export const CERT_VALID_FOR_MS = 730 * 24 * 3600_000;
/** ...and rotated this long before they expire (DefaultCertMinFresh, one day). */
export const CERT_MIN_FRESH_MS = 24 * 3600_000;

export interface KeyPair {
  readonly certPEM: string;
  readonly keyPEM: string;
  readonly cert: X509Certificate;
  readonly key: KeyObject;
  /** The certificate's subject Name as DER: the issuer of what it signs. */
  readonly subject: Buffer;
}

// DER, just what a certificate needs.
const len = (n: number): Buffer => {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
};
const tlv = (tag: number, body: Buffer): Buffer => Buffer.concat([Buffer.from([tag]), len(body.length), body]);
const seq = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]): Buffer => tlv(0x31, Buffer.concat(items));
const bool = (v: boolean): Buffer => tlv(0x01, Buffer.from([v ? 0xff : 0x00]));
const octets = (b: Buffer): Buffer => tlv(0x04, b);
const bits = (b: Buffer, unused = 0): Buffer => tlv(0x03, Buffer.concat([Buffer.from([unused]), b]));
const utf8 = (s: string): Buffer => tlv(0x0c, Buffer.from(s, 'utf8'));
const explicit = (n: number, body: Buffer): Buffer => tlv(0xa0 + n, body);

function integer(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  let v = b.subarray(i);
  if (v[0]! & 0x80) v = Buffer.concat([Buffer.from([0]), v]);
  return tlv(0x02, v);
}

function oid(text: string): Buffer {
  const parts = text.split('.').map(Number);
  const out = [40 * parts[0]! + parts[1]!];
  for (const p of parts.slice(2)) {
    const chunk: number[] = [p & 0x7f];
    for (let v = Math.floor(p / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

function time(d: Date): Buffer {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  const y = d.getUTCFullYear();
  const rest = `${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  // RFC 5280: UTCTime through 2049, GeneralizedTime from 2050.
  return y < 2050 ? tlv(0x17, Buffer.from(`${p(y % 100)}${rest}`)) : tlv(0x18, Buffer.from(`${y}${rest}`));
}

const OID = {
  ecdsaWithSHA256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

const name = (commonName: string, organization: string): Buffer =>
  seq(set(seq(oid(OID.organization), utf8(organization))), set(seq(oid(OID.commonName), utf8(commonName))));
const extension = (id: string, critical: boolean, value: Buffer): Buffer => seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));

/** The SHA-1 of the public key bits (RFC 5280 method 1), as Go computes subject key identifiers. */
function keyId(spki: Buffer): Buffer {
  // SubjectPublicKeyInfo = SEQ { algorithm SEQ, BIT STRING key }: take the bit string's content after its unused-bits byte.
  const bitString = spki.subarray(spki.length - 66); // P-256 uncompressed point: 65 bytes + the unused-bits byte
  return createHash('sha1').update(bitString.subarray(1)).digest();
}

interface CertSpec {
  readonly serial: Buffer;
  readonly subject: Buffer;
  readonly issuer: Buffer;
  readonly publicKey: KeyObject;
  readonly signer: KeyObject;
  readonly issuerKeyId?: Buffer;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly extensions: Buffer[];
}

function certificate(c: CertSpec): Buffer {
  const spki = c.publicKey.export({ type: 'spki', format: 'der' });
  const exts = [...c.extensions, extension(OID.subjectKeyIdentifier, false, octets(keyId(spki)))];
  if (c.issuerKeyId) exts.push(extension(OID.authorityKeyIdentifier, false, seq(tlv(0x80, c.issuerKeyId))));
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))),
    integer(c.serial),
    seq(oid(OID.ecdsaWithSHA256)),
    c.issuer,
    seq(time(c.notBefore), time(c.notAfter)),
    c.subject,
    spki,
    explicit(3, seq(...exts)),
  );
  const signature = sign('sha256', tbs, c.signer);
  return seq(tbs, seq(oid(OID.ecdsaWithSHA256)), bits(signature));
}

/** A positive int64 serial, as Go's rand.Int(MaxInt64). */
function serialNumber(): Buffer {
  const serial = randomBytes(8);
  serial[0]! &= 0x7f;
  return serial;
}
/** Go's %x of the serial as a big.Int. */
const serialHex = (serial: Buffer): string => serial.toString('hex').replace(/^0+(?=.)/, '');

const pem = (type: string, der: Buffer): string => `-----BEGIN ${type}-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END ${type}-----\n`;

function keyPair(der: Buffer, key: KeyObject, subject: Buffer): KeyPair {
  const certPEM = pem('CERTIFICATE', der);
  return { certPEM, keyPEM: key.export({ type: 'sec1', format: 'pem' }) as string, cert: new X509Certificate(certPEM), key, subject };
}

/** upstream's GenerateCA. */
export function generateCA(notAfter: Date, organization = ORGANIZATION, now = realClock.date()): KeyPair {
  if (notAfter < now) throw new Error(`invalid notAfter: ${notAfter.toISOString()} before ${now.toISOString()}`);
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const serial = serialNumber();
  const subject = name(`olm-selfsigned-${serialHex(serial)}`, organization);
  const der = certificate({
    serial,
    subject,
    issuer: subject,
    publicKey,
    signer: privateKey,
    notBefore: now,
    notAfter,
    extensions: [extension(OID.keyUsage, true, bits(Buffer.from([0x04]), 2)), extension(OID.basicConstraints, true, seq(bool(true)))],
  });
  return keyPair(der, privateKey, subject);
}

/** upstream's CreateSignedServingPair: a serving certificate for `hosts`, signed by `ca`. */
export function createSignedServingPair(notAfter: Date, ca: KeyPair, hosts: readonly string[], organization = ORGANIZATION, now = realClock.date()): KeyPair {
  return signedPair(notAfter, ca, hosts[0] ?? '', organization, now, [
    extension(OID.extKeyUsage, false, seq(oid(OID.serverAuth))),
    extension(OID.basicConstraints, true, seq()),
    extension(OID.subjectAltName, false, seq(...hosts.map((h) => tlv(0x82, Buffer.from(h, 'ascii'))))),
  ]);
}

/**
 * A client certificate (`CN=<commonName>`, clientAuth) signed by `ca` — what an API server presents to the servers it
 * proxies to (the aggregation layer's front-proxy client).
 */
export function createSignedClientPair(notAfter: Date, ca: KeyPair, commonName: string, organization = ORGANIZATION, now = realClock.date()): KeyPair {
  return signedPair(notAfter, ca, commonName, organization, now, [
    extension(OID.keyUsage, true, bits(Buffer.from([0x80]), 7)),
    extension(OID.extKeyUsage, false, seq(oid(OID.clientAuth))),
    extension(OID.basicConstraints, true, seq()),
  ]);
}

/** A new EC P-256 key and its certificate (`CN=<commonName>`, the given extensions) signed by `ca`. */
function signedPair(notAfter: Date, ca: KeyPair, commonName: string, organization: string, now: Date, extensions: readonly Buffer[]): KeyPair {
  if (notAfter < now) throw new Error(`invalid notAfter: ${notAfter.toISOString()} before ${now.toISOString()}`);
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const caSpki = ca.cert.publicKey.export({ type: 'spki', format: 'der' });
  const subject = name(commonName, organization);
  const der = certificate({
    serial: serialNumber(),
    subject,
    issuer: ca.subject,
    publicKey,
    signer: ca.key,
    issuerKeyId: keyId(caSpki),
    notBefore: now,
    notAfter,
    extensions: [...extensions],
  });
  return keyPair(der, privateKey, subject);
}

/** sha256 of the CA's PEM in hex (upstream's PEMSHA256, the `olmcahash` annotation). */
export const pemSHA256 = (caPEM: string): string => createHash('sha256').update(caPEM).digest('hex');

/**
 * upstream's shouldRotateCerts: a missing or unreadable CA or certificate, either not active or within a day of
 * expiry, or a certificate the CA did not sign for every host.
 */
export function shouldRotate(data: { caPEM?: string; certPEM?: string }, hosts: readonly string[], now = realClock.date()): boolean {
  if (!data.caPEM || !data.certPEM) return true;
  let ca: X509Certificate;
  let cert: X509Certificate;
  try {
    ca = new X509Certificate(data.caPEM);
    cert = new X509Certificate(data.certPEM);
  } catch {
    return true;
  }
  const fresh = (c: X509Certificate): boolean => {
    const from = Date.parse(c.validFrom);
    const to = Date.parse(c.validTo);
    return now.getTime() > from && now.getTime() < to && now.getTime() <= to - CERT_MIN_FRESH_MS;
  };
  if (!fresh(ca) || !fresh(cert)) return true;
  if (!cert.verify(ca.publicKey) || !cert.checkIssued(ca)) return true;
  return hosts.some((h) => cert.checkHost(h) === undefined);
}
