import { describe, expect, it } from 'vitest';
import { msg } from './messages.ts';

// upstream's texts (catalogmetadata/client/client.go, cache/cache.go, controllers/clustercatalog_controller.go)
describe('messages', () => {
  it.each([
    [msg.notServed('c'), 'catalog "c" is not being served'],
    [msg.nilResolvedSource('c'), 'error: catalog "c" has a nil status.resolvedSource value'],
    [msg.nilResolvedImage('c'), 'error: catalog "c" has a nil status.resolvedSource.image value'],
    [msg.nilUrls('c'), 'error: catalog "c" has a nil status.urls value'],
    [msg.cacheNotFound('c'), 'cache for catalog "c" not found'],
    [msg.retrievingCache('c', 'boom'), 'error retrieving cache for catalog "c": boom'],
    [msg.unexpectedStatus(404), 'error: received unexpected response status code 404'],
    [msg.formingEndpoint('boom'), 'error forming catalogd API endpoint: boom'],
    [msg.performingRequest('boom'), 'error performing request: boom'],
    [msg.parsingContents('boom'), 'error parsing catalog contents: boom'],
    [msg.creatingCacheDir('boom'), 'error creating temporary directory to unpack catalog metadata: boom'],
    [msg.writingCache('boom'), 'error writing catalog metadata to file: boom'],
    [msg.populating('c', 'boom'), 'error populating cache for catalog "c": boom'],
  ])('%s', (got, want) => {
    expect(got).toBe(want);
  });
});
