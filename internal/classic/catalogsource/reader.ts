// A CatalogSource's content read outside the controller (the CLI's resolve and upgrade-check): spec.image pulled
// with the shared image client into a private cache, spec.address read over the registry API. Each source is read
// once per reader; close() removes the cache.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CatalogSource } from '../../../api/operators/index.ts';
import type { RegistryClient as ImageRegistry } from '../../shared/image/index.ts';
import { RegistryClient } from '../registryclient/index.ts';
import { contentFromRegistry, type CatalogContent } from './content.ts';
import { imageSources, type ImageSources } from './sources.ts';
import { realClock, type Clock } from '../../shared/toolkit/index.ts';

export interface CatalogSourceReader {
  content(cs: CatalogSource, signal?: AbortSignal): Promise<CatalogContent>;
  close(): Promise<void>;
}

export interface CatalogSourceReaderOptions {
  readonly registry: ImageRegistry;
  readonly platform?: string;
  /** The time content is said to be read at; default the toolkit's realClock. */
  readonly clock?: Clock;
}

export function catalogSourceReader(o: CatalogSourceReaderOptions): CatalogSourceReader {
  let cache: Promise<{ dir: string; images: ImageSources }> | undefined;
  const images = (): Promise<{ dir: string; images: ImageSources }> =>
    (cache ??= mkdtemp(join(tmpdir(), 'olm-catalogsources-')).then((dir) => ({
      dir,
      images: imageSources({ cacheDir: dir, registry: o.registry, ...(o.platform && { platform: o.platform }), ...(o.clock && { clock: o.clock }) }),
    })));
  const loaded = new Map<string, Promise<CatalogContent>>();
  return {
    content(cs, signal) {
      const key = `${cs.metadata.namespace ?? ''}/${cs.metadata.name ?? ''}`;
      let p = loaded.get(key);
      if (!p) {
        p = (async () => {
          if (cs.spec.image) {
            const { images: src } = await images();
            await src.load(key, cs.spec.image, signal);
            return src.current(key)!.content;
          }
          if (cs.spec.address) {
            const grpc = new RegistryClient(cs.spec.address, { timeoutMs: 30_000 }); // gRPC deadline per call
            try {
              return await contentFromRegistry(grpc, cs.spec.address, (o.clock ?? realClock).date());
            } finally {
              grpc.close();
            }
          }
          throw new Error(`CatalogSource ${key} has neither spec.image nor spec.address`);
        })();
        loaded.set(key, p);
      }
      return p;
    },
    async close() {
      if (cache) await rm((await cache).dir, { recursive: true, force: true });
    },
  };
}
