// `deploymentConfig` (OLMv0 SubscriptionConfig parity) applied to a generated Deployment, in
// upstream's order: env, envFrom, volumes, volumeMounts, tolerations, resources, nodeSelector,
// affinity, annotations.
import { isDeepStrictEqual } from 'node:util';

export interface DeploymentConfig {
  nodeSelector?: Record<string, string> | null;
  tolerations?: Record<string, unknown>[] | null;
  resources?: Record<string, unknown> | null;
  envFrom?: Record<string, unknown>[] | null;
  env?: { name: string; [k: string]: unknown }[] | null;
  volumes?: { name: string; [k: string]: unknown }[] | null;
  volumeMounts?: { name: string; [k: string]: unknown }[] | null;
  affinity?: Record<string, unknown> | null;
  annotations?: Record<string, string> | null;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

/** Go's reflect.DeepEqual on the typed value: empty strings, false and empty lists equal absent fields. */
function goEqual(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(goZeroless(a), goZeroless(b));
}
function goZeroless(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(goZeroless);
  if (typeof v !== 'object' || v === null) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === null || x === undefined || x === '' || x === false || x === 0) continue;
    out[k] = goZeroless(x);
  }
  return out;
}

/** Replace by name, else append (env; volumes and volumeMounts, where v1 differs from v0's plain append). */
function mergeByName(existing: Obj[], additions: readonly Obj[]): Obj[] {
  const out = [...existing];
  const index = new Map(out.map((e, i) => [e['name'], i]));
  for (const a of additions) {
    const i = index.get(a['name']);
    if (i !== undefined) out[i] = a;
    else out.push(a);
  }
  return out;
}

function appendUnique(existing: Obj[], additions: readonly Obj[]): Obj[] {
  const out = [...existing];
  for (const a of additions) if (!existing.some((e) => goEqual(e, a))) out.push(a);
  return out;
}

const AFFINITY_PARTS = {
  nodeAffinity: (a: Obj) =>
    list(obj(a['requiredDuringSchedulingIgnoredDuringExecution'])['nodeSelectorTerms']).length === 0 &&
    list(a['preferredDuringSchedulingIgnoredDuringExecution']).length === 0,
  podAffinity: (a: Obj) =>
    list(a['requiredDuringSchedulingIgnoredDuringExecution']).length === 0 && list(a['preferredDuringSchedulingIgnoredDuringExecution']).length === 0,
  podAntiAffinity: (a: Obj) =>
    list(a['requiredDuringSchedulingIgnoredDuringExecution']).length === 0 && list(a['preferredDuringSchedulingIgnoredDuringExecution']).length === 0,
} as const;

function applyAffinity(podSpec: Obj, affinity: Obj): void {
  const parts = Object.keys(AFFINITY_PARTS) as (keyof typeof AFFINITY_PARTS)[];
  if (parts.every((p) => affinity[p] == null)) {
    delete podSpec['affinity']; // `affinity: {}` erases
    return;
  }
  const current: Obj = { ...obj(podSpec['affinity']) };
  for (const p of parts) {
    const want = affinity[p];
    if (want == null) continue;
    if (AFFINITY_PARTS[p](obj(want))) delete current[p];
    else current[p] = want;
  }
  if (parts.every((p) => current[p] == null || AFFINITY_PARTS[p](obj(current[p])))) delete podSpec['affinity'];
  else podSpec['affinity'] = current;
}

/** Applies `config` to a generated Deployment object in place. */
export function applyDeploymentConfig(deployment: Obj, config: DeploymentConfig | undefined): void {
  if (!config) return;
  const spec = obj(deployment['spec']);
  const template = obj(spec['template']);
  const podSpec = obj(template['spec']);
  const containers = list(podSpec['containers']);
  if (config.env && config.env.length > 0) for (const c of containers) c['env'] = mergeByName(list(c['env']), config.env);
  if (config.envFrom && config.envFrom.length > 0) for (const c of containers) c['envFrom'] = appendUnique(list(c['envFrom']), config.envFrom);
  if (config.volumes && config.volumes.length > 0) podSpec['volumes'] = mergeByName(list(podSpec['volumes']), config.volumes);
  if (config.volumeMounts && config.volumeMounts.length > 0) {
    for (const c of containers) c['volumeMounts'] = mergeByName(list(c['volumeMounts']), config.volumeMounts);
  }
  if (config.tolerations && config.tolerations.length > 0) podSpec['tolerations'] = appendUnique(list(podSpec['tolerations']), config.tolerations);
  if (config.resources != null) for (const c of containers) c['resources'] = structuredClone(config.resources);
  if (config.nodeSelector != null) podSpec['nodeSelector'] = { ...config.nodeSelector };
  if (config.affinity != null) applyAffinity(podSpec, config.affinity);
  if (config.annotations && Object.keys(config.annotations).length > 0) {
    const meta = obj(deployment['metadata']);
    meta['annotations'] = { ...config.annotations, ...obj(meta['annotations']) };
    const tmeta = obj((template['metadata'] ??= {}));
    tmeta['annotations'] = { ...config.annotations, ...obj(tmeta['annotations']) };
  }
}
