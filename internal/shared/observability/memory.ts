// Memory given back after a large, rare batch of work: a catalog pulled, parsed and stored leaves ~30 MiB of
// buffers and ~20 MiB of heap garbage at once. V8 collects it only at its next major GC, which in an idle
// controller comes 10–20 s later, and glibc keeps much of what was freed: catalogd held 125 MiB at Serving and
// 104 MiB after that GC against 71 MiB before the catalog (bench/catalogd-peer.ts, issue 17). A full collection
// right after the batch, with glibc's mmap threshold fixed (cmd/entrypoint.sh sets MALLOC_MMAP_THRESHOLD_, so
// big buffers are mapped and unmapped instead of kept in its heap), brings it to 88 MiB at once. A full GC of
// a controller's heap takes ~10–30 ms; a batch this big comes once per catalog content change.
//
// Only when node runs with --expose-gc (cmd/entrypoint.sh passes it); otherwise this does nothing.
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
