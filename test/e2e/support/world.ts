// One scenario's context, as upstream's hooks.go keeps it: its id and the names derived from it, the catalogs and
// packages it made, what it applied (deleted afterwards) and removed (for "eventually restored"), the objects of
// its extension, the stderr of its last apply; and the waits its steps share.
import { load, dump } from 'js-yaml';
import type { Condition } from '../../../api/meta/v1.ts';
import { poll } from '../../support/net.ts';
import type { RunningProfile } from './profile.ts';
import { KubectlError, type KubectlResult } from './kubectl.ts';

/** A kubernetes object as kubectl prints it. */
export interface Obj {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    generation?: number;
    creationTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[];
  };
  [k: string]: unknown;
}

export interface Tracked {
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
}

/** Upstream's tick is 1 s; these waits poll the API (or kubectl) more often. */
export const TICK_MS = 500;

/** How long one step waits (upstream: 5 minutes, E2E_STEP_TIMEOUT; here 2 minutes unless E2E_STEP_TIMEOUT says otherwise). */
export const STEP_TIMEOUT_MS = ((): number => {
  const v = process.env.E2E_STEP_TIMEOUT;
  const m = v ? /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(v) : null;
  if (!m) return 120_000;
  return Number(m[1]) * ({ ms: 1, s: 1000, m: 60_000 } as const)[m[2] as 'ms' | 's' | 'm'];
})();

export class World {
  readonly namespace: string;
  readonly extensionName: string;
  objectSetName: string;
  readonly catalogs = new Map<string, string>();
  readonly packageNames = new Map<string, string>();
  readonly added: Tracked[] = [];
  readonly removed: Obj[] = [];
  /** By component (catalogd, operator-controller): the Pod holding its leader Lease when last looked (upstream's leaderPods). */
  readonly leaderPods = new Map<string, string>();
  /** By Pod: the body its metrics endpoint answered (upstream's metricsResponse). */
  readonly metricsResponses = new Map<string, string>();
  /** The recording proxy a proxy step started (stopped at cleanup). */
  proxy: { readonly hosts: readonly string[] } | undefined;
  extensionObjects: Obj[] = [];
  lastApplyStderr = '';

  readonly profile: RunningProfile;
  readonly id: string;
  readonly feature: string;
  readonly scenario: string;

  constructor(profile: RunningProfile, id: string, feature: string, scenario: string) {
    this.profile = profile;
    this.id = id;
    this.feature = feature;
    this.scenario = scenario;
    this.namespace = `ns-${id}`;
    this.extensionName = `ce-${id}`;
    this.objectSetName = `cos-${id}`;
  }

  get kubectl() {
    return this.profile.kubectl;
  }

  /** `${VAR}` → its value (Go's os.Expand over upstream's variables); unknown variables stay as written. */
  substitute(text: string): string {
    const vars = new Map<string, string>([
      ['TEST_NAMESPACE', this.namespace],
      ['NAME', this.extensionName],
      ['COS_NAME', this.objectSetName],
      ['SCENARIO_ID', this.id],
      ['OLM_NAMESPACE', this.profile.olmNamespace],
    ]);
    for (const [orig, name] of this.packageNames) vars.set(`PACKAGE:${orig}`, name);
    for (const [orig, name] of this.catalogs) vars.set(`CATALOG:${orig}`, name);
    return text.replace(/\$\{([^}]*)\}/g, (whole, key: string) => vars.get(key) ?? whole);
  }

  /** Polls `check` (which returns true when done, or a description of what it saw) until it is done or the step times out. */
  async waitFor(what: string, check: () => Promise<true | string>, timeoutMs = STEP_TIMEOUT_MS): Promise<void> {
    let last = '';
    const attempt = async (): Promise<boolean> => {
      try {
        const r = await check();
        if (r === true) return true;
        last = r;
      } catch (err) {
        last = (err as Error).message;
      }
      return false;
    };
    if (!(await poll(attempt, { timeoutMs, intervalMs: TICK_MS }))) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)}s waiting for ${what}; last seen: ${last}`);
  }

  /** kubectl; non-zero exit throws with its stderr. */
  k(args: readonly string[], input?: string): Promise<string> {
    return this.kubectl.must(args, input);
  }

  kRun(args: readonly string[], input?: string): Promise<KubectlResult> {
    return this.kubectl.run(args, input);
  }

  /** `kubectl get <kind> <name> [-n ns] -o json`, or undefined when it is not there. */
  async getObject(kind: string, name: string, namespace?: string): Promise<Obj | undefined> {
    const args = ['get', kind, name, '--ignore-not-found', '-o', 'json', ...(namespace ? ['-n', namespace] : [])];
    const out = (await this.k(args)).trim();
    return out === '' ? undefined : (JSON.parse(out) as Obj);
  }

  /** GET of an OLM object by the API (conditions are polled this way: no kubectl process per tick). */
  async getOlm(plural: 'clusterextensions' | 'clusterobjectsets' | 'clustercatalogs', name: string): Promise<Obj | undefined> {
    const r = await this.profile.kube.request<Obj>('GET', `/apis/olm.operatorframework.io/v1/${plural}/${name}`);
    if (r.status === 404) return undefined;
    if (r.status !== 200) throw new Error(`GET ${plural}/${name}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  /** Waits for a condition of an OLM object (type and status; reason and message when given). */
  async waitForCondition(
    plural: 'clusterextensions' | 'clusterobjectsets' | 'clustercatalogs',
    name: string,
    type: string,
    status: string,
    reason?: string,
    message?: (actual: string) => boolean,
    expected = '',
  ): Promise<void> {
    const want = `${type}=${status}${reason ? ` reason ${reason}` : ''}${expected}`;
    await this.waitFor(`${plural}/${name} condition ${want}`, async () => {
      const o = await this.getOlm(plural, name);
      if (!o) return `${plural}/${name} not found`;
      const c = conditionsOf(o).find((x) => x.type === type);
      if (!c) return `no ${type} condition (conditions: ${JSON.stringify(conditionsOf(o))})`;
      if (c.status === status && (reason === undefined || c.reason === reason) && (!message || message(c.message))) return true;
      return JSON.stringify({ type: c.type, status: c.status, reason: c.reason, message: c.message });
    });
  }

  /** Applies YAML with kubectl (test annotations added, as upstream's ResourceIsApplied) and tracks it for cleanup. */
  async apply(yamlText: string, extra: readonly string[] = []): Promise<Obj> {
    const obj = parseYaml(this.substitute(yamlText));
    obj.metadata ??= {};
    obj.metadata.annotations = {
      ...obj.metadata.annotations,
      'e2e.olm.operatorframework.io/feature': this.feature,
      'e2e.olm.operatorframework.io/scenario': this.scenario,
    };
    const r = await this.kRun(['apply', '-f', '-', ...extra], dump(obj));
    if (r.code !== 0) throw new Error(`failed to apply resource ${r.stdout}; err: exit ${r.code}; stderr: ${r.stderr}`);
    this.lastApplyStderr = r.stderr;
    this.track(obj);
    return obj;
  }

  track(obj: Obj): void {
    const kind = obj.kind ?? '';
    const name = obj.metadata?.name ?? '';
    if (kind === 'ClusterExtension') this.added.push({ kind: 'clusterextension', name });
    else if (kind === 'ClusterObjectSet') {
      this.objectSetName = name;
      this.added.push({ kind: 'clusterobjectset', name });
    } else this.added.push({ kind: kind.toLowerCase(), name, namespace: obj.metadata?.namespace ?? this.namespace });
  }

  /** Upstream's ScenarioCleanup: deletes what the scenario applied, its catalogs and its namespace (8 at a time). */
  /** What a step changed outside the scenario's objects (a Deployment's env), restored first at cleanup, last change first. */
  readonly restores: (() => Promise<void>)[] = [];
  /** The components whose Deployment env a step changed (restored once, to what it was first). */
  readonly envPatched = new Set<string>();

  async cleanup(): Promise<void> {
    for (const restore of this.restores.splice(0).reverse()) await restore().catch(() => undefined);
    const all: Tracked[] = [...this.added];
    for (const c of this.catalogs.values()) all.push({ kind: 'clustercatalog', name: c });
    all.push({ kind: 'namespace', name: this.namespace });
    const queue = [...all];
    const worker = async (): Promise<void> => {
      for (let r = queue.shift(); r; r = queue.shift()) {
        await this.kRun(['delete', r.kind, r.name, '--ignore-not-found=true', '--wait=false', ...(r.namespace ? ['-n', r.namespace] : [])]).catch(() => undefined);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
  }
}

export function conditionsOf(o: Obj): Condition[] {
  return ((o.status as { conditions?: Condition[] } | undefined)?.conditions ?? []) as Condition[];
}

export function parseYaml(text: string): Obj {
  const v = load(text);
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`failed to parse resource yaml: not an object: ${text.slice(0, 200)}`);
  return v as Obj;
}

/** `kind/name` as upstream's steps split it. */
export function splitResource(resource: string): { kind: string; name: string } {
  const i = resource.indexOf('/');
  if (i < 0) throw new Error(`resource ${resource} is not in the format <kind>/<name>`);
  return { kind: resource.slice(0, i), name: resource.slice(i + 1) };
}

/** Whitespace runs collapsed to one space (upstream's strings.Join(strings.Fields(s), " ")). */
export const fields = (s: string): string => s.split(/\s+/).filter((x) => x !== '').join(' ');

export { KubectlError };
