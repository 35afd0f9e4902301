// catalogd's and operator-controller's metrics as upstream serves them (controller-runtime's secure metrics server
// with filters.WithAuthenticationAndAuthorization), against the real API server: HTTPS with --tls-cert/--tls-key
// under the --tls-profile flags, as upstream's tls.feature probes them; a token of a ServiceAccount allowed GET
// /metrics gets Prometheus text, anything else the filter's status and text (metrics.feature).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKube, controlPlane } from '../../support/env.ts';
import { metricsReaderToken, scrapeMetrics, selfSignedPair } from '../../support/metrics.ts';
import { freePort } from '../../support/net.ts';
import { startBinary, type ControllerProcess } from '../../support/process.ts';

let dir = '';
let namespace = '';
let reader = '';
const running: ControllerProcess[] = [];

/** The binary with the pair and the flags given, once its controllers start (its metrics server listens before). */
async function start(name: 'catalogd' | 'operator-controller', args: readonly string[]): Promise<string> {
  const { certFile, keyFile } = selfSignedPair(dir, name);
  const port = await freePort();
  const own =
    name === 'catalogd'
      ? [`--catalogs-server-addr=127.0.0.1:${await freePort()}`, '--external-address=localhost', `--cache-dir=${join(dir, 'catalogd')}`]
      : [`--cache-path=${join(dir, 'operator-controller')}`, '--system-namespace=default'];
  const proc = startBinary(
    name,
    ['--health-probe-bind-address=0', `--tls-cert=${certFile}`, `--tls-key=${keyFile}`, `--metrics-bind-address=127.0.0.1:${port}`, '--insecure-registries=', ...own, ...args],
    { KUBECONFIG: controlPlane().kubeconfigPath },
  );
  running.push(proc);
  await Promise.race([proc.started, proc.exited.then(() => Promise.reject(new Error(`${name} exited with ${proc.child.exitCode}`)))]);
  return `https://127.0.0.1:${port}/metrics`;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'secure-metrics-'));
  namespace = await adminKube().namespace('metrics');
  reader = await metricsReaderToken(adminKube(), namespace, 'metrics-reader');
});

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  rmSync(dir, { recursive: true, force: true });
});

describe('catalogd --tls-profile=custom --tls-custom-version=TLSv1.3', () => {
  let url = '';
  beforeAll(async () => {
    url = await start('catalogd', ['--tls-profile=custom', '--tls-custom-version=TLSv1.3']);
  }, 120_000);

  it('accepts a TLS 1.3 connection and rejects a TLS 1.2 one', async () => {
    expect((await scrapeMetrics(url, reader, { minVersion: 'TLSv1.3' })).protocol).toBe('TLSv1.3');
    await expect(scrapeMetrics(url, reader, { maxVersion: 'TLSv1.2' })).rejects.toThrow(/alert|handshake|protocol version/i);
  });

  it('gives Prometheus text to a ServiceAccount allowed GET /metrics', async () => {
    const got = await scrapeMetrics(url, reader);
    expect(got.status).toBe(200);
    expect(got.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(got.body).toMatch(/^# HELP /m);
    expect(got.body).toContain('# TYPE process_cpu_seconds_total counter');
  });

  it('answers as controller-runtime’s filter: no token 401, an unknown token 500, a token without the permission 403; other paths 404', async () => {
    expect(await scrapeMetrics(url)).toMatchObject({ status: 401, body: 'Unauthorized\n', contentType: 'text/plain; charset=utf-8' });
    expect(await scrapeMetrics(url, 'not-a-token')).toMatchObject({ status: 500, body: 'Authentication failed\n' });
    const unbound = await metricsReaderToken(adminKube(), namespace, 'unbound', false);
    expect(await scrapeMetrics(url, unbound)).toMatchObject({ status: 403, body: `Authorization denied for user system:serviceaccount:${namespace}:unbound\n` });
    expect(await scrapeMetrics(url.replace(/\/metrics$/, '/healthz'), reader)).toMatchObject({ status: 404, body: '404 page not found\n' });
  });
});

describe('operator-controller --tls-profile=custom TLSv1.2, one cipher, one curve', () => {
  let url = '';
  beforeAll(async () => {
    url = await start('operator-controller', [
      '--tls-profile=custom',
      '--tls-custom-version=TLSv1.2',
      '--tls-custom-ciphers=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
      '--tls-custom-curves=secp256r1',
    ]);
  }, 120_000);

  it('negotiates the cipher over TLS 1.2, refuses another, accepts the curve, refuses secp521r1', async () => {
    const tls12 = { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' } as const;
    expect(await scrapeMetrics(url, reader, tls12)).toMatchObject({ status: 200, protocol: 'TLSv1.2', cipher: 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256' });
    await expect(scrapeMetrics(url, reader, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES256-GCM-SHA384' })).rejects.toThrow();
    expect((await scrapeMetrics(url, reader, { ...tls12, ecdhCurve: 'P-256' })).status).toBe(200);
    await expect(scrapeMetrics(url, reader, { ...tls12, ecdhCurve: 'P-521' })).rejects.toThrow();
    await expect(scrapeMetrics(url, reader, { ecdhCurve: 'P-521' })).rejects.toThrow();
  });
});
