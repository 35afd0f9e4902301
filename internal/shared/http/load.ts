// loadUndici: undici's core, imported on first use.
import type * as core from './undici.ts';

/** undici's core as `undici.ts` exports it: `Agent`, `EnvHttpProxyAgent`, `request`. */
export type Undici = typeof core;

let loading: Promise<Undici> | undefined;

/**
 * undici's core, imported the first time a caller needs it (in a bundle, its own chunk): a controller pays for it
 * (~400 KiB of code and llhttp's WebAssembly) when it first pulls an image or fetches a catalog, not at start-up.
 */
export function loadUndici(): Promise<Undici> {
  return (loading ??= import('./undici.ts'));
}
