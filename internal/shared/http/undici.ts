// undici's HTTP/1.1 core and nothing else: the dispatchers (Agent, EnvHttpProxyAgent), the request API on every
// Dispatcher, and `request(url, { dispatcher })`. undici's index also loads fetch, WebSocket, cookies, EventSource,
// the cache and the mocks (~760 KiB of a controller bundle's start, and cookies makes Node load its own undici);
// importing its files one by one keeps those out. Types are undici's own (types/undici-core.d.ts).
import type { request as undiciRequest } from 'undici';
import api from 'undici/lib/api/index.js';
import { parseURL } from 'undici/lib/core/util.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import { getGlobalDispatcher } from 'undici/lib/global.js';

// As undici's index does: `agent.request()`, `.stream()`, … on every dispatcher.
Object.assign(Dispatcher.prototype, api);

/**
 * undici's top-level `request`: the URL's origin and path (with its query) handed to the request API of
 * `options.dispatcher` (default: undici's global dispatcher); method GET, or PUT when there is a body.
 */
export const request = ((url, options = {}) => {
  const target = parseURL(url as string | URL);
  const { dispatcher = getGlobalDispatcher() } = options;
  return api.request.call(dispatcher, {
    ...options,
    origin: target.origin,
    path: target.search ? `${target.pathname}${target.search}` : target.pathname,
    method: options.method || (options.body ? 'PUT' : 'GET'),
  });
}) as typeof undiciRequest;

export { Agent, EnvHttpProxyAgent };
export type { Dispatcher };
