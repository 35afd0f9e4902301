// One informer per kind, started on demand: for controllers that watch whatever kinds the objects they apply happen to
// have (a bundle's Deployments, CRDs, ConfigMaps, …). Every informer shares one label selector, one transform and one
// event handler; a kind is watched from the first time it is named until stop().
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { KubeClient } from './client.ts';
import { Informer, type InformerHandler } from './informer.ts';
import type { LabelSelectorInput } from './selectors.ts';
import { noopLogger, type Logger } from '../toolkit/index.ts';

export interface KindInformersOptions<T extends KubeObject> {
  readonly client: KubeClient;
  readonly labelSelector: LabelSelectorInput;
  /** Applied to every object before it is cached (keep only what the handler and readers need). */
  readonly transform: (obj: KubeObject) => T;
  readonly onEvent: InformerHandler<T>;
  /** Names the informers in logs: `<what> <apiVersion>/<kind>`. */
  readonly what: string;
  /** Each informer logs through a child naming it. */
  readonly logger?: Logger;
}

export class KindInformers<T extends KubeObject> {
  readonly #o: KindInformersOptions<T>;
  readonly #log: Logger;
  readonly #informers = new Map<string, Informer<T>>();
  #stopped = false;

  constructor(o: KindInformersOptions<T>) {
    this.#o = o;
    this.#log = o.logger ?? noopLogger;
  }

  /** `apiVersion/kind` of every kind watched so far. */
  kinds(): string[] {
    return [...this.#informers.keys()].sort();
  }

  /** Starts watching the kinds of `objects` not watched yet (idempotent, cheap when nothing is new). */
  watch(objects: readonly KubeObject[]): void {
    if (this.#stopped) return;
    for (const obj of objects) {
      if (!obj.apiVersion || !obj.kind) continue;
      const key = `${obj.apiVersion}/${obj.kind}`;
      if (this.#informers.has(key)) continue;
      const informer = new Informer<T>({
        client: this.#o.client,
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        labelSelector: this.#o.labelSelector,
        transform: this.#o.transform as (obj: T) => T,
        logger: this.#log.child({ informer: `${this.#o.what} ${key}` }),
      });
      informer.onEvent(this.#o.onEvent);
      this.#informers.set(key, informer);
      informer.start();
      this.#log.debug(`watching ${this.#o.what} objects`, { kind: key });
    }
  }

  /** The cached object, or undefined when its kind is not watched or not synced yet, or it is not in the cache. */
  get(apiVersion: string, kind: string, namespace: string | undefined, name: string): T | undefined {
    const informer = this.#informers.get(`${apiVersion}/${kind}`);
    if (!informer?.hasSynced()) return undefined;
    return informer.get(namespace ? `${namespace}/${name}` : name);
  }

  /** Whether the kind is watched and its cache synced: then an object absent from it does not exist (with the selector's labels). */
  synced(apiVersion: string, kind: string): boolean {
    return this.#informers.get(`${apiVersion}/${kind}`)?.hasSynced() ?? false;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all([...this.#informers.values()].map((i) => i.stop()));
  }
}
