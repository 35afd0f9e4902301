// catalogd's entry: node's root certificates start parsing on another thread (internal/shared/warmup), then the binary
// (run.ts) is imported — dynamically, so the parse goes on while the rest of the program loads.
import { warmRootCertificates } from '../../internal/shared/warmup/index.ts';

warmRootCertificates();
await import('./run.ts');
