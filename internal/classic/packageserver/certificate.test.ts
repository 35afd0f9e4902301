// The package server's certificate decision: when the Secret's CA and certificate are kept, and when they are
// issued again (and why), as upstream's shouldRotateCerts decides for its packageserver APIService.
import { describe, expect, it } from 'vitest';
import { certDecision, issueSecret, servingHosts, servingPair, servingSecretName, type TLSSecret } from './certificate.ts';

const DAY = 24 * 3600_000;
const service = { namespace: 'olmv1-system', name: 'packageserver-service' };
const hosts = servingHosts(service);
// Whole seconds: a certificate's times are.
const now = new Date(Math.floor(Date.now() / 1000) * 1000);

const at = (ms: number): Date => new Date(now.getTime() + ms);
const withData = (secret: TLSSecret, data: Record<string, string | undefined>): TLSSecret => {
  const merged = { ...secret.data, ...data };
  return { ...secret, data: Object.fromEntries(Object.entries(merged).filter((e): e is [string, string] => e[1] !== undefined)) };
};

describe('the package server Secret', () => {
  it('is upstream’s: <service>-cert, kubernetes.io/tls with the CA in olmCAKey, olmcahash, olm.managed; for the Service’s names', () => {
    expect(servingSecretName(service)).toBe('packageserver-service-cert');
    expect(hosts).toEqual(['packageserver-service.olmv1-system', 'packageserver-service.olmv1-system.svc', 'packageserver-service.olmv1-system.svc.cluster.local']);
    const secret = issueSecret(service, now);
    expect(secret.metadata).toMatchObject({ name: 'packageserver-service-cert', namespace: 'olmv1-system', labels: { 'olm.managed': 'true' } });
    expect(secret.metadata.annotations?.['olmcahash']).toMatch(/^[0-9a-f]{64}$/);
    expect(secret.type).toBe('kubernetes.io/tls');
    expect(Object.keys(secret.data ?? {}).sort()).toEqual(['olmCAKey', 'tls.crt', 'tls.key']);
    expect(servingPair(secret)).toBeDefined();
  });
});

describe('certDecision', () => {
  const secret = issueSecret(service, now);

  it('keeps a fresh pair, and says when it rotates: a day before it expires (730 days)', () => {
    const d = certDecision(secret, hosts, now);
    expect(d.issue).toBe(false);
    if (d.issue) return;
    expect(d.rotateAt.getTime()).toBe(now.getTime() + 729 * DAY);
    expect(certDecision(secret, hosts, at(729 * DAY)).issue).toBe(false);
  });

  it('issues when there is no Secret, or it lacks a key', () => {
    expect(certDecision(undefined, hosts, now)).toEqual({ issue: true, reason: 'no Secret' });
    expect(certDecision(withData(secret, { olmCAKey: undefined }), hosts, now)).toEqual({ issue: true, reason: 'the Secret has no olmCAKey' });
    expect(certDecision(withData(secret, { 'tls.crt': undefined, 'tls.key': '' }), hosts, now)).toEqual({ issue: true, reason: 'the Secret has no tls.crt, tls.key' });
  });

  it('issues within a day of expiry, and after it', () => {
    expect(certDecision(secret, hosts, at(729 * DAY + 1000))).toMatchObject({ issue: true, reason: expect.stringMatching(/^the CA expires at .*, within a day$/) });
    expect(certDecision(secret, hosts, at(731 * DAY)).issue).toBe(true);
  });

  it('issues when a certificate is not yet valid', () => {
    const future = issueSecret(service, at(DAY));
    expect(certDecision(future, hosts, now)).toMatchObject({ issue: true, reason: expect.stringMatching(/^the CA is not valid before /) });
  });

  it('issues when the certificate is for another Service, from another CA, or the key is not its', () => {
    const other = issueSecret({ namespace: 'olm', name: 'packageserver-service' }, now);
    expect(certDecision(other, hosts, now)).toEqual({
      issue: true,
      reason: 'the certificate is not for packageserver-service.olmv1-system, packageserver-service.olmv1-system.svc, packageserver-service.olmv1-system.svc.cluster.local',
    });
    expect(certDecision(withData(secret, { olmCAKey: other.data!['olmCAKey'] }), hosts, now)).toEqual({ issue: true, reason: 'the certificate is not signed by the CA' });
    expect(certDecision(withData(secret, { 'tls.key': other.data!['tls.key'] }), hosts, now)).toEqual({ issue: true, reason: 'tls.key is not the key of tls.crt' });
    expect(servingPair(withData(secret, { 'tls.key': other.data!['tls.key'] }))).toBeUndefined();
  });

  it('issues when a certificate or key does not parse', () => {
    const garbage = Buffer.from('not a certificate').toString('base64');
    expect(certDecision(withData(secret, { 'tls.crt': garbage }), hosts, now)).toMatchObject({ issue: true, reason: expect.stringMatching(/^unreadable certificate: /) });
    expect(certDecision(withData(secret, { 'tls.key': garbage }), hosts, now)).toMatchObject({ issue: true, reason: expect.stringMatching(/^unreadable key: /) });
    expect(servingPair(withData(secret, { 'tls.key': garbage }))).toBeUndefined();
  });
});
