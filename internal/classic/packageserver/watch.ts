// What watch needs (ours: upstream's storage has no watch): a resourceVersion per PackageManifest and a log of
// changes. Each CatalogSource's PackageManifests are remembered as a hash of what they would serve; when the
// CatalogSource's loaded content is replaced or removed (the content registry's onChange) or the CatalogSource object
// changes (its informer), the CatalogSource's manifests are computed again and compared: ADDED, MODIFIED, DELETED,
// each with the next revision (etcd's modRevision, in one sequence for the whole server). No polling.
import { createHash } from 'node:crypto';
import type { CatalogSource } from '../../../api/operators/index.ts';
import type { CatalogContent, ContentRegistry } from '../catalogsource/index.ts';
import type { LabelMatcher } from '../../shared/kube/index.ts';
import { realClock } from '../../shared/toolkit/index.ts';
import { contentManifests, packageManifest, registryUnreachable, type ContentManifest, type PackageManifest } from './manifest.ts';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One PackageManifest as a CatalogSource serves it, at a revision. */
export interface IndexedItem {
  readonly source: CatalogSource;
  readonly m: ContentManifest;
  readonly hash: string;
  readonly revision: number;
}

export interface Change {
  readonly revision: number;
  readonly type: WatchEventType;
  /** The item after the change (for DELETED: the last one served, at the deletion's revision). */
  readonly item: IndexedItem;
  /** The item before a MODIFIED. */
  readonly prev?: IndexedItem;
}

export interface PackageIndexOptions {
  readonly catalogSources: { list(): CatalogSource[] };
  readonly contents: ContentRegistry;
  /** How many changes are kept for watches that start at a resourceVersion (default 1000). */
  readonly historySize?: number;
  /** The first revision (default: the start time in ms, so revisions grow across restarts). */
  readonly startRevision?: number;
}

interface SourceState {
  source: CatalogSource;
  /** What of the CatalogSource its manifests show. */
  shown: string;
  content: CatalogContent | undefined;
  items: Map<string, IndexedItem>;
}

const keyOf = (namespace: string, name: string): string => `${namespace}/${name}`;
const shownOf = (s: CatalogSource): string =>
  JSON.stringify([s.metadata.labels ?? {}, s.metadata.creationTimestamp ?? null, s.spec.displayName ?? '', s.spec.publisher ?? '', registryUnreachable(s)]);
const hashOf = (pm: PackageManifest): string => createHash('sha256').update(JSON.stringify(pm)).digest('base64');

export class PackageIndex {
  readonly #o: PackageIndexOptions;
  readonly #states = new Map<string, SourceState>();
  readonly #log: Change[] = [];
  readonly #listeners = new Set<(c: Change) => void>();
  #revision: number;
  /** The revision before the oldest change kept: a watch from an older one is 410 Gone. */
  #horizon: number;

  constructor(o: PackageIndexOptions) {
    this.#o = o;
    this.#revision = o.startRevision ?? realClock.date().getTime();
    this.#horizon = this.#revision;
  }

  /** The current revision (a list's resourceVersion). */
  get revision(): number {
    return this.#revision;
  }

  /** The resourceVersion of a package as `source` serves it (after refresh of that source). */
  revisionOf(source: CatalogSource, packageName: string): number | undefined {
    return this.#states.get(keyOf(source.metadata.namespace ?? '', source.metadata.name ?? ''))?.items.get(packageName)?.revision;
  }

  /** Brings every CatalogSource up to date (at start, and after a missed notification). */
  refreshAll(): void {
    const seen = new Set<string>();
    for (const s of this.#o.catalogSources.list()) {
      seen.add(keyOf(s.metadata.namespace ?? '', s.metadata.name ?? ''));
      this.refresh(s.metadata.namespace ?? '', s.metadata.name ?? '', s);
    }
    for (const key of [...this.#states.keys()]) {
      if (seen.has(key)) continue;
      const [namespace = '', name = ''] = key.split('/');
      this.refresh(namespace, name, null);
    }
  }

  /**
   * Computes one CatalogSource's manifests again when its object or loaded content changed; records the changes.
   * `current`: the CatalogSource as the caller has it (null: gone), else it is looked up.
   */
  refresh(namespace: string, name: string, current?: CatalogSource | null): void {
    const key = keyOf(namespace, name);
    const source =
      current === undefined ? this.#o.catalogSources.list().find((s) => s.metadata.namespace === namespace && s.metadata.name === name) : (current ?? undefined);
    const content = source && !registryUnreachable(source) ? this.#o.contents.get(namespace, name) : undefined;
    const was = this.#states.get(key);
    if (!was && !source) return;
    const shown = source ? shownOf(source) : '';
    if (was && source && was.content === content && was.shown === shown) {
      // e.g. a status write: nothing a manifest shows changed
      was.source = source;
      for (const [pkg, item] of was.items) was.items.set(pkg, { ...item, source });
      return;
    }
    const before = was?.items ?? new Map<string, IndexedItem>();
    const items = new Map<string, IndexedItem>();
    const changes: Change[] = [];
    if (source && content) {
      for (const m of contentManifests(content)) {
        const hash = hashOf(packageManifest(source, m, namespace));
        const old = before.get(m.packageName);
        if (old && old.hash === hash) {
          items.set(m.packageName, { source, m, hash, revision: old.revision });
          continue;
        }
        const item = { source, m, hash, revision: ++this.#revision };
        items.set(m.packageName, item);
        changes.push(old ? { revision: item.revision, type: 'MODIFIED', item, prev: old } : { revision: item.revision, type: 'ADDED', item });
      }
    }
    for (const [pkg, old] of before) {
      if (items.has(pkg)) continue;
      const revision = ++this.#revision;
      changes.push({ revision, type: 'DELETED', item: { ...old, revision } });
    }
    if (source) this.#states.set(key, { source, shown, content, items });
    else this.#states.delete(key);
    for (const c of changes) this.#record(c);
  }

  #record(c: Change): void {
    this.#log.push(c);
    const max = this.#o.historySize ?? 1000;
    if (this.#log.length > max) this.#horizon = this.#log.splice(0, this.#log.length - max).at(-1)!.revision;
    for (const l of [...this.#listeners]) l(c);
  }

  /** The changes after `revision`, oldest first; undefined when some of them are no longer kept. */
  since(revision: number): Change[] | undefined {
    if (revision < this.#horizon) return undefined;
    return this.#log.filter((c) => c.revision > revision);
  }

  /** Calls `listener` with every change from now on; returns the unsubscribe function. */
  subscribe(listener: (c: Change) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }
}

/** Which PackageManifests a watch is about: its namespace ('' all), label selector and `metadata.name`. */
export interface WatchScope {
  readonly namespace: string;
  readonly globalCatalogNamespace: string;
  readonly selector?: LabelMatcher;
  readonly name: string;
}

/** The manifest as `item` serves it to a watch in `scope`, or undefined when the watch does not see it. */
function render(item: IndexedItem, scope: WatchScope): PackageManifest | undefined {
  if (scope.name !== '' && item.m.packageName !== scope.name) return undefined;
  const own = item.source.metadata.namespace ?? '';
  let namespace = own;
  if (scope.namespace !== '' && own !== scope.namespace) {
    if (own !== scope.globalCatalogNamespace) return undefined;
    namespace = scope.namespace;
  }
  const pm = packageManifest(item.source, item.m, namespace);
  pm.metadata.resourceVersion = String(item.revision);
  return !scope.selector || scope.selector.matches(pm.metadata.labels) ? pm : undefined;
}

/**
 * A change as a watch in `scope` sees it (the watch cache's rules): a MODIFIED that enters the selector is ADDED, one
 * that leaves it is DELETED (with the object before, at the change's revision).
 */
export function watchEvent(c: Change, scope: WatchScope): { type: WatchEventType; object: PackageManifest } | undefined {
  const now = render(c.item, scope);
  if (c.type !== 'MODIFIED') return now && { type: c.type, object: now };
  const before = c.prev && render({ ...c.prev, revision: c.revision }, scope);
  if (now) return { type: before ? 'MODIFIED' : 'ADDED', object: now };
  return before && { type: 'DELETED', object: before };
}
