// catalogd's catalog server over TLS as Go's serves it: upstream's TLS profile, and a plain-HTTP request answered as
// Go's server answers it. The serving certificate is read and reloaded by the shared certificate watcher
// (../../shared/tlsprofile, certwatcher.ts).
import type { Server as NetServer, Socket } from 'node:net';
import { INTERMEDIATE, serverOptions, type TLSProfile } from '../../shared/tlsprofile/index.ts';

/** The five bytes Go's server takes for plain HTTP on a TLS port (net/http `tlsRecordHeaderLooksLikeHTTP`). */
const HTTP_PREFIXES = new Set(['GET /', 'HEAD ', 'POST ', 'PUT /', 'OPTIO']);
/** What Go's server writes back to it before closing the connection. */
export const PLAIN_HTTP_ANSWER = 'HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n';

/**
 * Makes a TLS server answer a plain-HTTP request as Go's does (400 and a one-line body) instead of dropping the
 * connection: each new connection's first bytes are read before the TLS listeners see it; a TLS hello is handed on
 * untouched (put back in the socket's buffer, which the TLS socket consumes first), a plain request is answered.
 * A connection that sends nothing within `timeoutMs` is closed, as the TLS handshake timeout would.
 */
export function answerPlainHttp(server: NetServer, timeoutMs: number): void {
  const tlsListeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    let head: Buffer = Buffer.alloc(0);
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    const done = (): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', done);
    };
    const onData = (chunk: Buffer): void => {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      if (head.length < 5 && head[0] !== 0x16) return; // not a TLS record: wait for enough to tell
      done();
      socket.pause();
      if (HTTP_PREFIXES.has(head.subarray(0, 5).toString('latin1'))) {
        socket.end(PLAIN_HTTP_ANSWER);
        return;
      }
      socket.unshift(head);
      for (const listener of tlsListeners) listener.call(server, socket);
    };
    socket.on('data', onData);
    socket.on('close', done);
    socket.on('error', () => undefined); // a reset before the hand-over is nobody's business
  });
}

/**
 * The server side of upstream catalogd's catalog server: Go's crypto/tls with the TLS profile upstream applies to it
 * (`--tls-profile`, default `intermediate`; ../../shared/tlsprofile `serverOptions`: the suite chosen by Go's
 * preference order, no client certificate asked for).
 */
export function goTLSServer(profile: TLSProfile = INTERMEDIATE): ReturnType<typeof serverOptions> {
  return serverOptions(profile);
}
