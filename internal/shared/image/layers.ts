// The layer pipeline — sniffing, decompression (gzip, zstd), the tar reader and applyLayer — as one module that
// CachingImagePuller imports on its first unpack (`await import('./layers.ts')`): a controller that starts, or serves
// from its cache, never loads it (~40 KiB less to parse at start-up, measured by bench/footprint.ts). Other folders
// reach it through `loadLayerPipeline()` (load-layers.ts, on the face); nothing may import these modules
// statically, or the bundles (cmd/bundle.ts) load them at start again.
export { applyLayer, newUnpackState, PathSelector, verifySymlinks } from './apply.ts';
export { decompressedStream, sniffCompression, sniffFile } from './compression.ts';
