import { createSecureContext } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { INTERMEDIATE, cipherList, clientOptions, ecdhCurve } from './index.ts';

describe('the intermediate TLS profile (upstream’s default)', () => {
  it('holds Mozilla v5.8 intermediate’s TLS 1.2 suites (OpenSSL names of the IANA list) and curves', () => {
    expect(INTERMEDIATE.minVersion).toBe('TLSv1.2');
    expect(INTERMEDIATE.tls12Ciphers).toEqual([
      'ECDHE-ECDSA-AES128-GCM-SHA256',
      'ECDHE-RSA-AES128-GCM-SHA256',
      'ECDHE-ECDSA-AES256-GCM-SHA384',
      'ECDHE-RSA-AES256-GCM-SHA384',
      'ECDHE-ECDSA-CHACHA20-POLY1305',
      'ECDHE-RSA-CHACHA20-POLY1305',
    ]);
    expect(INTERMEDIATE.curves).toEqual(['X25519MLKEM768', 'X25519', 'P-256', 'P-384']);
  });

  it('keeps only the groups this runtime knows, in order, and makes contexts Node accepts', () => {
    const curve = ecdhCurve(INTERMEDIATE);
    expect(curve.endsWith('X25519:P-256:P-384')).toBe(true);
    expect(['X25519:P-256:P-384', 'X25519MLKEM768:X25519:P-256:P-384']).toContain(curve);
    expect(() => createSecureContext({ ciphers: cipherList(INTERMEDIATE), ecdhCurve: curve, ca: [] })).not.toThrow();
    expect(clientOptions()).toEqual({ minVersion: 'TLSv1.2', ciphers: cipherList(INTERMEDIATE), ecdhCurve: curve });
  });

  it('refuses a profile left without a curve', () => {
    expect(() => ecdhCurve({ ...INTERMEDIATE, name: 'none', curves: ['NoSuchGroup'] })).toThrow('tls profile "none": none of its curves is supported by this runtime');
  });
});
