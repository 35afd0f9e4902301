// Bundle images → a directory holding manifests/ and metadata/. See README.md.
export { imageBundleUnpacker } from './unpacker.ts';
