// The core works on its own: run in a fresh Node process (vitest's own may have loaded undici's index through other
// tests' MockAgent), where nothing but undici/lib/… files may load, and Node's own undici (lazy fetch globals) stays
// unloaded by it (Node 24's ESM loader loads that one itself at start-up: what counts is that nothing here adds it).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const face = fileURLToPath(new URL('./index.ts', import.meta.url));

const CHILD = `
const nodeUndiciAtStart = process.moduleLoadList.some((m) => m.includes('deps/undici'));
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
const { loadUndici } = await import(${JSON.stringify(face)});
const undiciLoaded = () => Object.keys(createRequire(import.meta.url).cache).filter((f) => /node_modules[\\\\/]undici[\\\\/]/.test(f)).length;
const beforeLoad = undiciLoaded();
const [core, again] = await Promise.all([loadUndici(), loadUndici()]);
const { Agent, EnvHttpProxyAgent, request } = core;
const seen = [];
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => { seen.push(req.method + ' ' + req.url + ' ' + body); res.setHeader('x-answer', 'yes'); res.end('ok ' + req.url); });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = 'http://127.0.0.1:' + server.address().port;
const agent = new Agent();
const proxyAgent = new EnvHttpProxyAgent();
const out = [];
for (const [url, opts, dispatcher] of [
  [base + '/a?b=c', {}, agent],
  [new URL(base + '/put'), { body: 'x' }, agent],
  [base + '/env', { method: 'POST', body: 'y' }, proxyAgent],
  [base + '/global', {}, undefined],
]) {
  const res = await request(url, { ...opts, ...(dispatcher ? { dispatcher } : {}) });
  out.push([res.statusCode, res.headers['x-answer'], await res.body.text()]);
}
const direct = await agent.request({ origin: base, path: '/direct', method: 'GET' });
out.push([direct.statusCode, await direct.body.text()]);
let invalid;
try { await request('ftp://127.0.0.1/', { dispatcher: agent }); } catch (e) { invalid = [e.code, e.message]; }
await agent.close(); await proxyAgent.close(); server.close();
const undiciFiles = Object.keys(createRequire(import.meta.url).cache).filter((f) => /node_modules[\\\\/]undici[\\\\/]/.test(f));
console.log(JSON.stringify({
  out, seen, invalid, beforeLoad, once: core === again,
  agent: undiciFiles.some((f) => /undici[\\\\/]lib[\\\\/]dispatcher[\\\\/]agent\\.js$/.test(f)),
  index: undiciFiles.some((f) => /undici[\\\\/]index\\.js$/.test(f)),
  web: undiciFiles.filter((f) => /undici[\\\\/]lib[\\\\/]web[\\\\/]/.test(f)).length,
  nodeUndiciAdded: process.moduleLoadList.some((m) => m.includes('deps/undici')) !== nodeUndiciAtStart,
}));
`;

describe('undici core', () => {
  it('loads nothing of undici until loadUndici(), then requests through Agent, EnvHttpProxyAgent, the global dispatcher and agent.request, loading no part of undici’s index', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
      env: { ...process.env, HTTP_PROXY: '', HTTPS_PROXY: '', http_proxy: '', https_proxy: '' },
    });
    expect(JSON.parse(stdout)).toEqual({
      out: [
        [200, 'yes', 'ok /a?b=c'],
        [200, 'yes', 'ok /put'],
        [200, 'yes', 'ok /env'],
        [200, 'yes', 'ok /global'],
        [200, 'ok /direct'],
      ],
      seen: ['GET /a?b=c ', 'PUT /put x', 'POST /env y', 'GET /global ', 'GET /direct '],
      invalid: ['UND_ERR_INVALID_ARG', 'Invalid URL protocol: the URL must start with `http:` or `https:`.'],
      beforeLoad: 0,
      once: true,
      agent: true,
      index: false,
      web: 0,
      nodeUndiciAdded: false,
    });
  });
});
