// Catalog names and image digests as path components. A ClusterCatalog's name is a DNS-1123
// subdomain (k8s validation.IsDNS1123Subdomain, exact messages, as the catalog server reports
// them); a digest `<algorithm>:<encoded>` becomes the two directories `<algorithm>/<encoded>`.

import { dns1123SubdomainErrors } from '../../shared/gocompat/index.ts';

/** validation.IsDNS1123Subdomain: the problems with `value` (empty when it is valid). */
export { dns1123SubdomainErrors };

/** True for a valid catalog name (which is then a single, safe path component). */
export function isCatalogName(value: string): boolean {
  return dns1123SubdomainErrors(value).length === 0;
}

// OCI image-spec digest grammar: algorithm ":" encoded.
const DIGEST = /^([a-z0-9]+(?:[+._-][a-z0-9]+)*):([a-zA-Z0-9=_-]+)$/;

/** `sha256:abc…` → `sha256/abc…`; throws for anything that is not a digest. */
export function digestPath(digest: string): string {
  const m = DIGEST.exec(digest);
  if (!m) throw new Error(`invalid digest ${JSON.stringify(digest)}`);
  return `${m[1]}/${m[2]}`;
}
