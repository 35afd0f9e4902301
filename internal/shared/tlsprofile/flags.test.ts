import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer, type ConnectionOptions, type Server } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GO_CIPHER_SUITES,
  GO_DEFAULT_CURVES,
  GO_DEFAULT_TLS12_CIPHERS,
  INTERMEDIATE,
  MODERN,
  OLD,
  TLS_FLAG_HELP,
  clientOptions,
  readCSV,
  serverOptions,
  tlsProfileFromFlags,
  type TLSProfile,
} from './index.ts';

const refused = (values: Parameters<typeof tlsProfileFromFlags>[0]): string => {
  try {
    tlsProfileFromFlags(values);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected the flags to be refused');
};

describe('upstream’s TLS flags', () => {
  it('select upstream’s profiles; intermediate by default, names case-insensitive', () => {
    expect(tlsProfileFromFlags({})).toBe(INTERMEDIATE);
    expect(tlsProfileFromFlags({ 'tls-profile': 'modern' })).toBe(MODERN);
    expect(tlsProfileFromFlags({ 'tls-profile': 'OLD' })).toBe(OLD);
    // The custom flags are read whatever the profile, and only custom uses them.
    expect(tlsProfileFromFlags({ 'tls-profile': 'intermediate', 'tls-custom-version': 'TLSv1.3' })).toBe(INTERMEDIATE);
  });

  it('custom: version, Go cipher names (in Go’s preference order, TLS 1.3 names ignored), curve names; Go’s defaults for what is not given', () => {
    expect(tlsProfileFromFlags({ 'tls-profile': 'custom' })).toEqual({
      name: 'custom',
      minVersion: 'TLSv1.2',
      tls12Ciphers: GO_DEFAULT_TLS12_CIPHERS,
      curves: GO_DEFAULT_CURVES,
    });
    expect(
      tlsProfileFromFlags({
        'tls-profile': 'custom',
        'tls-custom-version': 'TLSv1.0',
        'tls-custom-ciphers': 'TLS_RSA_WITH_AES_128_CBC_SHA,TLS_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
        'tls-custom-curves': 'SecP256r1MLKEM768,secp256r1,X25519MLKEM768,SecP384r1MLKEM1024,secp521r1',
      }),
    ).toEqual({
      name: 'custom',
      minVersion: 'TLSv1',
      tls12Ciphers: ['ECDHE-ECDSA-AES128-GCM-SHA256', 'AES128-SHA'],
      curves: ['SecP256r1MLKEM768', 'P-256', 'X25519MLKEM768', 'SecP384r1MLKEM1024', 'P-521'],
    });
    expect(tlsProfileFromFlags({ 'tls-profile': 'custom', 'tls-custom-ciphers': '' }).tls12Ciphers).toEqual([]);
  });

  it('refuse a value with pflag’s words and upstream’s reasons', () => {
    expect(refused({ 'tls-profile': 'x' })).toBe('invalid argument "x" for "--tls-profile" flag: unknown TLS profile: "x"');
    expect(refused({ 'tls-custom-version': 'TLSv1' })).toBe('invalid argument "TLSv1" for "--tls-custom-version" flag: unknown TLS version: "TLSv1"');
    expect(refused({ 'tls-custom-ciphers': 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,ECDHE-RSA-AES128-GCM-SHA256' })).toBe(
      'invalid argument "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,ECDHE-RSA-AES128-GCM-SHA256" for "--tls-custom-ciphers" flag: unknown cipher "ECDHE-RSA-AES128-GCM-SHA256"',
    );
    expect(refused({ 'tls-custom-curves': 'X25519, P-256' })).toBe('invalid argument "X25519, P-256" for "--tls-custom-curves" flag: unknown curve " P-256"');
    expect(refused({ 'tls-custom-curves': 'X25519,' })).toBe('invalid argument "X25519," for "--tls-custom-curves" flag: unknown curve ""');
    expect(refused({ 'tls-custom-curves': 'a"b' })).toBe('invalid argument "a\\"b" for "--tls-custom-curves" flag: parse error on line 1, column 2: bare " in non-quoted field');
  });

  it('read a list as Go’s encoding/csv does', () => {
    expect(readCSV('')).toEqual([]);
    expect(readCSV('a,b')).toEqual(['a', 'b']);
    expect(readCSV('"a,b",c')).toEqual(['a,b', 'c']);
    expect(readCSV('"a""b"')).toEqual(['a"b']);
    expect(readCSV(' a ,b')).toEqual([' a ', 'b']);
  });

  it('have upstream’s help (the lists sorted as Go sorts strings)', () => {
    expect(TLS_FLAG_HELP).toEqual({
      'tls-profile': 'The TLS profile to use. One of [custom intermediate modern old]',
      'tls-custom-ciphers': 'List of ciphers to be used with the custom TLS profile. Use Go-language cipher names',
      'tls-custom-curves':
        'List of curves to be used with the custom TLS profile. Values may consist of [SecP256r1MLKEM768 SecP384r1MLKEM1024 X25519 X25519MLKEM768 prime256v1 secp256r1 secp384r1 secp521r1]',
      'tls-custom-version': 'The TLS version to be used with the custom TLS profile. One of [TLSv1.0 TLSv1.1 TLSv1.2 TLSv1.3]',
    });
  });
});

describe('the profiles in real handshakes (Node’s OpenSSL)', () => {
  let dir: string;
  const pairs: { cert: Buffer; key: Buffer }[] = [];
  const servers: Server[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tlsprofile-'));
    for (const [name, alg] of [
      ['rsa', ['-newkey', 'rsa:2048']],
      ['ec', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1']],
    ] as const) {
      execFileSync('openssl', ['req', '-x509', ...alg, '-nodes', '-days', '1', '-subj', '/CN=localhost', '-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.crt`)], {
        stdio: 'ignore',
      });
      pairs.push({ cert: readFileSync(join(dir, `${name}.crt`)), key: readFileSync(join(dir, `${name}.key`)) });
    }
  });
  afterAll(() => {
    for (const s of servers) s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function serve(profile: TLSProfile): Promise<number> {
    const server = createServer({ cert: pairs.map((p) => p.cert), key: pairs.map((p) => p.key), ...serverOptions(profile) }, (s) => s.end());
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as { port: number }).port;
  }

  /** The negotiated suite's IANA name and version, or the error. */
  function handshake(port: number, options: ConnectionOptions): Promise<string> {
    return new Promise((resolve) => {
      let socket: ReturnType<typeof connect>;
      try {
        socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...options }, () => {
          resolve(`${socket.getCipher().standardName} ${socket.getProtocol() ?? ''}`);
          socket.destroy();
        });
      } catch (err) {
        // A client context OpenSSL cannot make (a suite it does not have)
        resolve(`error: ${(err as Error).message}`);
        return;
      }
      socket.on('error', (err) => resolve(`error: ${err.message}`));
    });
  }

  it('every Go suite name maps to OpenSSL’s name of the same IANA suite (RC4 and 3DES aside: Node’s OpenSSL is built without them)', async () => {
    const port = await serve({ ...OLD, name: 'all', tls12Ciphers: Object.values(GO_CIPHER_SUITES).filter((c) => !c.tls13).map((c) => c.openssl) });
    for (const [goName, { openssl, tls13 }] of Object.entries(GO_CIPHER_SUITES)) {
      if (tls13) {
        expect(await handshake(port, { minVersion: 'TLSv1.3', ciphers: `${openssl}:ECDHE-RSA-AES128-GCM-SHA256` })).toBe(`${goName} TLSv1.3`);
        continue;
      }
      const got = await handshake(port, { maxVersion: 'TLSv1.2', ciphers: `${openssl}:@SECLEVEL=0` });
      if (goName.includes('RC4') || goName.includes('3DES')) expect(got).toMatch(/^error: .*no cipher match/);
      else expect(got).toBe(`${goName} TLSv1.2`);
    }
  });

  it('custom TLSv1.3: a TLS 1.3 client is served, a TLS 1.2 one refused (tls.feature)', async () => {
    const port = await serve(tlsProfileFromFlags({ 'tls-profile': 'custom', 'tls-custom-version': 'TLSv1.3' }));
    expect(await handshake(port, {})).toMatch(/ TLSv1\.3$/);
    expect(await handshake(port, { maxVersion: 'TLSv1.2' })).toMatch(/^error: /);
  });

  it('custom TLSv1.2 with one cipher and curve: that cipher negotiated, another refused; the curve (or its IANA name) accepted, P-521 refused', async () => {
    for (const curve of ['prime256v1', 'secp256r1']) {
      const port = await serve(
        tlsProfileFromFlags({ 'tls-profile': 'custom', 'tls-custom-version': 'TLSv1.2', 'tls-custom-ciphers': 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'tls-custom-curves': curve }),
      );
      expect(await handshake(port, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' })).toBe('TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 TLSv1.2');
      expect(await handshake(port, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES256-GCM-SHA384' })).toMatch(/^error: /);
      expect(await handshake(port, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256', ecdhCurve: 'P-256' })).toMatch(/^TLS_ECDHE/);
      expect(await handshake(port, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256', ecdhCurve: 'P-521' })).toMatch(/^error: /);
    }
  });

  it('the post-quantum hybrid SecP256r1MLKEM768 is accepted alone, P-521 refused', async () => {
    const port = await serve(
      tlsProfileFromFlags({
        'tls-profile': 'custom',
        'tls-custom-version': 'TLSv1.2',
        'tls-custom-ciphers': 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
        'tls-custom-curves': 'SecP256r1MLKEM768,secp256r1',
      }),
    );
    expect(await handshake(port, { ecdhCurve: 'SecP256r1MLKEM768' })).toMatch(/ TLSv1\.3$/);
    expect(await handshake(port, { ecdhCurve: 'P-521' })).toMatch(/^error: /);
  });

  it('old accepts TLS 1.0 with a CBC suite; intermediate and modern refuse what they leave out', async () => {
    const old = await serve(OLD);
    expect(await handshake(old, { minVersion: 'TLSv1', maxVersion: 'TLSv1', ciphers: 'ECDHE-RSA-AES128-SHA:@SECLEVEL=0' })).toBe('TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA TLSv1');
    const intermediate = await serve(INTERMEDIATE);
    expect(await handshake(intermediate, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-SHA' })).toMatch(/^error: /);
    const modern = await serve(MODERN);
    expect(await handshake(modern, { maxVersion: 'TLSv1.2' })).toMatch(/^error: /);
    expect(clientOptions(MODERN).minVersion).toBe('TLSv1.3');
  });
});
