// Bundle images → a directory holding manifests/ and metadata/. See README.md.
export { BUNDLE_PATHS, imageBundleUnpacker } from './unpacker.ts';
