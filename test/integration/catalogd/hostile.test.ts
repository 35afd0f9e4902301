// Hostile catalog images through catalogd: every refusal shows up on Progressing with a message
// naming the layer and the entry (Retrying by tag, Blocked by digest), nothing is written
// anywhere but the cache directory, and a failed unpack leaves no trace in the catalog's cache.
import { lstat, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../support/env.ts';
import { HOSTILE_ENTRIES, pushCatalogImage, zeroFileGzipLayer, type LayerSpec } from '../../support/images.ts';
import {
  condition,
  createCatalog,
  deleteCatalogs,
  entries,
  fbc,
  progressing,
  releaseFinalizers,
  uniqueName,
  waitForCatalog,
} from './catalogs.ts';
import { startCatalogd, stopAll, type RunningCatalogd } from './harness.ts';

const LIMIT = 64 << 20;
const MAX_FILES = 50;
const created = new Set<string>();
let cd: RunningCatalogd;

beforeAll(async () => {
  cd = await startCatalogd({ options: { unpackLimits: { maxBytes: LIMIT }, maxCatalogFiles: MAX_FILES } });
});
afterAll(async () => {
  await deleteCatalogs(created);
  await stopAll();
  await releaseFinalizers();
});

interface Case {
  readonly name: string;
  readonly layer: LayerSpec;
  /** Pin by digest (Blocked) or use the tag (Retrying). */
  readonly pinned: boolean;
  /** The part of the message after `layer <digest>: ` (with `tail`: its start, followed by what `tail` matches). */
  readonly says: string;
  readonly tail?: string;
}

const cases: readonly Case[] = [
  { name: 'traversal', layer: { entries: HOSTILE_ENTRIES.traversal! }, pinned: false, says: 'refusing entry "configs/../../../../evil": path contains ".." (path traversal)' },
  { name: 'etc-symlink', layer: { entries: HOSTILE_ENTRIES.absoluteSymlink! }, pinned: true, says: 'refusing entry "configs/etc": absolute symlink target "/etc"' },
  {
    name: 'hardlink',
    layer: { entries: HOSTILE_ENTRIES.hardlinkEscape! },
    pinned: false,
    says: 'refusing entry "configs/passwd": hardlink target "../../../../etc/passwd" contains ".." (path traversal)',
  },
  { name: 'device', layer: { entries: HOSTILE_ENTRIES.charDevice! }, pinned: true, says: 'refusing entry "configs/null": character device files are not allowed' },
  {
    name: 'bomb',
    layer: zeroFileGzipLayer(10 * 1024 ** 3, 'configs/huge'),
    pinned: false,
    says: `entry "configs/huge": decompressed size would exceed the limit of ${LIMIT} bytes: `,
    tail: '\\d+ bytes read before this entry \\+ its declared size of 10737418240 bytes = \\d+',
  },
  {
    name: 'bomb-skipped',
    layer: zeroFileGzipLayer(10 * 1024 ** 3, 'usr/share/huge'),
    pinned: true,
    says: `entry "usr/share/huge": decompressed size would exceed the limit of ${LIMIT} bytes: `,
    tail: '\\d+ bytes read before this entry \\+ its declared size of 10737418240 bytes = \\d+',
  },
  {
    name: 'files',
    layer: { entries: Array.from({ length: MAX_FILES + 10 }, (_, i) => ({ path: `configs/many/f${String(i).padStart(3, '0')}.json`, content: '{}' })) },
    pinned: true,
    says: 'entry "configs/many/',
    tail: `f\\d+\\.json": number of files \\(${MAX_FILES + 1}\\) exceeds the limit of ${MAX_FILES}; catalogd's limit per catalog, set with its --max-catalog-files flag`,
  },
];

/** Every path under `dir` (symlinks not followed), with link targets. */
async function walk(dir: string, out: string[] = []): Promise<string[]> {
  // Retries by tag unpack into .tmp-* dirs and remove them while this walks: skip what vanished.
  const gone = (err: unknown): undefined => {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  };
  for (const name of (await readdir(dir).catch(gone)) ?? []) {
    const p = join(dir, name);
    const st = await lstat(p).catch(gone);
    if (!st) continue;
    out.push(st.isSymbolicLink() ? `${p} -> ${(await readlink(p).catch(gone)) ?? "(gone)"}` : p);
    if (st.isDirectory()) await walk(p, out);
  }
  return out;
}

describe('hostile catalog images', () => {
  it('are refused with a message naming the layer and the entry; nothing escapes the cache directory', async () => {
    const pushed = await Promise.all(
      cases.map((c) =>
        pushCatalogImage(registry(), `catalogd/hostile-${c.name}:v1`, { files: fbc('ok', ['1.0.0']) }, { extraLayers: [c.layer] }),
      ),
    );
    const names = await Promise.all(
      cases.map(async (c, i) => {
        const name = uniqueName(`hostile-${c.name}`);
        created.add(name);
        await createCatalog(name, { ref: c.pinned ? pushed[i]!.digestRef : pushed[i]!.ref });
        return name;
      }),
    );
    for (const [i, c] of cases.entries()) {
      const bad = pushed[i]!.layers[1]!.digest;
      const text = `source catalog content: layer ${bad}: ${c.says}`;
      const message = c.tail ? new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}${c.tail}$`) : text;
      const got = await waitForCatalog(names[i]!, c.pinned ? 'Blocked' : 'Retrying', progressing(c.pinned ? 'Blocked' : 'Retrying', message));
      expect(condition(got, 'Progressing')?.status).toBe(c.pinned ? 'False' : 'True');
      expect(condition(got, 'Serving')).toBeUndefined();
      expect(got.status?.resolvedSource).toBeUndefined();
      // Failed unpacks leave no entry (a retry by tag may be unpacking into a .tmp-* right now).
      expect((await entries(join(cd.cacheDir, 'unpack', names[i]!))).filter((e) => !e.startsWith('.tmp-'))).toEqual([]);
    }
    expect(await entries(cd.sandbox)).toEqual(['cache']);
    // Every event re-reconciles, so the pinned "files" image may be unpacking again into a top-level
    // .tmp-* right now: its legitimate configs/many/fNNN.json files are the only names allowed to match.
    const inFlight = /\/\.tmp-[^/]+\/fs\/configs\/many(\/f\d+\.json)?$/;
    const everything = await walk(cd.cacheDir);
    expect(everything.filter((p) => /evil|passwd|\/etc|\/null|huge|many/.test(p) && !inFlight.test(p))).toEqual([]);
  });
});
