// Hostile images pushed to the real registry: every one is refused with a message naming the
// layer and the entry, nothing lands outside the cache directory, and a failed unpack leaves
// no trace in the cache.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UnpackLimitError, UnsafeLayerEntryError } from '../../../internal/shared/image/index.ts';
import { registry } from '../../support/env.ts';
import { CATALOG_LABEL, HOSTILE_ENTRIES, pushImage, zeroFileGzipLayer } from '../../support/images.ts';
import { rejectionOf, sandbox, type Sandbox } from './support.ts';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const cases: { name: string; entry: string; reason: string }[] = [
  { name: 'traversal', entry: 'configs/../../../../evil', reason: 'path contains ".." (path traversal)' },
  { name: 'dotdotPrefix', entry: '../../../evil', reason: 'path contains ".." (path traversal)' },
  { name: 'absoluteSymlink', entry: 'configs/etc', reason: 'absolute symlink target "/etc"' },
  { name: 'escapingSymlink', entry: 'configs/up', reason: 'symlink target "../../../../etc" points outside the image root' },
  { name: 'symlinkChain', entry: 'configs/chain', reason: 'symlink target "self/self/../../.." resolves outside the image root' },
  { name: 'hardlinkEscape', entry: 'configs/passwd', reason: 'hardlink target "../../../../etc/passwd" contains ".." (path traversal)' },
  { name: 'charDevice', entry: 'configs/null', reason: 'character device files are not allowed' },
  { name: 'blockDevice', entry: 'configs/sda', reason: 'block device files are not allowed' },
  { name: 'fifo', entry: 'configs/pipe', reason: 'FIFOs are not allowed' },
];

describe('hostile layers', () => {
  it.each(cases)('refuses $name', async ({ name, entry, reason }) => {
    const reg = registry();
    const pushed = await pushImage(reg, `it/hostile-${name.toLowerCase()}:v1`, {
      labels: { [CATALOG_LABEL]: '/configs' },
      layers: [
        { entries: [{ path: 'configs/ok/catalog.json', content: '{}' }] },
        { entries: HOSTILE_ENTRIES[name] ?? [] },
      ],
    });
    const bad = pushed.layers[1]?.digest ?? '';
    const puller = box.puller({ registry: { insecureRegistries: [reg.host] } });
    for (const catalog of [false, true]) {
      const err = await rejectionOf(puller.pull(pushed.digestRef, { catalog }));
      expect(err).toBeInstanceOf(UnsafeLayerEntryError);
      expect(err.message).toBe(`layer ${bad}: refusing entry ${JSON.stringify(entry)}: ${reason}`);
      expect(err.terminal).toBe(true); // named by digest: the content can never change
      expect(await box.contents()).toEqual(['cache']);
      expect(await box.cacheContents()).toEqual([]);
    }
    // by tag the same refusal is left to the caller to retry
    expect((await rejectionOf(puller.pull(pushed.ref))).terminal).toBe(false);
  });

  it('refuses a 10 GB zero-filled gzip layer quickly, by its declared size', async () => {
    const reg = registry();
    const bomb = zeroFileGzipLayer(10 * 1024 ** 3, 'configs/huge');
    const pushed = await pushImage(reg, 'it/bomb:v1', {
      labels: { [CATALOG_LABEL]: '/configs' },
      layers: [{ entries: [{ path: 'configs/ok/catalog.json', content: '{}' }] }, bomb],
    });
    expect(pushed.layers[1]?.size).toBeLessThan(16 << 20);
    const puller = box.puller({ registry: { insecureRegistries: [reg.host] } });
    const started = Date.now();
    const err = await rejectionOf(puller.pull(pushed.ref, { catalog: true }));
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(err).toBeInstanceOf(UnpackLimitError);
    expect(err.message).toMatch(
      new RegExp(
        `^layer ${pushed.layers[1]?.digest}: entry "configs/huge": decompressed size would exceed the limit of 1073741824 bytes: ` +
          '\\d+ bytes read before this entry \\+ its declared size of 10737418240 bytes = \\d+$',
      ),
    );
    expect(await box.cacheContents()).toEqual([]);
  });

  it('does not inflate a zero-filled layer it would skip: refused by its declared size too', async () => {
    const reg = registry();
    // Outside /configs, so a catalog pull skips it: only the streaming count can stop it.
    const pushed = await pushImage(reg, 'it/bomb-skipped:v1', {
      labels: { [CATALOG_LABEL]: '/configs' },
      layers: [{ entries: [{ path: 'configs/ok/catalog.json', content: '{}' }] }, zeroFileGzipLayer(10 * 1024 ** 3, 'usr/share/huge')],
    });
    const puller = box.puller({ registry: { insecureRegistries: [reg.host] }, limits: { maxBytes: 256 << 20 } });
    const started = Date.now();
    const err = await rejectionOf(puller.pull(pushed.ref, { catalog: true }));
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(err).toBeInstanceOf(UnpackLimitError);
    expect(err.message).toMatch(
      new RegExp(
        `^layer ${pushed.layers[1]?.digest}: entry "usr/share/huge": decompressed size would exceed the limit of 268435456 bytes: ` +
          '\\d+ bytes read before this entry \\+ its declared size of 10737418240 bytes = \\d+$',
      ),
    );
    expect(await box.cacheContents()).toEqual([]);
  });
});
