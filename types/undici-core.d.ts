// Typings for the undici 7 core files internal/shared/http/undici.ts imports one by one (undici ships .d.ts only
// for its index). Each is undici's own type for what the CommonJS file assigns to `module.exports`.
declare module 'undici/lib/dispatcher/dispatcher.js' {
  import { Dispatcher } from 'undici';
  export = Dispatcher;
}
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export = Agent;
}
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import { EnvHttpProxyAgent } from 'undici';
  export = EnvHttpProxyAgent;
}
declare module 'undici/lib/api/index.js' {
  import type { Dispatcher } from 'undici';
  /** The methods undici's index assigns onto `Dispatcher.prototype` (`this` is the dispatcher). */
  const api: Pick<Dispatcher, 'request' | 'stream' | 'pipeline' | 'upgrade' | 'connect'>;
  export = api;
}
declare module 'undici/lib/global.js' {
  export { getGlobalDispatcher, setGlobalDispatcher } from 'undici';
}
declare module 'undici/lib/core/util.js' {
  /** A string or URL as undici's top-level API reads it (http/https only; undici's InvalidArgumentError otherwise). */
  export function parseURL(url: string | URL): URL;
}
