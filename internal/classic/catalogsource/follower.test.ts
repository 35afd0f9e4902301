import { describe, expect, it } from 'vitest';
import type { CatalogSource } from '../../../api/operators/index.ts';
import type { CatalogContent } from './content.ts';
import { newContentFollower } from './follower.ts';
import { CatalogRefusedError, type AddressSources, type ImageSources, type LoadedImage } from './sources.ts';

const signal = new AbortController().signal;
const content = (origin: string): CatalogContent => ({ origin, loadedAt: '2026-01-01T00:00:00Z', packages: [], bundles: [] }) as unknown as CatalogContent;

/** ImageSources over a table of tag → digest: what was asked for, what is held. */
function images(digests: Map<string, string>, refuse = new Set<string>()) {
  const held = new Map<string, LoadedImage>();
  const loads: string[] = [];
  const removed: string[] = [];
  const src: ImageSources = {
    current: (key) => held.get(key),
    load(key, image) {
      loads.push(`${key} ${image}`);
      const digest = digests.get(image)!;
      const cur = held.get(key);
      if (cur?.image === image && cur.digest === digest) return Promise.resolve({ loaded: false });
      if (refuse.has(digest)) return Promise.reject(new CatalogRefusedError(image, `${image}@${digest}`, 'bad'));
      held.set(key, { image, digest, content: content(`${image}@${digest}`) });
      return Promise.resolve({ loaded: true });
    },
    refused: () => undefined,
    remove(key) {
      removed.push(key);
      held.delete(key);
    },
  };
  return { src, held, loads, removed };
}

function addresses(): AddressSources & { readonly ensured: string[] } {
  const ensured: string[] = [];
  return {
    ensured,
    ensure(key, address) {
      ensured.push(`${key} ${address}`);
      return { address, state: 'CONNECTING', lastChange: new Date(0) };
    },
    needsSnapshot: () => false,
    snapshot: () => Promise.resolve(),
    content: () => undefined,
    remove: () => undefined,
    close: () => undefined,
  };
}

const cs = (spec: Partial<CatalogSource['spec']>, lastConnect?: string): CatalogSource =>
  ({
    metadata: { name: 'c', namespace: 'ns' },
    spec: { sourceType: 'grpc', ...spec },
    ...(lastConnect && { status: { connectionState: { lastObservedState: 'READY', lastConnect } } }),
  }) as CatalogSource;

function follower(objs: Map<string, CatalogSource>, src: ImageSources, addr: AddressSources, leading = () => false) {
  return newContentFollower({
    catalogSources: { get: (k) => objs.get(k), keys: () => [...objs.keys()], onEvent: () => () => undefined, waitForSync: () => Promise.resolve() },
    images: src,
    addresses: addr,
    leading,
  });
}

describe('content follower', () => {
  it('loads spec.image once, and pulls the tag again only when the leader’s lastConnect moves', async () => {
    const digests = new Map([['reg/cat:v1', 'sha256:a']]);
    const img = images(digests);
    const objs = new Map([['ns/c', cs({ image: 'reg/cat:v1' }, 't1')]]);
    const f = follower(objs, img.src, addresses());
    await f.reconcile('ns/c', signal);
    await f.reconcile('ns/c', signal);
    expect(img.loads).toEqual(['ns/c reg/cat:v1']);
    expect(img.held.get('ns/c')?.digest).toBe('sha256:a');

    // The leader's poll found a new digest under the tag: its lastConnect moved.
    digests.set('reg/cat:v1', 'sha256:b');
    objs.set('ns/c', cs({ image: 'reg/cat:v1' }, 't2'));
    await f.reconcile('ns/c', signal);
    expect(img.held.get('ns/c')?.digest).toBe('sha256:b');

    // spec.image changes: loaded at once.
    digests.set('reg/cat:v2', 'sha256:c');
    objs.set('ns/c', cs({ image: 'reg/cat:v2' }, 't2'));
    await f.reconcile('ns/c', signal);
    expect(img.held.get('ns/c')?.digest).toBe('sha256:c');
    expect(img.loads).toHaveLength(3);
  });

  it('keeps the last good content when the new digest is refused, and does not retry until the leader’s content changes', async () => {
    const digests = new Map([['reg/cat:v1', 'sha256:a']]);
    const img = images(digests, new Set(['sha256:bad']));
    const objs = new Map([['ns/c', cs({ image: 'reg/cat:v1' }, 't1')]]);
    const f = follower(objs, img.src, addresses());
    await f.reconcile('ns/c', signal);
    digests.set('reg/cat:v1', 'sha256:bad');
    objs.set('ns/c', cs({ image: 'reg/cat:v1' }, 't2'));
    expect(await f.reconcile('ns/c', signal)).toBeUndefined();
    await f.reconcile('ns/c', signal);
    expect(img.loads).toHaveLength(2);
    expect(img.held.get('ns/c')?.digest).toBe('sha256:a');
  });

  it('stands aside while this replica leads; drops content of a CatalogSource gone or not grpc', async () => {
    const img = images(new Map([['reg/cat:v1', 'sha256:a']]));
    const objs = new Map([['ns/c', cs({ image: 'reg/cat:v1' })]]);
    let leads = true;
    const f = follower(objs, img.src, addresses(), () => leads);
    await f.reconcile('ns/c', signal);
    expect(img.loads).toEqual([]);
    leads = false;
    await f.reconcile('ns/c', signal);
    expect(img.held.has('ns/c')).toBe(true);
    objs.set('ns/c', cs({ sourceType: 'configmap', configMap: 'x' }));
    await f.reconcile('ns/c', signal);
    expect(img.held.has('ns/c')).toBe(false);
    objs.delete('ns/c');
    await f.reconcile('ns/c', signal);
    expect(img.removed).toEqual(['ns/c', 'ns/c']);
  });

  it('spec.address: its own channel, re-checked as the leader does', async () => {
    const addr = addresses();
    const objs = new Map([['ns/c', cs({ address: 'reg:50051' })]]);
    const f = follower(objs, images(new Map()).src, addr);
    expect(await f.reconcile('ns/c', signal)).toEqual({ requeueAfterMs: 10_000 });
    expect(addr.ensured).toEqual(['ns/c reg:50051']);
  });
});
