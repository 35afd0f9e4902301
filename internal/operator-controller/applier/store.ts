// Revision records in Secrets of the system namespace. A record is gzip'd and cut into chunks,
// Secrets `<revision>.<i>` (i = 0..N-1); the head Secret `<revision>` holds only the metadata, so
// listing an extension's revisions (every pass) reads no object data. All are immutable. The head is written last, so a revision exists exactly when
// its head does; chunks without a head are leftovers of an interrupted write and are swept.
// Lifecycle (Active/Archived) and "rolled out once" (Succeeded) are annotations on the head:
// Kubernetes keeps `data` of an immutable Secret fixed but lets its metadata change.
import type { KubeObject } from '../../../api/meta/v1.ts';
import { OwnerKindKey, OwnerNameKey, ClusterExtensionKind, RevisionNameKey } from '../../../api/v1/index.ts';
import { ignoreNotFound, isAlreadyExists, SECRET_KIND, type KubeClient, type Secret } from '../../shared/kube/index.ts';
import type { BundleRef } from '../controller/index.ts';
import type { Phase } from './phases.ts';
import {
  BundlePropertiesAnnotation,
  bundleAnnotations,
  bundleFromAnnotations,
  buildRecord,
  CHUNK_BYTES,
  decodeRecord,
  encodeRecord,
  ownerLabels,
  revisionName,
  type RevisionRecord,
} from './record.ts';

/** `type` of the Secrets holding revision records. */
export const RevisionSecretType = 'olm.operatorframework.io/revision';
/** Label on chunk Secrets (not on heads): the chunk's index, 0..N-1. */
export const RevisionChunkKey = 'olm.operatorframework.io/revision-chunk';
/** Head annotations. */
export const RevisionNumberAnnotation = 'olm.operatorframework.io/revision';
export const RevisionChunksAnnotation = 'olm.operatorframework.io/revision-chunks';
export const RevisionDigestAnnotation = 'olm.operatorframework.io/revision-digest';
export const RevisionFingerprintAnnotation = 'olm.operatorframework.io/revision-fingerprint';
export const LifecycleStateAnnotation = 'olm.operatorframework.io/lifecycle-state';
export const SucceededAnnotation = 'olm.operatorframework.io/succeeded';

/** What a head Secret says about its revision, without reading the chunks. */
export interface RevisionHead {
  readonly name: string;
  readonly number: number;
  readonly bundle: BundleRef;
  readonly fingerprint: string;
  readonly digest: string;
  readonly chunks: number;
  readonly archived: boolean;
  readonly succeeded: boolean;
  readonly uid: string;
}

const DATA_KEY = 'chunk';

export class RevisionStore {
  readonly #client: KubeClient;
  readonly #namespace: string;
  readonly #chunkBytes: number;
  /** Decoded records by head uid: a record never changes, so it is read once. */
  readonly #cache = new Map<string, RevisionRecord>();

  constructor(client: KubeClient, namespace: string, options: { readonly chunkBytes?: number } = {}) {
    this.#client = client;
    this.#namespace = namespace;
    this.#chunkBytes = options.chunkBytes ?? CHUNK_BYTES;
  }

  #selector(extension: string, chunks: boolean): string {
    return `${OwnerKindKey}=${ClusterExtensionKind},${OwnerNameKey}=${extension},${chunks ? '' : '!'}${RevisionChunkKey}`;
  }

  /** The extension's revisions, oldest first. */
  async list(extension: string, signal?: AbortSignal): Promise<RevisionHead[]> {
    const list = await this.#client.list<Secret>({ ...SECRET_KIND, namespace: this.#namespace }, { labelSelector: this.#selector(extension, false), signal });
    return list.items
      .filter((s) => s.type === RevisionSecretType)
      .map(toHead)
      .sort((a, b) => a.number - b.number);
  }

  /** Deletes chunk Secrets whose head does not exist (an interrupted create or delete). */
  async sweep(extension: string, signal?: AbortSignal): Promise<void> {
    const heads = new Set((await this.list(extension, signal)).map((h) => h.name));
    const chunks = await this.#client.list<Secret>({ ...SECRET_KIND, namespace: this.#namespace }, { labelSelector: this.#selector(extension, true), signal });
    for (const c of chunks.items) {
      if (c.type !== RevisionSecretType || heads.has(c.metadata.labels?.[RevisionNameKey] ?? '')) continue;
      await ignoreNotFound(this.#client.delete({ ...SECRET_KIND, namespace: this.#namespace, name: c.metadata.name! }, { signal }));
    }
  }

  /** Writes revision `n`: chunks first, the head last. Returns the head. */
  async create(extension: string, n: number, bundle: BundleRef, phases: readonly Phase[], fingerprint: string, signal?: AbortSignal): Promise<RevisionHead> {
    const record = buildRecord(extension, n, bundle, phases);
    const name = record.metadata.name;
    const { chunks, digest } = encodeRecord(record, this.#chunkBytes);
    const labels = { ...ownerLabels(extension), [RevisionNameKey]: name };
    for (let i = 0; i < chunks.length; i++) {
      const chunk: Secret = {
        ...SECRET_KIND,
        metadata: { name: `${name}.${i}`, namespace: this.#namespace, labels: { ...labels, [RevisionChunkKey]: String(i) } },
        type: RevisionSecretType,
        immutable: true,
        data: { [DATA_KEY]: chunks[i]!.toString('base64') },
      };
      await this.#createReplacing(chunk, signal);
    }
    const head: Secret = {
      ...SECRET_KIND,
      metadata: {
        name,
        namespace: this.#namespace,
        labels,
        annotations: {
          ...bundleAnnotations(bundle),
          [RevisionNumberAnnotation]: String(n),
          [RevisionChunksAnnotation]: String(chunks.length),
          [RevisionDigestAnnotation]: digest,
          [RevisionFingerprintAnnotation]: fingerprint,
          [LifecycleStateAnnotation]: 'Active',
        },
      },
      type: RevisionSecretType,
      immutable: true,
    };
    const created = await this.#client.create<Secret>(head, { signal });
    this.#cache.set(created.metadata.uid!, record);
    return toHead(created);
  }

  /** A chunk left by an interrupted attempt may hold other bytes: replace it. */
  async #createReplacing(secret: Secret, signal?: AbortSignal): Promise<void> {
    try {
      await this.#client.create(secret, { signal });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      await ignoreNotFound(this.#client.delete({ ...SECRET_KIND, namespace: this.#namespace, name: secret.metadata.name! }, { signal }));
      await this.#client.create(secret, { signal });
    }
  }

  /** The full record of a revision (its chunks read and checked against the digest). */
  async read(head: RevisionHead, signal?: AbortSignal): Promise<RevisionRecord> {
    const cached = this.#cache.get(head.uid);
    if (cached) return cached;
    const parts: Buffer[] = [];
    for (let i = 0; i < head.chunks; i++) {
      const s = await this.#client.get<Secret>({ ...SECRET_KIND, namespace: this.#namespace, name: `${head.name}.${i}` }, { signal });
      parts.push(Buffer.from(s.data?.[DATA_KEY] ?? '', 'base64'));
    }
    const record = decodeRecord(parts, head.digest);
    this.#cache.set(head.uid, record);
    return record;
  }

  async markSucceeded(head: RevisionHead, signal?: AbortSignal): Promise<void> {
    if (head.succeeded) return;
    await this.#annotate(head, { [SucceededAnnotation]: 'True' }, signal);
  }

  /**
   * Adds the bundle's properties to a head written before revisions kept them (its data is immutable, its
   * annotations are not), so OpenShift's gating reads them without a new revision.
   */
  async recordProperties(head: RevisionHead, properties: string, signal?: AbortSignal): Promise<void> {
    if (head.bundle.properties !== undefined) return;
    await this.#annotate(head, { [BundlePropertiesAnnotation]: properties }, signal);
  }

  async archive(head: RevisionHead, signal?: AbortSignal): Promise<void> {
    if (head.archived) return;
    await this.#annotate(head, { [LifecycleStateAnnotation]: 'Archived' }, signal);
  }

  async #annotate(head: RevisionHead, annotations: Record<string, string>, signal?: AbortSignal): Promise<void> {
    await this.#client.patch(
      { ...SECRET_KIND, namespace: this.#namespace, name: head.name },
      'merge',
      { metadata: { uid: head.uid, annotations } },
      { signal },
    );
  }

  /** Deletes a revision: the head first (the revision is gone), then its chunks. */
  async delete(head: RevisionHead, signal?: AbortSignal): Promise<void> {
    await ignoreNotFound(this.#client.delete({ ...SECRET_KIND, namespace: this.#namespace, name: head.name }, { signal, preconditions: { uid: head.uid } }));
    for (let i = head.chunks - 1; i >= 0; i--) {
      await ignoreNotFound(this.#client.delete({ ...SECRET_KIND, namespace: this.#namespace, name: `${head.name}.${i}` }, { signal }));
    }
    this.#cache.delete(head.uid);
  }
}

/** Selects every revision head (not chunks) of every ClusterExtension, for readers outside the applier. */
export const RevisionHeadsSelector = `${OwnerKindKey}=${ClusterExtensionKind},!${RevisionChunkKey}`;

/** A revision head Secret read by someone else (e.g. OpenShift's gating): its extension and head; undefined for other Secrets. */
export function readRevisionHead(s: KubeObject & { type?: string }): { readonly extension: string; readonly head: RevisionHead } | undefined {
  const labels = s.metadata.labels ?? {};
  if (s.type !== RevisionSecretType || labels[OwnerKindKey] !== ClusterExtensionKind || labels[RevisionChunkKey] !== undefined) return undefined;
  const extension = labels[OwnerNameKey];
  return extension === undefined ? undefined : { extension, head: toHead(s) };
}

function toHead(s: Secret): RevisionHead {
  const a = s.metadata.annotations ?? {};
  const number = Number(a[RevisionNumberAnnotation]);
  return {
    name: s.metadata.name!,
    number: Number.isInteger(number) && number > 0 ? number : 0,
    bundle: bundleFromAnnotations(a) ?? { package: '', name: '', version: '', image: '' },
    fingerprint: a[RevisionFingerprintAnnotation] ?? '',
    digest: a[RevisionDigestAnnotation] ?? '',
    chunks: Math.max(1, Number(a[RevisionChunksAnnotation]) || 1),
    archived: a[LifecycleStateAnnotation] === 'Archived',
    succeeded: a[SucceededAnnotation] === 'True',
    uid: s.metadata.uid ?? '',
  };
}

export { revisionName };
