import { beforeEach, describe, expect, it } from 'vitest';
import {
  DeleteServerCacheFinalizer,
  type ClusterCatalog,
  type ClusterCatalogStatus,
} from '../../../api/v1/index.ts';
import { TerminalError, isTerminal } from '../../shared/controller/index.ts';
import { ImageError, MissingCatalogLabelError, type PulledImage } from '../../shared/image/index.ts';
import type { StoredCatalog } from '../storage/index.ts';
import type { CatalogApi } from './api.ts';
import type { CatalogContent } from './content.ts';
import { POLL_JITTER_FACTOR, newClusterCatalogReconciler, type ClusterCatalogReconciler } from './reconciler.ts';

const T0 = Date.parse('2026-11-22T10:00:00.700Z');
const MINUTE = 60_000;
const REPO = 'registry.test/catalogs/ops';
const DIGEST_A = `sha256:${'a'.repeat(64)}`;
const DIGEST_B = `sha256:${'b'.repeat(64)}`;
const UNPACKED_A = new Date('2026-11-22T09:59:58.900Z');
const UNPACKED_B = new Date('2026-11-22T10:05:01.250Z');
const base = (name: string): string => `https://catalogd-service.olmv1-system.svc/catalogs/${name}`;

function catalog(name: string, spec: Partial<ClusterCatalog['spec']> = {}, meta: Partial<ClusterCatalog['metadata']> = {}): ClusterCatalog {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name, generation: 1, resourceVersion: '1', ...meta },
    spec: { source: { type: 'Image', image: { ref: `${REPO}:latest` } }, availabilityMode: 'Available', priority: 0, ...spec },
  };
}

/** An in-memory API server for one kind: finalizer patches, status writes, deletion. */
function fakeApi(objects: Map<string, ClusterCatalog>) {
  const calls: string[] = [];
  const statusWrites: ClusterCatalogStatus[] = [];
  let rv = 100;
  let failStatus: Error | undefined;
  const api: CatalogApi = {
    async addFinalizer(c, f) {
      calls.push(`add ${f}`);
      const stored = objects.get(c.metadata.name!)!;
      stored.metadata.finalizers = [...(stored.metadata.finalizers ?? []), f];
      stored.metadata.resourceVersion = String(++rv);
      return structuredClone(stored);
    },
    async removeFinalizer(c, f) {
      if (!c.metadata.finalizers?.includes(f)) return c;
      calls.push(`remove ${f}`);
      const stored = objects.get(c.metadata.name!)!;
      stored.metadata.finalizers = (stored.metadata.finalizers ?? []).filter((x) => x !== f);
      stored.metadata.resourceVersion = String(++rv);
      if (stored.metadata.deletionTimestamp && stored.metadata.finalizers.length === 0) {
        objects.delete(c.metadata.name!);
        return undefined;
      }
      return structuredClone(stored);
    },
    async updateStatus(c) {
      if (failStatus) throw failStatus;
      const status = c.status ?? {};
      calls.push('status');
      statusWrites.push(structuredClone(status));
      const stored = objects.get(c.metadata.name!);
      if (stored) {
        stored.status = structuredClone(status);
        stored.metadata.resourceVersion = String(++rv);
      }
    },
  };
  return {
    api,
    calls,
    statusWrites,
    failStatusWith(err: Error | undefined) {
      failStatus = err;
    },
  };
}

/** Content whose images are a table `ref → digest, unpackedAt`; storing records the digest. */
function fakeContent() {
  const images = new Map<string, { digest: string; unpackedAt: Date }>();
  const stored = new Map<string, string>();
  const pulls: string[] = [];
  const deletes: string[] = [];
  const failures: { pull?: Error; store?: Error; delete?: Error } = {};
  const content: CatalogContent = {
    close: async () => undefined,
    async pull(name, ref) {
      pulls.push(`${name} ${ref}`);
      if (failures.pull) throw failures.pull;
      const img = images.get(ref);
      if (!img) throw new ImageError('ManifestNotFound', `manifest ${ref}: 404 Not Found`);
      const repo = ref.replace(/[:@].*$/, '');
      const pulled: PulledImage = {
        ref,
        digestRef: `${repo}@${img.digest}`,
        digest: img.digest,
        dir: `/cache/${name}/fs`,
        configsDir: `/cache/${name}/fs/configs`,
        labels: {},
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        unpackedAt: img.unpackedAt,
        fromCache: false,
      };
      return pulled;
    },
    async commit(name, image) {
      if (failures.store) throw failures.store;
      stored.set(name, image.digest);
      return { name, digest: image.digest } as StoredCatalog;
    },
    current: () => undefined,
    async exists(name, digest) {
      return stored.has(name) && (digest === undefined || stored.get(name) === digest);
    },
    async delete(name) {
      if (failures.delete) throw failures.delete;
      deletes.push(name);
      stored.delete(name);
    },
    garbageCollect: async () => [],
  };
  return { content, images, stored, pulls, deletes, failures };
}

let objects: Map<string, ClusterCatalog>;
let api: ReturnType<typeof fakeApi>;
let content: ReturnType<typeof fakeContent>;
let now: number;
let random: number;
let rec: ClusterCatalogReconciler;
const signal = new AbortController().signal;

beforeEach(() => {
  objects = new Map();
  api = fakeApi(objects);
  content = fakeContent();
  now = T0;
  random = 0;
  content.images.set(`${REPO}:latest`, { digest: DIGEST_A, unpackedAt: UNPACKED_A });
  rec = newClusterCatalogReconciler({
    catalogs: { get: (name) => objects.get(name) },
    api: api.api,
    content: content.content,
    baseUrl: base,
    now: () => now,
    random: () => random,
  });
});

const put = (c: ClusterCatalog): ClusterCatalog => (objects.set(c.metadata.name!, c), c);
const get = (name: string): ClusterCatalog => objects.get(name)!;
const withFinalizer = (c: ClusterCatalog): ClusterCatalog => ({ ...c, metadata: { ...c.metadata, finalizers: [DeleteServerCacheFinalizer] } });

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

const servingStatus = (gen = 1): ClusterCatalogStatus => ({
  conditions: [
    {
      type: 'Progressing',
      status: 'True',
      reason: 'Succeeded',
      message: 'Successfully unpacked and stored content from resolved source',
      observedGeneration: gen,
      lastTransitionTime: '2026-11-22T10:00:00Z',
    },
    {
      type: 'Serving',
      status: 'True',
      reason: 'Available',
      message: 'Serving desired content from resolved source',
      observedGeneration: gen,
      lastTransitionTime: '2026-11-22T10:00:00Z',
    },
  ],
  resolvedSource: { type: 'Image', image: { ref: `${REPO}@${DIGEST_A}` } },
  urls: { base: base('ops') },
  lastUnpacked: '2026-11-22T09:59:58Z',
});

describe('a new catalog', () => {
  it('first gets the delete-server-cache finalizer, and nothing else happens in that reconcile', async () => {
    put(catalog('ops'));
    expect(await rec.reconcile('ops', signal)).toEqual({});
    expect(api.calls).toEqual(['add olm.operatorframework.io/delete-server-cache']);
    expect(content.pulls).toEqual([]);
    expect(get('ops').status).toBeUndefined();
  });

  it('is then pulled, stored and reported with upstream conditions, resolvedSource, urls and lastUnpacked', async () => {
    put(withFinalizer(catalog('ops')));
    expect(await rec.reconcile('ops', signal)).toEqual({});
    expect(content.pulls).toEqual([`ops ${REPO}:latest`]);
    expect(content.stored.get('ops')).toBe(DIGEST_A);
    expect(api.calls).toEqual(['status']);
    expect(get('ops').status).toEqual(servingStatus());
  });

  it('keeps conditions of other types out of nothing: only Serving and Progressing are written', async () => {
    put(withFinalizer(catalog('ops')));
    await rec.reconcile('ops', signal);
    expect(get('ops').status?.conditions?.map((c) => c.type)).toEqual(['Progressing', 'Serving']);
  });
});

describe('polling', () => {
  it('requeues after pollIntervalMinutes with up to 1% jitter, measured from the successful poll', async () => {
    put(withFinalizer(catalog('ops', { source: { type: 'Image', image: { ref: `${REPO}:latest`, pollIntervalMinutes: 5 } } })));
    expect(await rec.reconcile('ops', signal)).toEqual({ requeueAfterMs: 5 * MINUTE });
    random = 0.5;
    now += 1000;
    expect(await rec.reconcile('ops', signal)).toEqual({ requeueAfterMs: Math.ceil(5 * MINUTE * (1 + 0.5 * POLL_JITTER_FACTOR)) - 1000 });
    expect(content.pulls).toHaveLength(1); // nothing to do the second time
  });

  it('does not requeue without pollIntervalMinutes', async () => {
    put(withFinalizer(catalog('ops')));
    expect(await rec.reconcile('ops', signal)).toEqual({});
    now += 365 * 24 * 60 * MINUTE;
    expect(await rec.reconcile('ops', signal)).toEqual({});
    expect(content.pulls).toHaveLength(1);
  });

  it('pulls again once the interval has elapsed; the same digest keeps lastUnpacked, a new one moves it', async () => {
    put(withFinalizer(catalog('ops', { source: { type: 'Image', image: { ref: `${REPO}:latest`, pollIntervalMinutes: 1 } } })));
    await rec.reconcile('ops', signal);
    now += MINUTE + 1;
    await rec.reconcile('ops', signal);
    expect(content.pulls).toHaveLength(2);
    expect(get('ops').status?.lastUnpacked).toBe('2026-11-22T09:59:58Z');
    expect(api.calls).toEqual(['status']); // the second poll changed nothing in status

    content.images.set(`${REPO}:latest`, { digest: DIGEST_B, unpackedAt: UNPACKED_B });
    now += MINUTE + 1;
    await rec.reconcile('ops', signal);
    const status = get('ops').status!;
    expect(status.resolvedSource?.image.ref).toBe(`${REPO}@${DIGEST_B}`);
    expect(status.lastUnpacked).toBe('2026-11-22T10:05:01Z');
    expect(content.stored.get('ops')).toBe(DIGEST_B);
  });

  it('uses the configured minute length (tests shorten it)', async () => {
    const fast = newClusterCatalogReconciler({
      catalogs: { get: (name) => objects.get(name) },
      api: api.api,
      content: content.content,
      baseUrl: base,
      now: () => now,
      random: () => 0,
      minuteMs: 1000,
    });
    put(withFinalizer(catalog('ops', { source: { type: 'Image', image: { ref: `${REPO}:latest`, pollIntervalMinutes: 2 } } })));
    expect(await fast.reconcile('ops', signal)).toEqual({ requeueAfterMs: 2000 });
  });
});

describe('deciding to unpack again', () => {
  beforeEach(async () => {
    put(withFinalizer(catalog('ops')));
    await rec.reconcile('ops', signal);
    content.pulls.length = 0;
  });

  it('does nothing while memory, content on disk, status and generation agree', async () => {
    await rec.reconcile('ops', signal);
    expect(content.pulls).toEqual([]);
  });

  it('unpacks when the stored content is gone', async () => {
    content.stored.delete('ops');
    await rec.reconcile('ops', signal);
    expect(content.pulls).toHaveLength(1);
  });

  it('unpacks when status differs from what was unpacked', async () => {
    get('ops').status!.resolvedSource!.image.ref = `${REPO}@${DIGEST_B}`;
    await rec.reconcile('ops', signal);
    expect(content.pulls).toHaveLength(1);
    expect(get('ops').status?.resolvedSource?.image.ref).toBe(`${REPO}@${DIGEST_A}`);
  });

  it('unpacks when the generation changed, and reports the new observedGeneration', async () => {
    get('ops').metadata.generation = 2;
    await rec.reconcile('ops', signal);
    expect(content.pulls).toHaveLength(1);
    expect(get('ops').status).toEqual(servingStatus(2));
  });

  it('unpacks after a failed reconcile (the memory of the last unpack is dropped)', async () => {
    get('ops').metadata.generation = 2;
    content.failures.pull = new Error('boom');
    await rejection(rec.reconcile('ops', signal));
    expect(rec.remembered('ops')).toBeUndefined();
    content.failures.pull = undefined;
    get('ops').metadata.generation = 1; // even with everything else back as it was
    await rec.reconcile('ops', signal);
    expect(content.pulls).toHaveLength(2);
  });

  it('forgets a catalog that left the cache', async () => {
    objects.delete('ops');
    expect(await rec.reconcile('ops', signal)).toBeUndefined();
    expect(rec.remembered('ops')).toBeUndefined();
  });
});

describe('failures', () => {
  it('pull errors: Progressing=True/Retrying "source catalog content: <err>", previous content and Serving kept', async () => {
    put(withFinalizer(catalog('ops')));
    await rec.reconcile('ops', signal);
    get('ops').metadata.generation = 2;
    content.failures.pull = new ImageError('ManifestNotFound', `manifest ${REPO}:latest: 404 Not Found`);
    const err = await rejection(rec.reconcile('ops', signal));
    expect(isTerminal(err)).toBe(false);
    expect(err.message).toBe(`source catalog content: manifest ${REPO}:latest: 404 Not Found`);
    const status = get('ops').status!;
    expect(status.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({
      status: 'True',
      reason: 'Retrying',
      message: `source catalog content: manifest ${REPO}:latest: 404 Not Found`,
      observedGeneration: 2,
    });
    expect(status.conditions?.find((c) => c.type === 'Serving')).toMatchObject({ status: 'True', reason: 'Available', observedGeneration: 1 });
    expect(status.resolvedSource?.image.ref).toBe(`${REPO}@${DIGEST_A}`);
    expect(content.stored.get('ops')).toBe(DIGEST_A);
  });

  it('network error text loses the ephemeral "read tcp a->b: " part', async () => {
    put(withFinalizer(catalog('ops')));
    content.failures.pull = new Error('GET blob: read tcp 10.0.0.1:51234->10.0.0.2:443: connection reset by peer');
    const err = await rejection(rec.reconcile('ops', signal));
    expect(err.message).toBe('source catalog content: GET blob: connection reset by peer');
  });

  it('terminal image errors: Progressing=False/Blocked and a TerminalError', async () => {
    put(withFinalizer(catalog('ops', { source: { type: 'Image', image: { ref: `${REPO}@${DIGEST_A}` } } })));
    content.failures.pull = new MissingCatalogLabelError({ terminal: true });
    const err = await rejection(rec.reconcile('ops', signal));
    expect(err).toBeInstanceOf(TerminalError);
    expect((err as TerminalError).reason).toBe('Blocked');
    const msg = 'source catalog content: catalog image is missing the required label "operators.operatorframework.io.index.configs.v1"';
    expect(err.message).toBe(msg);
    expect(get('ops').status?.conditions).toEqual([
      { type: 'Progressing', status: 'False', reason: 'Blocked', message: msg, observedGeneration: 1, lastTransitionTime: '2026-11-22T10:00:00Z' },
    ]);
  });

  it('the same missing label on a tag is retried (a later push may fix the tag)', async () => {
    put(withFinalizer(catalog('ops')));
    content.failures.pull = new MissingCatalogLabelError();
    const err = await rejection(rec.reconcile('ops', signal));
    expect(isTerminal(err)).toBe(false);
    expect(get('ops').status?.conditions?.[0]).toMatchObject({ status: 'True', reason: 'Retrying' });
  });

  it('store errors: "error storing fbc: <err>", retried', async () => {
    put(withFinalizer(catalog('ops')));
    content.failures.store = new Error('configs/pkg/catalog.yaml: invalid YAML');
    const err = await rejection(rec.reconcile('ops', signal));
    expect(isTerminal(err)).toBe(false);
    expect(err.message).toBe('error storing fbc: configs/pkg/catalog.yaml: invalid YAML');
    expect(get('ops').status?.conditions?.[0]).toMatchObject({
      type: 'Progressing',
      status: 'True',
      reason: 'Retrying',
      message: 'error storing fbc: configs/pkg/catalog.yaml: invalid YAML',
    });
    expect(get('ops').status?.resolvedSource).toBeUndefined();
  });

  it('an unknown source type is terminal', async () => {
    put(withFinalizer(catalog('ops', { source: { type: 'Git' as 'Image' } })));
    const err = await rejection(rec.reconcile('ops', signal));
    expect(isTerminal(err)).toBe(true);
    expect(err.message).toBe('unknown source type "Git"');
    expect(get('ops').status?.conditions?.[0]).toMatchObject({ status: 'False', reason: 'Blocked', message: 'unknown source type "Git"' });
  });

  it('a nil image source is terminal', async () => {
    put(withFinalizer(catalog('ops', { source: { type: 'Image' } })));
    const err = await rejection(rec.reconcile('ops', signal));
    expect(isTerminal(err)).toBe(true);
    expect(err.message).toBe('error parsing ClusterCatalog "ops", image source is nil');
  });

  it('a failed status write is an error naming it, and the reconcile is retried', async () => {
    put(withFinalizer(catalog('ops')));
    api.failStatusWith(new Error('etcdserver: request timed out'));
    const err = await rejection(rec.reconcile('ops', signal));
    expect(err.message).toBe('error updating status: etcdserver: request timed out');
    expect(rec.remembered('ops')).toMatchObject({ ref: `${REPO}@${DIGEST_A}`, digest: DIGEST_A }); // the unpack itself succeeded
  });

  it('a failed status write after a failed pull carries both messages and stays terminal when the pull error was', async () => {
    put(withFinalizer(catalog('ops')));
    content.failures.pull = new MissingCatalogLabelError({ terminal: true });
    api.failStatusWith(new Error('conflict'));
    const err = await rejection(rec.reconcile('ops', signal));
    expect(isTerminal(err)).toBe(true);
    expect(err.message).toBe(
      'source catalog content: catalog image is missing the required label "operators.operatorframework.io.index.configs.v1"\nerror updating status: conflict',
    );
  });
});

describe('availabilityMode Unavailable', () => {
  it('deletes content and cache, clears resolvedSource/urls/lastUnpacked, sets both conditions, removes the finalizer', async () => {
    put(withFinalizer(catalog('ops')));
    await rec.reconcile('ops', signal);
    const c = get('ops');
    c.spec.availabilityMode = 'Unavailable';
    c.metadata.generation = 2;
    now += 5000;
    api.calls.length = 0;
    expect(await rec.reconcile('ops', signal)).toEqual({});
    expect(content.deletes).toEqual(['ops']);
    expect(api.calls).toEqual(['remove olm.operatorframework.io/delete-server-cache', 'status']);
    expect(get('ops').metadata.finalizers).toEqual([]);
    expect(get('ops').status).toEqual({
      conditions: [
        {
          type: 'Progressing',
          status: 'True',
          reason: 'Succeeded',
          message: 'Catalog availability mode is set to Unavailable',
          observedGeneration: 2,
          lastTransitionTime: '2026-11-22T10:00:00Z',
        },
        {
          type: 'Serving',
          status: 'False',
          reason: 'UserSpecifiedUnavailable',
          message: 'Catalog availability mode is set to Unavailable',
          observedGeneration: 2,
          lastTransitionTime: '2026-11-22T10:00:05Z',
        },
      ],
    });
    expect(rec.remembered('ops')).toBeUndefined();
  });

  it('never adds the finalizer and never pulls', async () => {
    put(catalog('ops', { availabilityMode: 'Unavailable' }));
    await rec.reconcile('ops', signal);
    expect(content.pulls).toEqual([]);
    expect(api.calls).toEqual(['status']);
  });

  it('a failed delete is reported on Progressing and retried', async () => {
    put(withFinalizer(catalog('ops', { availabilityMode: 'Unavailable' })));
    content.failures.delete = new Error('EBUSY: resource busy');
    const err = await rejection(rec.reconcile('ops', signal));
    expect(err.message).toBe('EBUSY: resource busy');
    expect(get('ops').status?.conditions?.[0]).toMatchObject({ type: 'Progressing', reason: 'Retrying', message: 'EBUSY: resource busy' });
    expect(get('ops').metadata.finalizers).toEqual([DeleteServerCacheFinalizer]);
  });
});

describe('deletion', () => {
  it('deletes content and cache, removes the finalizer; the object is gone, so no status is written', async () => {
    put(withFinalizer(catalog('ops')));
    await rec.reconcile('ops', signal);
    get('ops').metadata.deletionTimestamp = '2026-11-22T10:01:00Z';
    api.calls.length = 0;
    expect(await rec.reconcile('ops', signal)).toEqual({});
    expect(content.deletes).toEqual(['ops']);
    expect(api.calls).toEqual(['remove olm.operatorframework.io/delete-server-cache']);
    expect(objects.has('ops')).toBe(false);
  });

  it('with another finalizer left, writes Serving=False/Unavailable with an empty message and no resolved source', async () => {
    put({ ...catalog('ops'), metadata: { name: 'ops', generation: 1, finalizers: [DeleteServerCacheFinalizer, 'example.com/keep'] } });
    await rec.reconcile('ops', signal);
    get('ops').metadata.deletionTimestamp = '2026-11-22T10:01:00Z';
    now += 60_000;
    await rec.reconcile('ops', signal);
    const status = get('ops').status!;
    expect(status.resolvedSource).toBeUndefined();
    expect(status.urls).toBeUndefined();
    expect(status.lastUnpacked).toBeUndefined();
    expect(status.conditions?.find((c) => c.type === 'Serving')).toEqual({
      type: 'Serving',
      status: 'False',
      reason: 'Unavailable',
      message: '',
      observedGeneration: 1,
      lastTransitionTime: '2026-11-22T10:01:00Z',
    });
    expect(get('ops').metadata.finalizers).toEqual(['example.com/keep']);
  });

  it('without our finalizer does nothing', async () => {
    put(catalog('ops', {}, { deletionTimestamp: '2026-11-22T10:01:00Z', finalizers: ['example.com/keep'] }));
    expect(await rec.reconcile('ops', signal)).toEqual({});
    expect(api.calls).toEqual([]);
    expect(content.deletes).toEqual([]);
  });

  it('a failed delete names the finalizer', async () => {
    put(withFinalizer(catalog('ops', {}, { deletionTimestamp: '2026-11-22T10:01:00Z' })));
    content.failures.delete = new Error('EACCES: permission denied');
    const err = await rejection(rec.reconcile('ops', signal));
    expect(err.message).toBe('finalizer "olm.operatorframework.io/delete-server-cache" failed: EACCES: permission denied');
    expect(objects.has('ops')).toBe(true);
  });
});
