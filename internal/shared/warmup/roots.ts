// warmRootCertificates: node's bundled root certificates parsed on a worker thread while the program loads.
import { Worker } from 'node:worker_threads';

/** The worker's whole program: node's default context, which parses the bundled roots. */
const PARSE_ROOTS = "require('node:tls').createSecureContext();";

/**
 * Any TLS context node makes — the Kubernetes client's (given the cluster's CA), a registry client's — makes node parse
 * its ~140 bundled root certificates first (Node 20: 60–70 ms here, once per process, on the calling thread, under a
 * process-wide lock). A worker thread that makes a context right away does that parse while the main thread loads the
 * program; the main thread's first context then only copies the parsed certificates (~1 ms), or waits on the lock
 * for the rest of the parse. The worker ends when it is done and never holds the process open; if it cannot start,
 * the main thread parses them itself, as it would without this. Returns the worker (undefined when none started).
 */
export function warmRootCertificates(): Worker | undefined {
  try {
    const worker = new Worker(PARSE_ROOTS, { eval: true, stdout: true, stderr: true });
    worker.on('error', () => undefined);
    worker.unref();
    return worker;
  } catch {
    return undefined; // no worker threads (e.g. a resource limit): the first TLS context parses them instead
  }
}
