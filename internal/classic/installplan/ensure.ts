// Writing one step's object (upstream's StepEnsurer, step_ensurer.go): create it → Created; when it already
// exists, update it as upstream does for that kind → Present (a CSV or Subscription that exists is left
// alone). Errors carry upstream's texts. Updates of core and RBAC objects are upstream's operatorclient
// "Update*": read the object, patch it to equal the manifest (fields the manifest lacks are removed; what the
// server fills in, like a Service's clusterIP, is kept); other kinds are replaced with a PUT.
import type { KubeObject, OwnerReference } from '../../../api/meta/v1.ts';
import { StepStatusCreated, StepStatusPresent, type StepStatus } from '../../../api/operators/index.ts';
import { isAlreadyExists, isNotFound, objectRef, type KubeClient } from '../../shared/kube/index.ts';
import { errorMessage, isObject } from '../../shared/toolkit/index.ts';
import { canonical } from './crschema.ts';
import { opaque, wrap, wrapped } from './errors.ts';

import { OwnerLabel } from '../../../api/operators/index.ts';

/** Metadata the server owns: never part of an update's patch. */
const SYSTEM_METADATA = new Set(['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'managedFields', 'selfLink', 'deletionTimestamp', 'deletionGracePeriodSeconds']);

function diff(live: Record<string, unknown>, desired: Record<string, unknown>, skip: (key: string) => boolean): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(live), ...Object.keys(desired)])) {
    if (skip(key)) continue;
    const [a, b] = [live[key], desired[key]];
    if (b === undefined || b === null) {
      if (a !== undefined && a !== null) patch[key] = null;
    } else if (isObject(a) && isObject(b)) {
      const inner = diff(a, b, () => false);
      if (Object.keys(inner).length > 0) patch[key] = inner;
    } else if (canonical(a) !== canonical(b)) {
      patch[key] = b;
    }
  }
  return patch;
}

/**
 * The JSON merge patch that makes `live` equal `desired` (upstream's two-way patch from the object read back to
 * the manifest): every field `desired` lacks is removed, lists are replaced whole; `status`, `apiVersion`, `kind`
 * and the server's metadata are left alone. Undefined when there is nothing to change.
 */
export function twoWayPatch(live: KubeObject, desired: KubeObject): Record<string, unknown> | undefined {
  const top = diff(live as Record<string, unknown>, desired as Record<string, unknown>, (k) => k === 'status' || k === 'apiVersion' || k === 'kind' || k === 'metadata');
  const meta = diff(live.metadata as Record<string, unknown>, desired.metadata as Record<string, unknown>, (k) => SYSTEM_METADATA.has(k) || k === 'name' || k === 'namespace');
  if (Object.keys(meta).length > 0) top['metadata'] = meta;
  return Object.keys(top).length > 0 ? top : undefined;
}

/** operatorclient's Update*: read the object, patch it to the manifest. */
async function patchToManifest(client: KubeClient, obj: KubeObject, signal?: AbortSignal, normalize?: (live: KubeObject, desired: KubeObject) => void): Promise<void> {
  const live = await client.get(objectRef(obj), { signal });
  const desired = structuredClone(obj);
  normalize?.(live, desired);
  const patch = twoWayPatch(live, desired);
  if (patch) await client.patch(objectRef(obj), 'merge', patch, { signal });
}

async function create(client: KubeClient, obj: KubeObject, signal: AbortSignal | undefined): Promise<boolean> {
  try {
    await client.create(obj, { signal });
    return true;
  } catch (err) {
    if (isAlreadyExists(err)) return false;
    throw err;
  }
}

const nameOf = (obj: KubeObject): string => obj.metadata.name ?? '';

/** What a step's write came to; the StepEnsurer's methods, each over one (possibly attenuated) client. */
export type StepEnsurer = ReturnType<typeof stepEnsurer>;

/** The StepEnsurer over one (possibly attenuated) client. */
export function stepEnsurer(client: KubeClient, signal?: AbortSignal) {
  /** True when `obj` was created, false when it already exists; any other error wrapped in `message`. */
  const created = (obj: KubeObject, message: string): Promise<boolean> => wrapped(message, () => create(client, obj, signal));
  /** Created; one that exists is Present and left as it is. */
  const createOnly = async (obj: KubeObject, message: string): Promise<StepStatus> => ((await created(obj, message)) ? StepStatusCreated : StepStatusPresent);
  /** Created, or patched to the manifest (`normalize` adjusting the object read back and the manifest first). */
  const createOrPatch = async (obj: KubeObject, createMessage: string, updateMessage: string, normalize?: (live: KubeObject, desired: KubeObject) => void): Promise<StepStatus> => {
    if (await created(obj, createMessage)) return StepStatusCreated;
    await wrapped(updateMessage, () => patchToManifest(client, obj, signal, normalize));
    return StepStatusPresent;
  };

  return {
    clusterServiceVersion: (csv: KubeObject) => createOnly(csv, `error creating csv ${nameOf(csv)}`),
    subscription: (sub: KubeObject) => createOnly(sub, `error creating subscription ${nameOf(sub)}`),

    /** Copies the Secret `name` of the operator's namespace into the plan's (a pull secret; EnsureSecret). */
    async secret(operatorNamespace: string, planNamespace: string, name: string): Promise<StepStatus> {
      let secret: KubeObject;
      try {
        secret = await client.get({ apiVersion: 'v1', kind: 'Secret', namespace: operatorNamespace, name }, { signal });
      } catch (err) {
        if (isNotFound(err)) throw opaque(`secret ${name} does not exist - ${errorMessage(err)}`, err);
        throw wrap('error getting pull secret from olm namespace ', err); // upstream names the empty Secret its failed Get returned
      }
      const copy: KubeObject = {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: secret.metadata.name ?? name, namespace: planNamespace, labels: { 'olm.managed': 'true' } },
        ...(secret['data'] !== undefined && { data: secret['data'] }),
        ...(secret['type'] !== undefined && { type: secret['type'] }),
      };
      try {
        return (await create(client, copy, signal)) ? StepStatusCreated : StepStatusPresent;
      } catch (err) {
        throw opaque(`error creating secret ${copy.metadata.name ?? ''} - ${errorMessage(err)}`, err);
      }
    },

    /** A Secret of the bundle (EnsureBundleSecret): created, or patched to the manifest. */
    bundleSecret: (secret: KubeObject) => createOrPatch(secret, `error updating secret: ${nameOf(secret)}`, `error updating secret: ${nameOf(secret)}`),

    /** Created, or patched keeping the account's token secrets, owner references and other annotations (EnsureServiceAccount). */
    async serviceAccount(sa: KubeObject): Promise<StepStatus> {
      const name = nameOf(sa);
      if (await created(sa, `error creating service account: ${name}`)) return StepStatusCreated;
      const pre = await wrapped(`error getting older version of service account: ${name}`, () => client.get(objectRef(sa), { signal }));
      const desired = structuredClone(sa);
      if (pre['secrets'] !== undefined) desired['secrets'] = pre['secrets'];
      else delete desired['secrets'];
      const owners = mergedOwnerReferences(pre.metadata.ownerReferences ?? [], desired.metadata.ownerReferences ?? []);
      if (owners.length > 0) desired.metadata.ownerReferences = owners;
      else delete desired.metadata.ownerReferences;
      desired.metadata.annotations = { ...pre.metadata.annotations, ...desired.metadata.annotations };
      await wrapped(`error updating service account: ${name}`, async () => {
        const patch = twoWayPatch(pre, desired);
        if (patch) await client.patch(objectRef(sa), 'merge', patch, { signal });
      });
      return StepStatusPresent;
    },

    /** Created, or patched to the manifest; a clusterIP the manifest repeats from the cluster is not sent (EnsureService). */
    service(svc: KubeObject): Promise<StepStatus> {
      const message = `error updating service: ${nameOf(svc)}`;
      return createOrPatch(svc, message, message, (live, desired) => {
        const liveSpec = (live['spec'] ?? {}) as Record<string, unknown>;
        const spec = (desired['spec'] ?? {}) as Record<string, unknown>;
        // ClusterIP is immutable: upstream drops it from the old object, and from the manifest when it is the same.
        if (spec['clusterIP'] === liveSpec['clusterIP'] || spec['clusterIP'] === undefined || spec['clusterIP'] === '') {
          delete spec['clusterIP'];
          delete liveSpec['clusterIP'];
        }
      });
    },

    /**
     * A ClusterRole or ClusterRoleBinding (`error creating clusterrole <name>`, …): created, or patched with `olm.owner`
     * pointing at the newest CSV (EnsureClusterRole, EnsureClusterRoleBinding).
     */
    clusterRBAC(obj: KubeObject, resolving: string): Promise<StepStatus> {
      const what = `${(obj.kind ?? '').toLowerCase()} ${nameOf(obj)}`;
      return createOrPatch(obj, `error creating ${what}`, `error updating ${what}`, (_live, desired) => {
        desired.metadata.labels = { ...desired.metadata.labels, [OwnerLabel]: resolving };
      });
    },
    role: (role: KubeObject) => createOrPatch(role, `error creating role ${nameOf(role)}`, `error updating role ${nameOf(role)}`),
    roleBinding: (rb: KubeObject) => createOrPatch(rb, `error creating rolebinding ${nameOf(rb)}`, `error updating rolebinding ${nameOf(rb)}`),
    configMap: (cm: KubeObject) => createOrPatch(cm, `error updating configmap: ${nameOf(cm)}`, `error updating configmap: ${nameOf(cm)}`),

    /** Any other supported kind (EnsureUnstructuredObject): created, or replaced with a PUT at the current resourceVersion. */
    async unstructured(obj: KubeObject): Promise<StepStatus> {
      const name = nameOf(obj);
      if (await created(obj, `error creating unstructured object ${name}`)) return StepStatusCreated;
      const original = await wrapped(`error getting unstructured object ${name}`, () => client.get(objectRef(obj), { signal }));
      const replacement = structuredClone(obj);
      if (original.metadata.resourceVersion) replacement.metadata.resourceVersion = original.metadata.resourceVersion;
      await wrapped(`error updating unstructured object ${name}`, () => client.update(replacement, { signal }));
      return StepStatusPresent;
    },
  };
}

/** Owner references of both lists, each once (upstream's set, in a stable order: the existing ones first). */
export function mergedOwnerReferences(...lists: readonly (readonly OwnerReference[])[]): OwnerReference[] {
  const seen = new Set<string>();
  const out: OwnerReference[] = [];
  for (const list of lists) {
    for (const ref of list) {
      const key = canonical(ref);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(ref);
    }
  }
  return out;
}
