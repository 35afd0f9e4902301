// A ClusterObjectSet's phases as objects: inline objects copied, `ref`s read from their Secrets (gzip detected by its
// magic bytes, at most 10 MiB once inflated), a digest per phase of what was resolved, and the checks upstream makes
// before any of it is applied: every referenced Secret immutable, and the digests equal to status.observedPhases.
// Messages are upstream's (operator-controller internal/operator-controller/controllers/clusterobjectset_controller.go).
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { ClusterObjectSet, CollisionProtection, ObjectSourceRef, ObservedPhase } from '../../../api/v1/index.ts';
import { goJSONValue } from '../../shared/gocompat/index.ts';
import { tryOrThrow } from '../../shared/toolkit/index.ts';

/** How the resolver reads a Secret: undefined when it does not exist. */
export type SecretReader = (namespace: string, name: string) => Promise<KubeObject | undefined>;

export interface ResolvedObject {
  readonly object: KubeObject;
  /** object > phase > spec > Prevent. */
  readonly collisionProtection: CollisionProtection;
}

export interface ResolvedPhase {
  readonly name: string;
  readonly objects: readonly ResolvedObject[];
}

const MAX_INFLATED_BYTES = 10 * 1024 * 1024;

/** upstream's EffectiveCollisionProtection: the last one set of spec, phase, object; Prevent when none is. */
export function effectiveCollisionProtection(...levels: (CollisionProtection | undefined)[]): CollisionProtection {
  return levels.findLast((l) => !!l) ?? 'Prevent';
}

/** `sha256:<hex>` of `{"name":…,"objects":[…]}` as Go's encoding/json writes it (sorted keys). */
export function phaseDigest(name: string, objects: readonly KubeObject[]): string {
  return `sha256:${createHash('sha256').update(goJSONValue({ name, objects }, true)).digest('hex')}`;
}

/** One ref's object; errors read as upstream's. */
export async function resolveRef(ref: ObjectSourceRef, systemNamespace: string, read: SecretReader): Promise<KubeObject> {
  const namespace = ref.namespace || systemNamespace;
  const where = `Secret ${namespace}/${ref.name}`;
  const secret = await read(namespace, ref.name);
  if (!secret) throw new Error(`getting ${where}: secrets "${ref.name}" not found`);
  const b64 = (secret['data'] as Record<string, string> | undefined)?.[ref.key];
  if (b64 === undefined) throw new Error(`key "${ref.key}" not found in ${where}`);
  let data = Buffer.from(b64, 'base64');
  if (data.length >= 2 && data[0] === 0x1f && data[1] === 0x8b) {
    try {
      data = gunzipSync(data, { maxOutputLength: MAX_INFLATED_BYTES + 1 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new Error(`decompressed data for key "${ref.key}" in ${where} exceeds maximum size (${MAX_INFLATED_BYTES} bytes)`, { cause: err });
      }
      throw new Error(`decompressing key "${ref.key}" in ${where}: ${(err as Error).message}`, { cause: err });
    }
    if (data.length > MAX_INFLATED_BYTES) throw new Error(`decompressed data for key "${ref.key}" in ${where} exceeds maximum size (${MAX_INFLATED_BYTES} bytes)`);
  }
  const parsed: unknown = tryOrThrow(
    () => JSON.parse(data.toString('utf8')),
    (err) => new Error(`unmarshaling object from key "${ref.key}" in ${where}: ${err.message}`, { cause: err }),
  );
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`unmarshaling object from key "${ref.key}" in ${where}: not a JSON object`);
  }
  const obj = parsed as KubeObject;
  obj.metadata ??= {};
  return obj;
}

/**
 * Every phase's objects (deep copies of inline ones, refs read) and its digest, computed before the controller adds
 * anything to the objects. Throws on the first object that cannot be resolved, naming its phase.
 */
export async function resolvePhases(
  cos: ClusterObjectSet,
  systemNamespace: string,
  read: SecretReader,
): Promise<{ phases: ResolvedPhase[]; observed: ObservedPhase[] }> {
  const phases: ResolvedPhase[] = [];
  const observed: ObservedPhase[] = [];
  for (const phase of cos.spec?.phases ?? []) {
    const objects: ResolvedObject[] = [];
    for (const o of phase.objects) {
      let object: KubeObject;
      if (o.object) object = structuredClone(o.object);
      else if (o.ref?.name) {
        object = await resolveRef(o.ref, systemNamespace, read).catch((err: unknown) => {
          throw new Error(`resolving ref in phase "${phase.name}": ${(err as Error).message}`, { cause: err });
        });
      } else throw new Error(`object in phase "${phase.name}" has neither object nor ref`);
      objects.push({ object, collisionProtection: effectiveCollisionProtection(cos.spec?.collisionProtection, phase.collisionProtection, o.collisionProtection) });
    }
    observed.push({ name: phase.name, digest: phaseDigest(phase.name, objects.map((o) => o.object)) });
    phases.push({ name: phase.name, objects });
  }
  return { phases, observed };
}

/** upstream's verifyObservedPhases: undefined when the current digests match those stored. */
export function observedPhasesProblem(stored: readonly ObservedPhase[], current: readonly ObservedPhase[]): string | undefined {
  if (stored.length === 0) return 'stored observedPhases is unexpectedly empty';
  if (stored.length !== current.length) return `number of phases has changed (expected ${stored.length} phases, got ${current.length})`;
  const byName = new Map(stored.map((s) => [s.name, s.digest]));
  const mismatches: string[] = [];
  for (const c of current) {
    const prev = byName.get(c.name);
    if (prev !== undefined && prev !== c.digest) mismatches.push(`phase "${c.name}" (expected digest ${prev}, got ${c.digest})`);
  }
  if (mismatches.length === 0) return undefined;
  return (
    `resolved content of ${mismatches.length} phase(s) has changed: ${mismatches.join('; ')}; ` +
    'a referenced object source may have been deleted and recreated with different content'
  );
}

/** The Secrets the revision's objects reference, in phase and object order (repeats kept), namespace defaulted. */
export function referencedSecrets(cos: ClusterObjectSet, systemNamespace: string): { namespace: string; name: string }[] {
  return (cos.spec?.phases ?? []).flatMap((phase) => phase.objects.flatMap((o) => (o.ref?.name ? [{ namespace: o.ref.namespace || systemNamespace, name: o.ref.name }] : [])));
}

/**
 * upstream's verifyReferencedSecretsImmutable: undefined when every referenced Secret that exists is immutable
 * (a missing one is left to resolution, which reports it and retries).
 */
export async function mutableSecretsProblem(cos: ClusterObjectSet, systemNamespace: string, read: SecretReader): Promise<string | undefined> {
  const mutable: string[] = [];
  const refs = new Map(referencedSecrets(cos, systemNamespace).map((r) => [`${r.namespace}/${r.name}`, r]));
  for (const [key, { namespace, name }] of refs) {
    const secret = await read(namespace, name);
    if (secret && secret['immutable'] !== true) mutable.push(key);
  }
  if (mutable.length === 0) return undefined;
  return `the following secrets are not immutable (referenced secrets must have immutable set to true): ${mutable.join(', ')}`;
}
