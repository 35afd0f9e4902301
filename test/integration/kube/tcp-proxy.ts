// A loopback TCP proxy in front of the API server, to cut a client off (down/up: connections
// refused, as when a network path is gone) or to freeze its open connections (bytes stop
// flowing but nothing closes, as with a half-dead NAT entry) while the server stays healthy.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { once } from 'node:events';

interface Pair {
  readonly client: Socket;
  readonly upstream: Socket;
}

export class TcpProxy {
  readonly port: number;
  /** Connections accepted so far. */
  accepted = 0;
  readonly #targetPort: number;
  readonly #pairs = new Set<Pair>();
  readonly #frozen = new Set<Pair>();
  #server: Server | undefined;

  private constructor(port: number, targetPort: number) {
    this.port = port;
    this.#targetPort = targetPort;
  }

  static async start(port: number, targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(port, targetPort);
    await proxy.up();
    return proxy;
  }

  /** Accepts connections again. */
  async up(): Promise<void> {
    if (this.#server) return;
    const server = createServer((client) => {
      this.accepted++;
      const upstream = connect(this.#targetPort, '127.0.0.1');
      const pair = { client, upstream };
      this.#pairs.add(pair);
      const end = (): void => {
        client.destroy();
        upstream.destroy();
        this.#pairs.delete(pair);
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.#server = server;
  }

  /** Stops listening and drops every connection: clients see resets, then refusals. */
  async down(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const p of this.#pairs) {
      p.client.destroy();
      p.upstream.destroy();
    }
    this.#pairs.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Open connections stop forwarding bytes but stay open; new connections work normally. */
  freeze(): number {
    for (const { client, upstream } of this.#pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
    const frozen = this.#pairs.size;
    for (const p of this.#pairs) this.#frozen.add(p);
    this.#pairs.clear(); // set aside, not closed: down() leaves them hanging too
    return frozen;
  }

  /** Stops everything, frozen connections included. */
  async close(): Promise<void> {
    for (const p of this.#frozen) {
      p.client.destroy();
      p.upstream.destroy();
    }
    this.#frozen.clear();
    await this.down();
  }
}
