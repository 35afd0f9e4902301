// Real HTTP on 127.0.0.1, port 0.
import { afterEach, describe, expect, it } from 'vitest';
import { type HealthCheck, type HealthServer, type HealthServerOptions, startHealthServer } from './health-server.ts';
import { createMetrics } from './metrics.ts';

const servers: HealthServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(options: Omit<HealthServerOptions, 'host' | 'port'> = {}): Promise<HealthServer> {
  const server = await startHealthServer({ host: '127.0.0.1', port: 0, ...options });
  servers.push(server);
  return server;
}

async function get(server: HealthServer, path: string): Promise<{ status: number; body: string; type: string | null }> {
  const res = await fetch(`${server.address}${path}`);
  return { status: res.status, body: await res.text(), type: res.headers.get('content-type') };
}

interface Row {
  readonly name: string;
  readonly checks: Record<string, HealthCheck> | undefined;
  readonly path: string;
  readonly status: number;
  readonly body: string;
}

describe('health server', () => {
  it('listens on the port it reports', async () => {
    const s = await serve();
    expect(s.port).toBeGreaterThan(0);
    expect(s.address).toBe(`http://127.0.0.1:${s.port}`);
  });

  it.each([
    {
      name: 'no checks: ping passes',
      checks: undefined,
      path: '/readyz',
      status: 200,
      body: 'ok',
    },
    {
      name: 'all pass',
      checks: { 'informer-sync': () => true, cache: async () => undefined },
      path: '/readyz',
      status: 200,
      body: 'ok',
    },
    {
      name: 'all pass, verbose',
      checks: { 'informer-sync': () => true, cache: async () => undefined },
      path: '/readyz?verbose',
      status: 200,
      body: '[+]informer-sync ok\n[+]cache ok\nreadyz check passed\n',
    },
    {
      name: 'false, throw and reject all fail; reasons withheld',
      checks: {
        ok: () => true,
        'informer-sync': () => false,
        throws: () => {
          throw new Error('secret detail');
        },
        rejects: () => Promise.reject(new Error('secret detail')),
      },
      path: '/readyz',
      status: 500,
      body:
        '[+]ok ok\n[-]informer-sync failed: reason withheld\n[-]throws failed: reason withheld\n' +
        '[-]rejects failed: reason withheld\nreadyz check failed\n',
    },
    {
      name: 'exclude skips a check',
      checks: { ok: () => true, bad: () => false },
      path: '/readyz?exclude=bad&verbose',
      status: 200,
      body: '[+]ok ok\n[+]bad excluded: ok\nreadyz check passed\n',
    },
    {
      name: 'exclude of an unknown check warns',
      checks: { bad: () => false },
      path: '/readyz?exclude=nope&exclude=bad',
      status: 200,
      body: 'ok',
    },
    {
      name: 'exclude of an unknown check warns (verbose)',
      checks: { bad: () => false },
      path: '/readyz?exclude=nope&exclude=bad&verbose=1',
      status: 200,
      body: '[+]bad excluded: ok\nwarn: some health checks cannot be excluded: no matches for "nope"\nreadyz check passed\n',
    },
    {
      name: 'single check, passing',
      checks: { ok: () => true, bad: () => false },
      path: '/readyz/ok',
      status: 200,
      body: 'ok',
    },
    {
      name: 'single check, failing, with its reason',
      checks: {
        bad: () => {
          throw new Error('informers not synced');
        },
      },
      path: '/readyz/bad',
      status: 500,
      body: 'internal server error: informers not synced\n',
    },
    {
      name: 'single check, unknown',
      checks: { ok: () => true },
      path: '/readyz/nope',
      status: 404,
      body: 'no readyz check named "nope"\n',
    },
    {
      name: 'healthz is independent of readiness checks',
      checks: { bad: () => false },
      path: '/healthz?verbose',
      status: 200,
      body: '[+]ping ok\nhealthz check passed\n',
    },
  ] satisfies Row[] as Row[])('$name', async ({ checks, path, status, body }) => {
    const s = await serve(checks === undefined ? {} : { checks });
    const res = await get(s, path);
    expect({ status: res.status, body: res.body }).toEqual({ status, body });
    if (status !== 404) expect(res.type).toBe('text/plain; charset=utf-8');
  });

  it('liveness checks can be given, and checks added after start', async () => {
    const s = await serve({ healthChecks: { loop: () => false } });
    expect(await get(s, '/healthz')).toMatchObject({ status: 500, body: '[-]loop failed: reason withheld\nhealthz check failed\n' });
    s.addHealthCheck('loop', () => true);
    expect(await get(s, '/healthz')).toMatchObject({ status: 200, body: 'ok' });

    let synced = false;
    s.addReadyCheck('informer-sync', () => synced);
    expect((await get(s, '/readyz')).status).toBe(500);
    synced = true;
    expect(await get(s, '/readyz?verbose')).toMatchObject({ status: 200, body: '[+]ping ok\n[+]informer-sync ok\nreadyz check passed\n' });
  });

  it('serves /metrics with the registry content type and the controller metric names', async () => {
    const metrics = createMetrics();
    metrics.controller('clusterextension');
    metrics.workQueue('clusterextension');
    const s = await serve({ registry: metrics.registry });
    const res = await get(s, '/metrics');
    expect(res.status).toBe(200);
    expect(res.type).toBe(metrics.registry.contentType);
    for (const name of [
      'controller_runtime_reconcile_total',
      'controller_runtime_reconcile_errors_total',
      'controller_runtime_terminal_reconcile_errors_total',
      'controller_runtime_reconcile_time_seconds',
      'controller_runtime_active_workers',
      'controller_runtime_max_concurrent_reconciles',
      'workqueue_depth',
      'workqueue_adds_total',
      'workqueue_retries_total',
      'workqueue_queue_duration_seconds',
      'workqueue_work_duration_seconds',
      'workqueue_unfinished_work_seconds',
      'workqueue_longest_running_processor_seconds',
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
    ]) {
      expect(res.body, name).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
    }
  });

  it('answers HEAD like GET without a body, other methods with 405, unknown paths with 404', async () => {
    const s = await serve();
    const head = await fetch(`${s.address}/readyz`, { method: 'HEAD' });
    expect({ status: head.status, body: await head.text() }).toEqual({ status: 200, body: '' });
    const post = await fetch(`${s.address}/healthz`, { method: 'POST' });
    expect({ status: post.status, allow: post.headers.get('allow') }).toEqual({ status: 405, allow: 'GET, HEAD' });
    expect((await get(s, '/livez')).status).toBe(404);
    expect((await get(s, '/readyz/ping/extra')).status).toBe(404);
  });

  it('has no /metrics without a registry', async () => {
    const s = await serve();
    expect((await get(s, '/metrics')).status).toBe(404);
  });

  it('stops listening on close', async () => {
    const s = await startHealthServer({ host: '127.0.0.1', port: 0 });
    await s.close();
    await expect(fetch(`${s.address}/healthz`)).rejects.toThrow();
  });
});
