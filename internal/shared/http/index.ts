// HTTP client plumbing the other folders share: undici's core (dispatchers and the request API) without the rest
// of undici. See README.md.
export { Agent, EnvHttpProxyAgent, request } from './undici.ts';
export type { Dispatcher } from './undici.ts';
