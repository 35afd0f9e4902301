// Blob builders for tests, shaped like operator-registry's alpha/declcfg/helpers_test.go
// (newTestPackage, newTestChannel, newTestBundle), so upstream test vectors carry over.
// Not part of the public surface.

import { catalogFromBlobs, type Catalog } from './load.ts';
import { FbcValidationError } from './messages.ts';
import { validate } from './validate.ts';

export type Blob = Record<string, unknown>;

const SVG_SMALL_CIRCLE = '<svg viewBox="0 0 100 100"><circle cx="25" cy="25" r="25"/></svg>';

export const testBundleName = (pkg: string, version: string): string => `${pkg}.v${version}`;
export const testBundleImage = (pkg: string, version: string): string => `${pkg}-bundle:v${version}`;

export function newTestPackage(name: string, defaultChannel: string, extra: Blob = {}): Blob {
  return {
    schema: 'olm.package',
    name,
    defaultChannel,
    icon: { base64data: Buffer.from(SVG_SMALL_CIRCLE).toString('base64'), mediatype: 'image/svg+xml' },
    description: `${name} operator`,
    ...extra,
  };
}

export interface Entry {
  name: string;
  replaces?: string;
  skips?: string[];
  skipRange?: string;
}

export function newTestChannel(pkg: string, name: string, ...entries: Entry[]): Blob {
  return { schema: 'olm.channel', package: pkg, name, entries };
}

export const packageProperty = (packageName: string, version: string, release?: string): Blob => ({
  type: 'olm.package',
  value: release === undefined ? { packageName, version } : { packageName, version, release },
});

const bundleObject = (json: string): Blob => ({ type: 'olm.bundle.object', value: { data: Buffer.from(json).toString('base64') } });

/** A bundle like upstream's newTestBundle: olm.package + two olm.bundle.object properties, sorted by type. */
export function newTestBundle(pkg: string, version: string, mutate?: (b: Blob & { properties: Blob[] }) => void): Blob {
  const name = testBundleName(pkg, version);
  const csv = `{"kind": "ClusterServiceVersion", "apiVersion": "operators.coreos.com/v1alpha1", "metadata":{"name":${JSON.stringify(name)}}}`;
  const b = {
    schema: 'olm.bundle',
    name,
    package: pkg,
    image: testBundleImage(pkg, version),
    properties: [
      packageProperty(pkg, version),
      bundleObject(csv),
      bundleObject('{"kind": "CustomResourceDefinition", "apiVersion": "apiextensions.k8s.io/v1"}'),
    ] as Blob[],
    relatedImages: [{ name: 'bundle', image: testBundleImage(pkg, version) }],
  };
  mutate?.(b);
  b.properties.sort((x, y) => {
    const tx = String(x.type);
    const ty = String(y.type);
    if (tx !== ty) return tx < ty ? -1 : 1;
    const vx = JSON.stringify(x.value);
    const vy = JSON.stringify(y.value);
    return vx < vy ? -1 : vx > vy ? 1 : 0;
  });
  return b;
}

/** A plain bundle (image, one olm.package property, no bundle objects). */
export function plainBundle(pkg: string, version: string, extra: Blob = {}): Blob {
  return {
    schema: 'olm.bundle',
    name: testBundleName(pkg, version),
    package: pkg,
    image: `quay.io/example/${pkg}-bundle:v${version}`,
    properties: [packageProperty(pkg, version)],
    ...extra,
  };
}

/** The message opm would print for these blobs, or undefined when they validate. */
export function validationMessage(blobs: readonly Blob[]): string | undefined {
  const errs = validate(catalogFromBlobs(blobs)).errors;
  return errs[0]?.message;
}

/** The first validation error for these blobs (throws when they validate). */
export function validationError(blobs: readonly Blob[]): FbcValidationError {
  const errs = validate(catalogFromBlobs(blobs)).errors;
  const e = errs[0];
  if (!(e instanceof FbcValidationError)) throw new Error('expected a validation error');
  return e;
}

export function catalogOf(blobs: readonly Blob[]): Catalog {
  return catalogFromBlobs(blobs);
}
