// Every message of the content client. Texts are upstream's (operator-controller
// `catalogmetadata/client/client.go`, `catalogmetadata/cache/cache.go` and
// `controllers/clustercatalog_controller.go`); `messages.test.ts` pins them.

const q = (s: string): string => JSON.stringify(s); // Go's %q for the names catalogs may have

export const msg = {
  notServed: (catalog: string) => `catalog ${q(catalog)} is not being served`,
  nilResolvedSource: (catalog: string) => `error: catalog ${q(catalog)} has a nil status.resolvedSource value`,
  nilResolvedImage: (catalog: string) => `error: catalog ${q(catalog)} has a nil status.resolvedSource.image value`,
  nilUrls: (catalog: string) => `error: catalog ${q(catalog)} has a nil status.urls value`,
  cacheNotFound: (catalog: string) => `cache for catalog ${q(catalog)} not found`,
  retrievingCache: (catalog: string, err: string) => `error retrieving cache for catalog ${q(catalog)}: ${err}`,
  unexpectedStatus: (code: number) => `error: received unexpected response status code ${code}`,
  formingEndpoint: (err: string) => `error forming catalogd API endpoint: ${err}`,
  performingRequest: (err: string) => `error performing request: ${err}`,
  parsingContents: (err: string) => `error parsing catalog contents: ${err}`,
  creatingCacheDir: (err: string) => `error creating temporary directory to unpack catalog metadata: ${err}`,
  writingCache: (err: string) => `error writing catalog metadata to file: ${err}`,
  populating: (catalog: string, err: string) => `error populating cache for catalog ${q(catalog)}: ${err}`,
} as const;

/** A failure of the content client; `message` is upstream's text. */
export class ContentClientError extends Error {
  override readonly name = 'ContentClientError';
}

