// A revision: the immutable record of one bundle's rendered objects, shaped like upstream's
// ClusterObjectSet (olmv1.md §1.4, §5.3) so a later move to that CRD is mechanical. Here it is
// built, fingerprinted, and turned into bytes (gzip, then cut into Secret-sized chunks).
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { KubeObject } from '../../../api/meta/v1.ts';
import {
  BundleNameKey,
  BundleReferenceKey,
  BundleReleaseKey,
  BundleVersionKey,
  ClusterExtensionKind,
  GroupVersion,
  OwnerKindKey,
  OwnerNameKey,
  PackageNameKey,
} from '../../../api/v1/index.ts';
import type { BundleRef } from '../controller/index.ts';
import { sortIntoPhases, type Phase, type PhaseName } from './phases.ts';

/** The revision record's own shape (a ClusterObjectSet without status). */
export interface RevisionRecord {
  readonly apiVersion: typeof GroupVersion;
  readonly kind: 'ClusterObjectSet';
  readonly metadata: {
    readonly name: string;
    readonly labels: Readonly<Record<string, string>>;
    readonly annotations: Readonly<Record<string, string>>;
  };
  readonly spec: {
    readonly lifecycleState: 'Active';
    readonly revision: number;
    readonly collisionProtection: 'Prevent';
    readonly phases: readonly { readonly name: PhaseName; readonly objects: readonly { readonly object: KubeObject }[] }[];
  };
}

/** Upstream limits a Secret's data to 1 MiB; Helm's chunked storage uses (1024-8) KiB per chunk. */
export const CHUNK_BYTES = (1024 - 8) * 1024;

/** `<extension>-<n>`, upstream's revision naming. */
export const revisionName = (extension: string, n: number): string => `${extension}-${n}`;

export const ownerLabels = (extension: string): Record<string, string> => ({ [OwnerKindKey]: ClusterExtensionKind, [OwnerNameKey]: extension });

/** Whether the object carries this extension's owner labels. */
export function ownedBy(obj: KubeObject | undefined, extension: string): boolean {
  const l = obj?.metadata.labels;
  return l?.[OwnerKindKey] === ClusterExtensionKind && l[OwnerNameKey] === extension;
}

/** The annotation upstream copies the bundle's properties (its CSV's `olm.properties`) into, on a ClusterObjectSet. */
export const BundlePropertiesAnnotation = 'olm.properties';

/** The bundle metadata annotations of a revision (upstream puts the same keys on a ClusterObjectSet). */
export function bundleAnnotations(bundle: BundleRef): Record<string, string> {
  return {
    [PackageNameKey]: bundle.package,
    [BundleNameKey]: bundle.name,
    [BundleVersionKey]: bundle.version,
    ...(bundle.release !== undefined && { [BundleReleaseKey]: bundle.release }),
    [BundleReferenceKey]: bundle.image,
    ...(bundle.properties !== undefined && { [BundlePropertiesAnnotation]: bundle.properties }),
  };
}

export function bundleFromAnnotations(a: Readonly<Record<string, string>> | undefined): BundleRef | undefined {
  const name = a?.[BundleNameKey];
  if (!a || name === undefined) return undefined;
  return {
    package: a[PackageNameKey] ?? '',
    name,
    version: a[BundleVersionKey] ?? '',
    ...(a[BundleReleaseKey] !== undefined && { release: a[BundleReleaseKey] }),
    image: a[BundleReferenceKey] ?? '',
    ...(a[BundlePropertiesAnnotation] !== undefined && { properties: a[BundlePropertiesAnnotation] }),
  };
}

/**
 * What is applied for one rendered object: status dropped, metadata reduced to name, namespace,
 * labels and annotations (as upstream sanitises revision objects), and the owner labels added.
 */
export function sanitize(obj: KubeObject, extension: string): KubeObject {
  const { status: _status, metadata, ...rest } = obj;
  const m: KubeObject['metadata'] = { name: metadata.name };
  if (metadata.namespace) m.namespace = metadata.namespace;
  m.labels = { ...metadata.labels, ...ownerLabels(extension) };
  if (metadata.annotations && Object.keys(metadata.annotations).length) m.annotations = { ...metadata.annotations };
  return { ...rest, metadata: m };
}

/** The phased, sanitised objects of a bundle. */
export function buildPhases(objects: readonly KubeObject[], extension: string): Phase[] {
  return sortIntoPhases(objects.map((o) => sanitize(o, extension)));
}

/** JSON with object keys sorted, so equal content gives equal bytes. */
export function canonicalJSON(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  });
}

/**
 * sha256 of the bundle and its phased objects: equal fingerprints need no new revision. The bundle's properties
 * are left out: they come with the bundle image, and records written before they were kept must still match.
 */
export function fingerprint(bundle: BundleRef, phases: readonly Phase[]): string {
  const { properties: _properties, ...identity } = bundle;
  const h = createHash('sha256');
  h.update(canonicalJSON({ bundle: identity, phases }));
  return `sha256:${h.digest('hex')}`;
}

export function buildRecord(extension: string, n: number, bundle: BundleRef, phases: readonly Phase[]): RevisionRecord {
  return {
    apiVersion: GroupVersion,
    kind: 'ClusterObjectSet',
    metadata: { name: revisionName(extension, n), labels: ownerLabels(extension), annotations: bundleAnnotations(bundle) },
    spec: {
      lifecycleState: 'Active',
      revision: n,
      collisionProtection: 'Prevent',
      phases: phases.map((p) => ({ name: p.name, objects: p.objects.map((object) => ({ object })) })),
    },
  };
}

export function phasesOf(record: RevisionRecord): Phase[] {
  return record.spec.phases.map((p) => ({ name: p.name, objects: p.objects.map((o) => o.object) }));
}

/** The record as gzip bytes cut into chunks of at most `chunkBytes`, with the digest of the whole. */
export function encodeRecord(record: RevisionRecord, chunkBytes = CHUNK_BYTES): { chunks: Buffer[]; digest: string } {
  const blob = gzipSync(Buffer.from(JSON.stringify(record)), { level: 9 });
  const chunks: Buffer[] = [];
  for (let at = 0; at < blob.length; at += chunkBytes) chunks.push(blob.subarray(at, at + chunkBytes));
  if (!chunks.length) chunks.push(Buffer.alloc(0));
  return { chunks, digest: `sha256:${createHash('sha256').update(blob).digest('hex')}` };
}

/** The inverse of encodeRecord; throws when the bytes do not match the digest. */
export function decodeRecord(chunks: readonly Buffer[], digest: string): RevisionRecord {
  const blob = Buffer.concat(chunks);
  const got = `sha256:${createHash('sha256').update(blob).digest('hex')}`;
  if (got !== digest) throw new Error(`revision data does not match its digest (want ${digest}, got ${got})`);
  return JSON.parse(gunzipSync(blob).toString('utf8')) as RevisionRecord;
}
