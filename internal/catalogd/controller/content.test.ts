import { chmod, mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RegistryClient, type PulledImage } from '../../shared/image/index.ts';
import { forceRemove } from '../../shared/image/index.ts';
import type { CatalogStore, StoredCatalog } from '../storage/index.ts';
import { createCatalogContent, type CatalogContent } from './content.ts';

const D = (c: string): string => `sha256:${c.repeat(64)}`;

function fakeStore() {
  const stored = new Map<string, string>();
  const calls: string[] = [];
  const store: CatalogStore = {
    async store(name, digest, fbcDir) {
      calls.push(`store ${name} ${digest} ${fbcDir}`);
      stored.set(name, digest);
      return { name, digest } as StoredCatalog;
    },
    get: (name) => (stored.has(name) ? ({ name, digest: stored.get(name)! } as StoredCatalog) : undefined),
    contentExists: async (name, digest) => stored.has(name) && (digest === undefined || stored.get(name) === digest),
    async delete(name) {
      calls.push(`delete ${name}`);
      stored.delete(name);
    },
    async garbageCollect(keep) {
      const gone = [...stored.keys()].filter((n) => !keep.has(n));
      for (const n of gone) stored.delete(n);
      calls.push(`gc ${[...keep].sort().join(',')}`);
      return gone;
    },
  };
  return { store, stored, calls };
}

/** A finished, read-only image cache entry as the puller leaves it. */
async function cacheEntry(unpackDir: string, catalog: string, digest: string): Promise<string> {
  const dir = join(unpackDir, catalog, digest.replace(':', '-'));
  await mkdir(join(dir, 'fs', 'configs'), { recursive: true });
  await writeFile(join(dir, 'fs', 'configs', 'catalog.json'), '{}');
  await writeFile(join(dir, 'meta.json'), '{}');
  await chmod(join(dir, 'fs', 'configs', 'catalog.json'), 0o444);
  await chmod(join(dir, 'fs', 'configs'), 0o555);
  await chmod(join(dir, 'fs'), 0o555);
  return dir;
}

const image = (digest: string, dir = '/nowhere'): PulledImage => ({
  ref: `registry.test/c@${digest}`,
  digestRef: `registry.test/c@${digest}`,
  digest,
  dir,
  configsDir: join(dir, 'configs'),
  labels: {},
  mediaType: 'application/vnd.oci.image.manifest.v1+json',
  unpackedAt: new Date(),
  fromCache: true,
});

let root: string;
let unpackDir: string;
let registry: RegistryClient;
let s: ReturnType<typeof fakeStore>;
let content: CatalogContent;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'catalogd-content-'));
  unpackDir = join(root, 'unpack');
  registry = new RegistryClient({});
  s = fakeStore();
  content = createCatalogContent({ unpackDir, store: s.store, registry });
});
afterEach(async () => {
  await registry.close();
  await forceRemove(root);
});

describe('catalog content', () => {
  it('commit stores the configs dir under the digest, then keeps only that digest in the catalog’s cache', async () => {
    await cacheEntry(unpackDir, 'ops', D('a'));
    const kept = await cacheEntry(unpackDir, 'ops', D('b'));
    await cacheEntry(unpackDir, 'other', D('a'));
    const stored = await content.commit('ops', image(D('b'), join(kept, 'fs')));
    expect(stored?.digest).toBe(D('b'));
    expect(s.calls).toEqual([`store ops ${D('b')} ${join(kept, 'fs', 'configs')}`]);
    expect(await readdir(join(unpackDir, 'ops'))).toEqual([`sha256-${'b'.repeat(64)}`]);
    expect(await readdir(join(unpackDir, 'other'))).toEqual([`sha256-${'a'.repeat(64)}`]); // another catalog's cache is its own
  });

  it('commit does nothing when `still` says the caller’s view went stale', async () => {
    expect(await content.commit('ops', image(D('a')), { still: () => false })).toBeUndefined();
    expect(s.calls).toEqual([]);
  });

  it('commit refuses an image that was not pulled as a catalog', async () => {
    const { configsDir: _drop, ...plain } = image(D('a'));
    await expect(content.commit('ops', plain)).rejects.toThrow(`image registry.test/c@${D('a')} was not pulled as a catalog`);
  });

  it('delete removes the stored content and the whole (read-only) image cache of that catalog only', async () => {
    await cacheEntry(unpackDir, 'ops', D('a'));
    await cacheEntry(unpackDir, 'keep', D('a'));
    await mkdir(join(unpackDir, 'ops', '.tmp-leftover'));
    s.stored.set('ops', D('a'));
    await content.delete('ops');
    expect(s.stored.has('ops')).toBe(false);
    expect(await readdir(unpackDir)).toEqual(['keep']);
  });

  it('garbage collection removes what is not kept, in the store and in the image caches', async () => {
    for (const n of ['live', 'dead-1', 'dead-2']) {
      await cacheEntry(unpackDir, n, D('c'));
      s.stored.set(n, D('c'));
    }
    await mkdir(join(unpackDir, 'Not_A_Catalog'));
    const removed = await content.garbageCollect(() => new Set(['live']));
    expect(removed.sort()).toEqual(['catalogs/dead-1', 'catalogs/dead-2', 'unpack/Not_A_Catalog', 'unpack/dead-1', 'unpack/dead-2']);
    expect(await readdir(unpackDir)).toEqual(['live']);
    expect([...s.stored.keys()]).toEqual(['live']);
  });

  it('serialises changes: a commit queued after a collection sees its result', async () => {
    const order: string[] = [];
    const gc = content.garbageCollect(() => {
      order.push('gc');
      return new Set();
    });
    const commit = content.commit('ops', image(D('a')), {
      still: () => {
        order.push('commit');
        return false;
      },
    });
    await Promise.all([gc, commit]);
    expect(order).toEqual(['gc', 'commit']);
  });

  it('refuses catalog names that are not one safe path component', async () => {
    await expect(content.pull('../etc', 'registry.test/c:latest')).rejects.toThrow('invalid catalog name "../etc"');
  });
});
