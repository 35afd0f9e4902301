import { afterEach, describe, expect, it } from 'vitest';
import type { ClusterCatalog } from '../../../api/v1/index.ts';
import { ItemExponentialFailureRateLimiter, type EventSource, type EventType } from '../../shared/controller/index.ts';
import { ImageError, type PulledImage } from '../../shared/image/index.ts';
import { poll } from '../../../test/support/net.ts';
import type { StoredCatalog } from '../storage/index.ts';
import type { CatalogContent } from './content.ts';
import { desiredRef, newContentFollower } from './follower.ts';

const REPO = 'registry.test/catalogs/ops';
const DIGEST_A = `sha256:${'a'.repeat(64)}`;
const DIGEST_B = `sha256:${'b'.repeat(64)}`;

function catalog(name: string, resolved?: string, extra: Partial<ClusterCatalog['spec']> = {}, meta: Partial<ClusterCatalog['metadata']> = {}): ClusterCatalog {
  return {
    metadata: { name, generation: 1, ...meta },
    spec: { source: { type: 'Image', image: { ref: `${REPO}:latest` } }, availabilityMode: 'Available', ...extra },
    ...(resolved && { status: { resolvedSource: { type: 'Image', image: { ref: resolved } } } }),
  };
}

class Catalogs implements EventSource<ClusterCatalog> {
  readonly items = new Map<string, ClusterCatalog>();
  readonly subs = new Set<(type: EventType, obj: ClusterCatalog) => void>();
  onEvent(cb: (type: EventType, obj: ClusterCatalog) => void): () => void {
    this.subs.add(cb);
    for (const c of this.items.values()) cb('add', c); // as the informer does for what it holds
    return () => this.subs.delete(cb);
  }
  get(name: string): ClusterCatalog | undefined {
    return this.items.get(name);
  }
  keys(): string[] {
    return [...this.items.keys()];
  }
  async waitForSync(): Promise<void> {}
  set(c: ClusterCatalog): void {
    const type = this.items.has(c.metadata.name!) ? 'update' : 'add';
    this.items.set(c.metadata.name!, c);
    for (const cb of this.subs) cb(type, c);
  }
  remove(name: string): void {
    const c = this.items.get(name)!;
    this.items.delete(name);
    for (const cb of this.subs) cb('delete', c);
  }
}

function fakeContent() {
  const stored = new Map<string, string>();
  const log: string[] = [];
  let failPull: Error | undefined;
  const content: CatalogContent = {
    close: async () => undefined,
    async pull(name, ref) {
      log.push(`pull ${name} ${ref}`);
      if (failPull) throw failPull;
      const digest = ref.slice(ref.indexOf('@') + 1);
      return { ref, digestRef: ref, digest, dir: '/x', configsDir: '/x/configs', labels: {}, mediaType: '', unpackedAt: new Date(), fromCache: false } as PulledImage;
    },
    async commit(name, image, opts) {
      if (opts?.still && !opts.still()) {
        log.push(`skip ${name}`);
        return undefined;
      }
      log.push(`store ${name} ${image.digest}`);
      stored.set(name, image.digest);
      return { name, digest: image.digest } as StoredCatalog;
    },
    current: (name) => (stored.has(name) ? ({ name, digest: stored.get(name)! } as StoredCatalog) : undefined),
    exists: async (name, digest) => stored.has(name) && (digest === undefined || stored.get(name) === digest),
    async delete(name) {
      log.push(`delete ${name}`);
      stored.delete(name);
    },
    garbageCollect: async () => [],
  };
  return {
    content,
    stored,
    log,
    failPullWith(e: Error | undefined) {
      failPull = e;
    },
  };
}

const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});

async function until(check: () => boolean, what: string): Promise<void> {
  if (!(await poll(check, { timeoutMs: 1000, intervalMs: 5 }))) throw new Error(`timed out: ${what}`);
}

function setup(leading = false, existing: ClusterCatalog[] = []) {
  const catalogs = new Catalogs();
  for (const c of existing) catalogs.set(c);
  const c = fakeContent();
  let lead = leading;
  let leadingAsked = 0;
  const follower = newContentFollower({
    catalogs,
    content: c.content,
    leading: () => {
      leadingAsked++;
      return lead;
    },
    rateLimiter: new ItemExponentialFailureRateLimiter(1, 10),
  });
  const stop = new AbortController();
  stops.push(stop);
  void follower.run(stop.signal);
  return {
    follower,
    catalogs,
    ...c,
    setLeading(v: boolean) {
      lead = v;
    },
    /** How many times the follower asked whether this replica leads (a pass starts by asking). */
    leadingAsked: () => leadingAsked,
  };
}

describe('desiredRef', () => {
  it('is the resolved digest reference of an available catalog, and nothing otherwise', () => {
    expect(desiredRef(catalog('a', `${REPO}@${DIGEST_A}`))).toBe(`${REPO}@${DIGEST_A}`);
    expect(desiredRef(undefined)).toBeUndefined();
    expect(desiredRef(catalog('a'))).toBeUndefined();
    expect(desiredRef(catalog('a', `${REPO}@${DIGEST_A}`, { availabilityMode: 'Unavailable' }))).toBeUndefined();
    expect(desiredRef(catalog('a', `${REPO}@${DIGEST_A}`, {}, { deletionTimestamp: '2026-01-01T00:00:00Z' }))).toBeUndefined();
    expect(desiredRef(catalog('a', `${REPO}:latest`))).toBeUndefined();
  });
});

describe('the content follower (a non-leader replica)', () => {
  it('pulls and stores the digest the leader resolved, and follows it when it moves', async () => {
    const f = setup();
    f.catalogs.set(catalog('ops', `${REPO}@${DIGEST_A}`));
    await until(() => f.stored.get('ops') === DIGEST_A, 'A stored');
    f.catalogs.set(catalog('ops', `${REPO}@${DIGEST_B}`));
    await until(() => f.stored.get('ops') === DIGEST_B, 'B stored');
    expect(f.log).toEqual([`pull ops ${REPO}@${DIGEST_A}`, `store ops ${DIGEST_A}`, `pull ops ${REPO}@${DIGEST_B}`, `store ops ${DIGEST_B}`]);
  });

  it('does nothing for a catalog that has not been resolved yet', async () => {
    const f = setup();
    f.catalogs.set(catalog('ops'));
    f.catalogs.set(catalog('other', `${REPO}@${DIGEST_A}`));
    await until(() => f.stored.has('other'), 'other stored');
    expect(f.log.filter((l) => l.includes(' ops'))).toEqual([]);
  });

  it('keeps serving what it has while a pull fails, retries, and catches up', async () => {
    const f = setup();
    f.catalogs.set(catalog('ops', `${REPO}@${DIGEST_A}`));
    await until(() => f.stored.get('ops') === DIGEST_A, 'A stored');
    f.failPullWith(new ImageError('RegistryUnavailable', 'registry down'));
    f.catalogs.set(catalog('ops', `${REPO}@${DIGEST_B}`));
    await until(() => f.log.filter((l) => l.startsWith(`pull ops ${REPO}@${DIGEST_B}`)).length >= 3, 'retries');
    expect(f.stored.get('ops')).toBe(DIGEST_A);
    f.failPullWith(undefined);
    await until(() => f.stored.get('ops') === DIGEST_B, 'B stored');
  });

  it('removes content when the catalog is deleted, being deleted, or set Unavailable', async () => {
    const f = setup();
    for (const n of ['gone', 'deleting', 'off']) f.catalogs.set(catalog(n, `${REPO}@${DIGEST_A}`));
    await until(() => f.stored.size === 3, 'all stored');
    f.catalogs.remove('gone');
    f.catalogs.set(catalog('deleting', `${REPO}@${DIGEST_A}`, {}, { deletionTimestamp: '2026-01-01T00:00:00Z' }));
    f.catalogs.set(catalog('off', `${REPO}@${DIGEST_A}`, { availabilityMode: 'Unavailable' }));
    await until(() => f.stored.size === 0, 'all removed');
    expect(f.log.filter((l) => l.startsWith('delete')).sort()).toEqual(['delete deleting', 'delete gone', 'delete off']);
  });

  it('stands aside while this replica leads, and never commits once leadership arrived mid-pull', async () => {
    const f = setup(true);
    f.catalogs.set(catalog('ops', `${REPO}@${DIGEST_A}`));
    await until(() => f.leadingAsked() > 0 && !f.follower.controller.queue.has('ops'), 'the pass of ops done');
    expect(f.log).toEqual([]);
  });

  it('does not commit when the catalog moved on while it was pulling', async () => {
    const f = setup();
    const pull = f.content.pull.bind(f.content);
    f.content.pull = async (name, ref) => {
      const img = await pull(name, ref);
      if (ref.endsWith(DIGEST_A)) f.setLeading(true); // became leader while pulling A
      return img;
    };
    f.catalogs.set(catalog('ops', `${REPO}@${DIGEST_A}`));
    await until(() => f.log.includes('skip ops'), 'skipped');
    expect(f.stored.has('ops')).toBe(false);
  });
});

describe('readiness', () => {
  it('is synced once every catalog resolved at start has been tried, stored or failed', async () => {
    const f = setup(false, [catalog('ok', `${REPO}@${DIGEST_A}`), catalog('unresolved')]);
    await f.follower.ready.waitForSync();
    expect(f.stored.get('ok')).toBe(DIGEST_A);

    const g = setup(false, [catalog('down', `${REPO}@${DIGEST_B}`)]);
    g.failPullWith(new ImageError('RegistryUnavailable', 'registry down'));
    await g.follower.ready.waitForSync();
    expect(g.follower.ready.hasSynced()).toBe(true);
    expect(g.stored.has('down')).toBe(false);
  });

  it('is synced at once when nothing is resolved yet', async () => {
    const f = setup(false, [catalog('new')]);
    await f.follower.ready.waitForSync();
    expect(f.log).toEqual([]);
  });
});
