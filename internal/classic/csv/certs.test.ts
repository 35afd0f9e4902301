import { describe, expect, it } from 'vitest';
import { CERT_VALID_FOR_MS, createSignedClientPair, createSignedServingPair, generateCA, pemSHA256, shouldRotate } from './certs.ts';

const hosts = ['svc.ns', 'svc.ns.svc', 'svc.ns.svc.cluster.local'];

describe('certificates as upstream makes them', () => {
  const now = new Date();
  const ca = generateCA(new Date(now.getTime() + CERT_VALID_FOR_MS));
  const serving = createSignedServingPair(new Date(now.getTime() + CERT_VALID_FOR_MS), ca, hosts);

  it('a self-signed ECDSA CA named olm-selfsigned-<serial>, O=Red Hat, Inc.', () => {
    expect(ca.cert.ca).toBe(true);
    expect(ca.cert.subject).toMatch(/^O=Red Hat\\, Inc\.\nCN=olm-selfsigned-[0-9a-f]+$/);
    expect(ca.cert.subject.split('CN=olm-selfsigned-')[1]).toBe(ca.cert.serialNumber.toLowerCase().replace(/^0+/, ''));
    expect(ca.cert.verify(ca.cert.publicKey)).toBe(true);
    expect(ca.cert.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(ca.keyPEM).toMatch(/^-----BEGIN EC PRIVATE KEY-----/);
  });

  it('a serving pair for the Service’s host names, signed by the CA', () => {
    expect(serving.cert.ca).toBe(false);
    expect(serving.cert.subject).toBe("O=Red Hat\\, Inc.\nCN=svc.ns");
    expect(serving.cert.subjectAltName).toBe('DNS:svc.ns, DNS:svc.ns.svc, DNS:svc.ns.svc.cluster.local');
    expect(serving.cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(serving.cert.checkIssued(ca.cert)).toBe(true);
    expect(serving.cert.verify(ca.cert.publicKey)).toBe(true);
    expect(Date.parse(serving.cert.validTo) - now.getTime()).toBeGreaterThan(CERT_VALID_FOR_MS - 60_000);
  });

  it('a client pair (clientAuth) signed by the CA, as the front-proxy client an API server presents', () => {
    const client = createSignedClientPair(new Date(now.getTime() + CERT_VALID_FOR_MS), ca, 'front-proxy-client', 'front-proxy');
    expect(client.cert.ca).toBe(false);
    expect(client.cert.subject).toBe('O=front-proxy\nCN=front-proxy-client');
    expect(client.cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(client.cert.checkIssued(ca.cert)).toBe(true);
    expect(client.cert.verify(ca.cert.publicKey)).toBe(true);
  });

  it('rotation: fine when fresh and trusted for every host; due when missing, untrusted, for other hosts or near expiry', () => {
    expect(shouldRotate({ caPEM: ca.certPEM, certPEM: serving.certPEM }, hosts)).toBe(false);
    expect(shouldRotate({ certPEM: serving.certPEM }, hosts)).toBe(true);
    expect(shouldRotate({ caPEM: 'garbage', certPEM: serving.certPEM }, hosts)).toBe(true);
    expect(shouldRotate({ caPEM: generateCA(new Date(now.getTime() + CERT_VALID_FOR_MS)).certPEM, certPEM: serving.certPEM }, hosts)).toBe(true);
    expect(shouldRotate({ caPEM: ca.certPEM, certPEM: serving.certPEM }, ['other.ns.svc'])).toBe(true);
    expect(shouldRotate({ caPEM: ca.certPEM, certPEM: serving.certPEM }, hosts, new Date(now.getTime() + CERT_VALID_FOR_MS - 3600_000))).toBe(true);
  });

  it('olmcahash is the sha256 of the CA PEM in hex', () => {
    expect(pemSHA256('x')).toBe('2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881');
  });
});
