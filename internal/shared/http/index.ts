// HTTP client plumbing the other folders share: undici's core (dispatchers and the request API) without the rest
// of undici, imported on first use. See README.md.
export { loadUndici } from './load.ts';
export type { Undici } from './load.ts';
export type { Dispatcher } from './undici.ts';
