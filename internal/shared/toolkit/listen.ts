// Binding a node:net server (node:http, node:https, node:tls) and naming where it listens.
import { once } from 'node:events';
import type { Server } from 'node:net';

/**
 * Listens on `host:port` (port 0: a free one); rejects with the bind error (EADDRINUSE, EACCES, …). Resolves the
 * bound port and `host:port` as a URL writes it (an IPv6 address in brackets). `what` names the server in the error
 * of a bind that is not a TCP address.
 */
export async function listen(server: Server, host: string, port: number, what: string): Promise<{ port: number; hostPort: string }> {
  server.listen({ host, port });
  await once(server, 'listening');
  const bound = server.address();
  if (bound === null || typeof bound === 'string') throw new Error(`${what} bound to unexpected address ${String(bound)}`);
  return { port: bound.port, hostPort: `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}` };
}
