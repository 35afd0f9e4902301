// Catalog and bundle directories as the images catalogd and operator-controller pull, pushed
// straight to a registry: what `opm` + `podman build/push` (catalogs) and `operator-sdk bundle`
// + `docker build/push` (bundles) do upstream, without a container engine.
//
//   catalog image: one layer, the FBC under /configs; label operators.operatorframework.io.index.configs.v1=/configs
//   bundle image:  one layer, /manifests and /metadata; every metadata/annotations.yaml annotation as a label
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { validateDirectory } from '../shared/fbc/index.ts';
import {
  buildImage,
  CATALOG_CONFIGS_LABEL,
  pushImage,
  type BuildImageOptions,
  type ImageReference,
  type Platform,
  type PushImageOptions,
  type PushResult,
  type RegistryClient,
} from '../shared/image/index.ts';
import { BundleLoadError, PACKAGE_ANNOTATION, readBundleAnnotations } from '../shared/registryv1/index.ts';

export const CATALOG_CONFIGS_DIR = '/configs';
export const BUNDLE_MEDIATYPE_ANNOTATION = 'operators.operatorframework.io.bundle.mediatype.v1';
export const REGISTRY_V1 = 'registry+v1';

/** A directory that cannot be published as asked: an invalid catalog, or not a bundle. One line (or opm's error tree). */
export class PublishContentError extends Error {
  override readonly name = 'PublishContentError';
}

export interface PublishOptions extends PushImageOptions {
  readonly client: RegistryClient;
  /** The image config's platform (default linux/amd64). */
  readonly platform?: Platform;
}

const isDirectory = async (path: string): Promise<boolean> => (await stat(path).catch(() => undefined))?.isDirectory() === true;

/** The image a catalog directory becomes. Throws PublishContentError with `opm validate`'s message when invalid. */
export async function catalogImage(dir: string): Promise<BuildImageOptions> {
  if (!(await isDirectory(dir))) throw new PublishContentError(`${dir} is not a directory`);
  const problem = await validateDirectory(dir);
  if (problem !== undefined) throw new PublishContentError(problem);
  return { layers: [{ dir, prefix: CATALOG_CONFIGS_DIR }], labels: { [CATALOG_CONFIGS_LABEL]: CATALOG_CONFIGS_DIR } };
}

/** The image a registry+v1 bundle directory becomes. Throws PublishContentError when it is not one. */
export async function bundleImage(dir: string): Promise<BuildImageOptions> {
  if (!(await isDirectory(dir))) throw new PublishContentError(`${dir} is not a directory`);
  const notBundle = (why: string): PublishContentError => new PublishContentError(`${dir} is not a registry+v1 bundle: ${why}`);
  let annotations: Record<string, string>;
  try {
    annotations = await readBundleAnnotations(dir);
  } catch (err) {
    if (err instanceof BundleLoadError) throw notBundle('it has no metadata/annotations.yaml');
    throw new PublishContentError(`${join(dir, 'metadata', 'annotations.yaml')}: ${(err as Error).message.split('\n')[0]!}`);
  }
  if (!(await isDirectory(join(dir, 'manifests')))) throw notBundle('it has no manifests/ directory');
  const mediaType = annotations[BUNDLE_MEDIATYPE_ANNOTATION];
  if (mediaType !== undefined && mediaType !== REGISTRY_V1) {
    throw notBundle(`metadata/annotations.yaml sets ${BUNDLE_MEDIATYPE_ANNOTATION} to ${JSON.stringify(mediaType)}`);
  }
  if (!annotations[PACKAGE_ANNOTATION]) throw notBundle(`metadata/annotations.yaml has no ${PACKAGE_ANNOTATION} annotation`);
  return { layers: [{ dir, include: ['manifests', 'metadata'] }], labels: annotations };
}

async function publish(image: BuildImageOptions, ref: ImageReference, options: PublishOptions): Promise<PushResult> {
  const { client, platform, ...ctx } = options;
  const built = await buildImage({
    ...image,
    ...(platform && { platform }),
    ...(ctx.signal && { signal: ctx.signal }),
  });
  try {
    return await pushImage(client, ref, built, ctx);
  } finally {
    await built.dispose();
  }
}

/** Validates the catalog in `dir`, builds its image and pushes it to `ref` (a tag). */
export async function publishCatalog(dir: string, ref: ImageReference, options: PublishOptions): Promise<PushResult> {
  return publish(await catalogImage(dir), ref, options);
}

/** Builds the image of the registry+v1 bundle in `dir` and pushes it to `ref` (a tag). */
export async function publishBundle(dir: string, ref: ImageReference, options: PublishOptions): Promise<PushResult> {
  return publish(await bundleImage(dir), ref, options);
}
