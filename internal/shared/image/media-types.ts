// OCI image-spec and Docker distribution media types, and what each kind of document may be.

export const MediaTypes = {
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociConfig: 'application/vnd.oci.image.config.v1+json',
  ociLayer: 'application/vnd.oci.image.layer.v1.tar',
  ociLayerGzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
  dockerManifestList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerSchema1: 'application/vnd.docker.distribution.manifest.v1+json',
  dockerSchema1Signed: 'application/vnd.docker.distribution.manifest.v1+prettyjws',
} as const;

/** What a registry is asked for on every manifest GET, most preferred first. */
export const MANIFEST_ACCEPT: readonly string[] = [
  MediaTypes.ociIndex,
  MediaTypes.ociManifest,
  MediaTypes.dockerManifestList,
  MediaTypes.dockerManifest,
];

export const isIndexMediaType = (mt: string): boolean =>
  mt === MediaTypes.ociIndex || mt === MediaTypes.dockerManifestList;

export const isImageManifestMediaType = (mt: string): boolean =>
  mt === MediaTypes.ociManifest || mt === MediaTypes.dockerManifest;

/**
 * Layer media types that carry a (possibly compressed) tar. The compression is sniffed from
 * the bytes either way; the media type only decides whether the blob is a filesystem layer.
 */
export function isTarLayerMediaType(mt: string): boolean {
  if (mt.startsWith('application/vnd.docker.image.rootfs.')) return mt.endsWith('.tar.gzip') || mt.endsWith('.tar');
  if (mt.startsWith('application/vnd.oci.image.layer.')) {
    return /\.tar(\+(gzip|zstd))?$/.test(mt);
  }
  return false;
}
