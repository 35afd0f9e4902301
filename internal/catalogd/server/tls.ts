// catalogd's catalog server over TLS as Go's serves it: upstream's TLS profile, and a plain-HTTP request answered as
// Go's server answers it. The serving certificate is read and reloaded by the shared certificate watcher
// (../../shared/tlsprofile, certwatcher.ts).
import { constants } from 'node:crypto';
import type { Server as NetServer, Socket } from 'node:net';
import { INTERMEDIATE, cipherList, ecdhCurve } from '../../shared/tlsprofile/index.ts';

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
 * The server side of upstream catalogd's catalog server: Go's crypto/tls with the default TLS profile (`intermediate`,
 * ../../shared/tlsprofile) that upstream applies to it — TLS 1.2 and 1.3; TLS 1.3 AES-128-GCM first, AES-256-GCM,
 * ChaCha20-Poly1305; TLS 1.2 only ECDHE with AES-GCM or ChaCha20-Poly1305 (no CBC suites, which Go alone would also
 * offer); key exchange X25519MLKEM768 (when this Node's OpenSSL has it), X25519, P-256, P-384 (no P-521). The server
 * chooses as Go's does: a client that lists ChaCha20 first (no AES hardware) gets ChaCha20, as Go's `aesgcmPreferred`
 * gives it (OpenSSL's PRIORITIZE_CHACHA); otherwise AES-128 first, whatever the client's order (Node alone would take
 * the client's order, which for OpenSSL and Node clients puts AES-256 first: 14 AES rounds per block against 10, ~5%
 * more server CPU per byte served here, and more for the client).
 * No client certificate is asked for (Go's NoClientCert), so the context gets an empty trust store (`ca: []`) instead
 * of node's default one, whose ~140 bundled root certificates take 60–70 ms to parse (Node 20 still parses them once
 * per process for the Kubernetes client's context, which is given the cluster's CA).
 * Given to the server and again to each reloaded context (setSecureContext starts from node's defaults).
 */
export const GO_TLS_SERVER = {
  minVersion: INTERMEDIATE.minVersion,
  ciphers: cipherList(INTERMEDIATE),
  ecdhCurve: ecdhCurve(INTERMEDIATE),
  honorCipherOrder: true,
  secureOptions: constants.SSL_OP_PRIORITIZE_CHACHA,
  ca: [] as Buffer[],
};
