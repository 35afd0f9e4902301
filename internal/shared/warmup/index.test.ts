import { once } from 'node:events';
import { createSecureContext, rootCertificates } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { warmRootCertificates } from './index.ts';

describe('warmRootCertificates', () => {
  it('parses the root certificates on a worker that ends cleanly', async () => {
    const worker = warmRootCertificates();
    expect(worker).toBeDefined();
    const [code] = (await once(worker!, 'exit')) as [number];
    expect(code).toBe(0);
    // the main thread's contexts work as before, with the cluster's CA or node's roots
    expect(() => createSecureContext({ ca: [rootCertificates[0]!] })).not.toThrow();
    expect(() => createSecureContext()).not.toThrow();
  });
});
