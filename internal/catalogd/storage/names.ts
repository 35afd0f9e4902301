// Catalog names and image digests as path components. A ClusterCatalog's name is a DNS-1123
// subdomain (k8s validation.IsDNS1123Subdomain, exact messages, as the catalog server reports
// them); a digest `<algorithm>:<encoded>` becomes the two directories `<algorithm>/<encoded>`.

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

/** validation.IsDNS1123Subdomain: the problems with `value` (empty when it is valid). */
export function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  // Go's len() counts bytes.
  if (Buffer.byteLength(value, 'utf8') > DNS1123_SUBDOMAIN_MAX_LENGTH) {
    errs.push(`must be no more than ${DNS1123_SUBDOMAIN_MAX_LENGTH} characters`);
  }
  if (!DNS1123_SUBDOMAIN.test(value)) {
    errs.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character " +
        `(e.g. 'example.com', regex used for validation is '${DNS1123_SUBDOMAIN_FMT}')`,
    );
  }
  return errs;
}

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
