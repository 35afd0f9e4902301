// The classic resolver (OLM R/resolver.go Resolve, R/variable_types.go): subscriptions, installed
// CSVs and catalog entries become solver variables; the solution is the entries to install. `resolve` runs one
// `Resolver`, whose methods are upstream's of the same names.
import { celLoaded, loadCel } from './cel.ts';
import { atMost, conflict, dependency, mandatory, pretty, prohibited, type Constraint, type Variable } from './constraints.ts';
import { catalogString, compareCatalogs, EXISTING, isVirtual, sortBundles, sortChannel, type CatalogKey, type Entry } from './entries.ts';
import { ClassicResolutionError } from './errors.ts';
import { noopClassicResolutionMetrics, type ClassicResolutionMetrics } from './metrics.ts';
import { decodedProperties, gvkKey, predicateForProperty, type Predicate } from './predicates.ts';
import { solve, type SolveOptions, type SolveStats } from './solver.ts';

export interface Catalog {
  readonly key: CatalogKey;
  readonly priority?: number;
  readonly entries: readonly Entry[];
}

export interface Subscription {
  readonly name: string;
  readonly namespace: string;
  readonly spec: { readonly source: string; readonly sourceNamespace: string; readonly name: string; readonly channel?: string; readonly startingCSV?: string };
  readonly status?: { readonly installedCSV?: string };
}

export interface ResolveInput {
  /** The resolving namespace first, then the global catalog namespace (upstream's `namespaces`). */
  readonly namespaces: readonly string[];
  readonly catalogs: readonly Catalog[];
  /** Installed CSVs of the resolving namespace, as entries of the @existing catalog. */
  readonly installed?: readonly Entry[];
  readonly subscriptions: readonly Subscription[];
}

export interface ResolvedEntry {
  readonly entry: Entry;
  /** The installed CSV this one upgrades (upstream overwrites Replaces). */
  readonly replaces?: string | undefined;
  readonly startingCSV?: string | undefined;
}

export interface ResolverOptions extends SolveOptions {
  readonly metrics?: ClassicResolutionMetrics;
  readonly stats?: SolveStats;
}

const bundleId = (name: string, channel: string, catalog: CatalogKey): string => `${catalogString(catalog)}/${channel}/${name}`;
const entryId = (e: Entry): string => bundleId(e.name, e.channel, e.catalog);

/** k8s utilerrors.NewAggregate(...).Error(). */
function aggregate(errs: readonly string[]): string {
  const unique = [...new Set(errs)];
  return unique.length === 1 ? (unique[0] as string) : `[${unique.join(', ')}]`;
}

interface MutableVariable {
  readonly id: string;
  readonly constraints: Constraint[];
  readonly entry?: Entry;
  replaces?: string;
}

/**
 * Loads the CEL library when an entry of the input (catalog or installed) carries an olm.constraint,
 * which may hold a cel rule: `resolve` compiles such rules synchronously. Await it before `resolve`.
 */
export async function loadCelFor(input: ResolveInput): Promise<void> {
  if (celLoaded()) return;
  if ((input.installed ?? []).some(hasConstraint) || input.catalogs.some((c) => catalogHasConstraint(c.entries))) await loadCel();
}

const hasConstraint = (e: Entry): boolean => e.properties.some((p) => p.type === 'olm.constraint');

// Per catalog entry list, whether it holds an olm.constraint: a catalog's entries are built once per content,
// so a cluster without any scans each catalog once, not on every resolution.
const scanned = new WeakMap<readonly Entry[], boolean>();
function catalogHasConstraint(entries: readonly Entry[]): boolean {
  let found = scanned.get(entries);
  if (found === undefined) scanned.set(entries, (found = entries.some(hasConstraint)));
  return found;
}

/** Resolves subscriptions; records `olm_resolution_duration_seconds{outcome}`. Throws ClassicResolutionError. */
export function resolve(input: ResolveInput, options: ResolverOptions = {}): ResolvedEntry[] {
  const start = process.hrtime.bigint();
  const metrics = options.metrics ?? noopClassicResolutionMetrics;
  try {
    const out = new Resolver(input).resolve(options);
    metrics.observe('succeeded', Number(process.hrtime.bigint() - start) / 1e9);
    return out;
  } catch (err) {
    metrics.observe('failed', Number(process.hrtime.bigint() - start) / 1e9);
    throw err;
  }
}

/**
 * One resolution, upstream's Resolver (R/resolver.go) over one namespace's snapshot: the constructor builds the
 * snapshot (the @existing catalog of installed CSVs, the allowed catalogs and their indexes); `resolve` is upstream's
 * Resolve; `getSubscriptionVariables`, `getBundleVariables` and `newBundleVariableFromEntry` are its methods of those
 * names (`addInvariants` is the function below). One instance per resolution: the variables found so far are its state.
 */
class Resolver {
  readonly #input: ResolveInput;
  readonly namespace: string;
  readonly existingKey: CatalogKey;
  readonly existing: Entry[];
  readonly catalogs: Catalog[];
  readonly #priorities: Map<string, number>;
  readonly byCatalog: Map<string, Catalog>;
  // Indexes over every loaded entry: by package (name or olm.package property) and by provided GVK.
  readonly byPackage = new Map<string, Entry[]>();
  readonly byGvk = new Map<string, Entry[]>();
  readonly position = new Map<Entry, number>();

  readonly errs: string[] = [];
  readonly variables = new Map<string, MutableVariable>();
  readonly visited = new Map<Entry, MutableVariable>();
  // Dependency predicates and their sorted candidates depend only on the property (type + raw
  // value) and the dependent's catalog, so they are computed once per distinct pair.
  readonly predicateCache = new Map<string, Predicate | undefined>();
  readonly candidateCache = new Map<string, Entry[] | Error>();

  constructor(input: ResolveInput) {
    this.#input = input;
    const namespace = input.namespaces[0];
    if (namespace === undefined) throw new ClassicResolutionError('RESOLUTION', 'at least one namespace must be provided to resolution');
    this.namespace = namespace;
    this.existingKey = { name: EXISTING, namespace };
    const subscribedCsvs = new Set(input.subscriptions.map((s) => s.status?.installedCSV).filter((x): x is string => !!x));
    this.existing = (input.installed ?? []).map((e) => ({ ...e, catalog: this.existingKey, channel: '', subscribed: subscribedCsvs.has(e.name) }));
    const allowed = new Set(input.namespaces);
    this.catalogs = [{ key: this.existingKey, entries: this.existing }, ...input.catalogs.filter((c) => allowed.has(c.key.namespace))];
    this.#priorities = new Map(input.catalogs.map((c) => [catalogString(c.key), c.priority ?? 0]));
    this.byCatalog = new Map(this.catalogs.map((c) => [catalogString(c.key), c]));
    const add = (m: Map<string, Entry[]>, k: string, e: Entry): void => {
      const list = m.get(k);
      if (!list) m.set(k, [e]);
      else if (list[list.length - 1] !== e) list.push(e);
    };
    for (const c of this.catalogs) {
      for (const e of c.entries) {
        this.position.set(e, this.position.size);
        add(this.byPackage, e.package, e);
        for (const p of decodedProperties(e)) {
          const v = p.value as Record<string, unknown> | null;
          if (v === null || typeof v !== 'object') continue;
          if (p.type === 'olm.package' && typeof v.packageName === 'string') add(this.byPackage, v.packageName, e);
          if (p.type === 'olm.gvk') add(this.byGvk, gvkKey(v.group, v.version, v.kind), e);
        }
      }
    }
  }

  /** upstream's Resolve: the existing bundles, each Subscription's variables, the invariants, then the solver. */
  resolve(options: ResolverOptions): ResolvedEntry[] {
    const input = this.#input;
    this.getBundleVariables([...this.existing]);

    const startingCSVs = new Set<string>();
    for (const sub of input.subscriptions) {
      const matches = this.existing.filter((e) => e.name === (sub.status?.installedCSV ?? ''));
      if (matches.length > 1) {
        throw new ClassicResolutionError(
          'RESOLUTION',
          `multiple name matches for status.installedCSV of subscription ${sub.namespace}/${sub.name}: ${matches.map((m) => m.name).join(', ')}`,
        );
      }
      const current = matches[0];
      if (!current && sub.spec.startingCSV) startingCSVs.add(sub.spec.startingCSV);
      try {
        for (const v of this.getSubscriptionVariables(sub, current)) this.variables.set(v.id, v);
      } catch (err) {
        this.errs.push((err as Error).message);
      }
    }

    addInvariants(this.variables);
    if (this.errs.length > 0) throw new ClassicResolutionError('RESOLUTION', aggregate(this.errs));

    // Upstream builds its input from a Go map (random order); ours is sorted by identifier.
    const problem: Variable[] = [...this.variables.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const solved = solve(problem, options, options.stats) as MutableVariable[];
    return solved.flatMap((v) =>
      !v.entry || isVirtual(v.entry.catalog) ? [] : [{ entry: v.entry, replaces: v.replaces, startingCSV: startingCSVs.has(v.entry.name) ? v.entry.name : undefined }],
    );
  }

  /** The catalogs in preference order for a bundle of `preferred` (its own catalog first). */
  ordered(preferred: CatalogKey | undefined): Catalog[] {
    const { namespace } = this;
    const priority = (k: CatalogKey): number => this.#priorities.get(catalogString(k)) ?? 0;
    return [...this.catalogs].sort((a, b) => compareCatalogs(a.key, b.key, { preferred, namespace, priority }));
  }

  /** The entries a dependency predicate can match, by its hint. */
  scope(d: Predicate): Iterable<Entry> {
    if (d.hint?.package !== undefined) return this.byPackage.get(d.hint.package) ?? [];
    if (d.hint?.gvk !== undefined) return this.byGvk.get(d.hint.gvk) ?? [];
    return this.catalogs.flatMap((c) => c.entries);
  }

  predicatesOf(e: Entry): { key: string; pred: Predicate }[] {
    const out: { key: string; pred: Predicate }[] = [];
    for (const p of e.properties) {
      const key = `${p.type}\u0000${p.value}`;
      if (!this.predicateCache.has(key)) this.predicateCache.set(key, predicateForProperty(p.type, p.value));
      const pred = this.predicateCache.get(key);
      if (pred) out.push({ key, pred });
    }
    return out;
  }

  candidatesOf(bundle: Entry, key: string, d: Predicate): Entry[] {
    const cacheKey = `${catalogString(bundle.catalog)}\u0000${key}`;
    let cached = this.candidateCache.get(cacheKey);
    if (!cached) {
      cached = this.computeCandidates(bundle, d);
      this.candidateCache.set(cacheKey, cached);
    }
    if (cached instanceof Error) throw cached;
    return cached;
  }

  computeCandidates(bundle: Entry, d: Predicate): Entry[] | Error {
    // every (catalog, package, channel) holding a match, then all of their entries in preference order
    const sources = new Set<string>();
    const exact = new Set<Entry>();
    // every entry the predicate can match is in scope(d), so this is the full set of matches
    const matched = new Set<Entry>();
    for (const e of this.scope(d)) {
      if (!d.test(e)) continue;
      matched.add(e);
      if (isVirtual(e.catalog)) exact.add(e);
      else sources.add(`${catalogString(e.catalog)}\u0000${e.package}\u0000${e.channel}`);
    }
    // entries of those sources, catalogs in preference order (each catalog's own entry order kept)
    const pool: Entry[] = [];
    const packages = new Set([...sources].map((s) => s.split('\u0000')[1] ?? ''));
    for (const c of this.ordered(bundle.catalog)) {
      const ck = catalogString(c.key);
      const within = isVirtual(c.key) ? c.entries : [...packages].flatMap((p) => (this.byPackage.get(p) ?? []).filter((e) => catalogString(e.catalog) === ck));
      const inOrder = isVirtual(c.key) ? within : [...new Set(within)].sort((a, b) => (this.position.get(a) ?? 0) - (this.position.get(b) ?? 0));
      for (const e of inOrder) {
        if (exact.has(e) || sources.has(`${catalogString(e.catalog)}\u0000${e.package}\u0000${e.channel}`)) pool.push(e);
      }
    }
    try {
      return sortBundles(pool).filter((x) => matched.has(x));
    } catch (err) {
      return err as Error;
    }
  }

  /** upstream's newBundleVariableFromEntry. */
  newBundleVariableFromEntry(e: Entry): MutableVariable {
    const id = entryId(e);
    const constraints: Constraint[] = [];
    if (isVirtual(e.catalog) && !e.subscribed) {
      constraints.push(pretty(mandatory(), `clusterserviceversion ${e.name} exists and is not referenced by a subscription`));
    }
    if (e.properties.some((p) => p.type === 'olm.deprecated')) constraints.push(pretty(prohibited(), `bundle ${id} is deprecated`));
    return { id, constraints, entry: e };
  }

  /** upstream's getBundleVariables: the entries and, depth first, every dependency candidate. */
  getBundleVariables(stack: Entry[]): MutableVariable[] {
    const initial = [...stack];
    while (stack.length > 0) {
      const bundle = stack.pop() as Entry;
      const seen = this.visited.get(bundle);
      if (seen) {
        this.variables.set(seen.id, seen);
        continue;
      }
      const bv = this.newBundleVariableFromEntry(bundle);
      this.visited.set(bundle, bv);
      let preds: { key: string; pred: Predicate }[];
      try {
        preds = this.predicatesOf(bundle);
      } catch (err) {
        this.errs.push((err as Error).message);
        continue;
      }
      for (const { key, pred: d } of preds) {
        let matching: Entry[];
        try {
          matching = this.candidatesOf(bundle, key, d);
        } catch (err) {
          this.errs.push((err as Error).message);
          continue;
        }
        const ids: string[] = [];
        for (const b of matching) {
          const existingVar = this.visited.get(b);
          const v = existingVar ?? this.newBundleVariableFromEntry(b);
          if (!existingVar) this.variables.set(v.id, this.variables.get(v.id) ?? v);
          ids.push(v.id);
          stack.push(b);
        }
        bv.constraints.push(pretty(dependency(...ids), `bundle ${bundle.name} requires an operator ${d.toString()}`));
      }
      this.variables.set(bv.id, bv);
    }
    return initial.map((e) => this.visited.get(e)).filter((x): x is MutableVariable => x !== undefined);
  }

  /** upstream's getSubscriptionVariables: the Subscription's variable and its candidates' (upgrades of `current`). */
  getSubscriptionVariables(sub: Subscription, current: Entry | undefined): MutableVariable[] {
    const subId = `subscription:${sub.name}`;
    const catalog = this.byCatalog.get(`${sub.spec.source}/${sub.spec.sourceNamespace}`);
    const channel = sub.spec.channel ?? '';
    const startingCSV = !current ? (sub.spec.startingCSV ?? '') : '';
    let npkg = 0;
    let nch = 0;
    let ncsv = 0;
    const inPackage = (e: Entry): boolean =>
      decodedProperties(e).some((p) => p.type === 'olm.package' && (p.value as { packageName?: unknown } | null)?.packageName === sub.spec.name) ||
      e.package === sub.spec.name;
    const found: Entry[] = [];
    const usable = catalog !== undefined && !isVirtual(catalog.key);
    const nall = usable ? catalog.entries.length : 0;
    const inCatalog = usable ? (this.byPackage.get(sub.spec.name) ?? []).filter((e) => catalogString(e.catalog) === catalogString(catalog.key)) : [];
    for (const e of inCatalog) {
      if (!inPackage(e)) continue;
      npkg++;
      if (channel !== '' && e.channel !== channel) continue;
      nch++;
      if (startingCSV !== '' && e.name !== startingCSV) continue;
      ncsv++;
      found.push(e);
    }
    const invalid = (reason: string): MutableVariable[] => [{ id: subId, constraints: [pretty(mandatory(), `subscription ${sub.name} exists`), pretty(prohibited(), reason)] }];
    if (nall === 0) return invalid(`no operators found from catalog ${sub.spec.source} in namespace ${sub.spec.sourceNamespace} referenced by subscription ${sub.name}`);
    if (npkg === 0) return invalid(`no operators found in package ${sub.spec.name} in the catalog referenced by subscription ${sub.name}`);
    if (nch === 0) return invalid(`no operators found in channel ${channel} of package ${sub.spec.name} in the catalog referenced by subscription ${sub.name}`);
    if (ncsv === 0) {
      return invalid(`no operators found with name ${startingCSV} in channel ${channel} of package ${sub.spec.name} in the catalog referenced by subscription ${sub.name}`);
    }
    // default channel first, then channel name (stable), each channel in replaces order
    const bySort = found
      .map((e, i) => ({ e, i }))
      .sort((a, b) => Number(b.e.defaultChannel) - Number(a.e.defaultChannel) || (a.e.channel < b.e.channel ? -1 : a.e.channel > b.e.channel ? 1 : 0) || a.i - b.i)
      .map((x) => x.e);
    const sorted: Entry[] = [];
    for (let i = 0; i < bySort.length; ) {
      let j = i;
      while (j < bySort.length && (bySort[j] as Entry).channel === (bySort[i] as Entry).channel) j++;
      sorted.push(...sortChannel(bySort.slice(i, j)));
      i = j;
    }
    const upgrades = current
      ? sorted.filter(
          (e) =>
            (current.version !== undefined && e.skipRange !== undefined && e.skipRange(current.version)) ||
            e.replaces === current.name ||
            e.skips.includes(current.name),
        )
      : sorted;
    const candidates = upgrades.flatMap((o) => this.getBundleVariables(found.filter((e) => e.name === o.name)));
    const currentId = current ? bundleId(current.name, '', this.existingKey) : undefined;
    if (current && currentId) {
      for (const c of candidates) {
        c.replaces = current.name;
        c.constraints.push(conflict(currentId));
      }
    }
    const ids = [...candidates.map((c) => c.id), ...(currentId ? [currentId] : [])];
    let dep: Constraint;
    if (ids.length === 0) dep = pretty(dependency(), `no operators found matching the criteria of subscription ${sub.name}`);
    else {
      const req = ids.length === 1 ? (ids[0] as string) : `at least one of ${ids.slice(0, -1).join(', ')} or ${ids[ids.length - 1]}`;
      dep = pretty(dependency(...ids), `subscription ${sub.name} requires ${req}`);
    }
    return [{ id: subId, constraints: [pretty(mandatory(), `subscription ${sub.name} exists`), dep] }];
  }
}

/** addInvariants: at most one provider per GVK and one bundle per package among all bundle variables. */
function addInvariants(variables: Map<string, MutableVariable>): void {
  const gvks = new Map<string, { id: string; ids: string[] }>();
  const packages = new Map<string, string[]>();
  for (const v of variables.values()) {
    if (!v.entry) continue;
    for (const p of decodedProperties(v.entry)) {
      const value = p.value as Record<string, unknown> | null;
      if (value === null || typeof value !== 'object') continue;
      if (p.type === 'olm.gvk') {
        const [group, version, kind] = [value.group, value.version, value.kind].map((x) => String(x ?? ''));
        const key = `${group}\u0000${version}\u0000${kind}`;
        const slot = gvks.get(key) ?? { id: `${kind} (${group}/${version})`, ids: [] };
        slot.ids.push(v.id);
        gvks.set(key, slot);
      } else if (p.type === 'olm.package') {
        const name = String(value.packageName ?? '');
        packages.set(name, [...(packages.get(name) ?? []), v.id]);
      }
    }
  }
  // `id`: mandatory and AtMost(1) over `ids` when there are two or more, else no constraint.
  const invariant = (id: string, raw: string[], only: string, what: string): void => {
    const ids = raw.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const list = `${ids.slice(0, -1).join(', ')} and ${ids[ids.length - 1]}`;
    const constraints = ids.length > 1 ? [pretty(mandatory(), `there can be only one ${only}`), pretty(atMost(1, ...ids), `${list} ${what}`)] : [];
    variables.set(id, { id, constraints });
  };
  for (const g of gvks.values()) invariant(g.id, g.ids, `provider of ${g.id}`, `provide ${g.id}`);
  for (const [pkg, ids] of packages) invariant(pkg, ids, `operator from package ${pkg}`, `originate from package ${pkg}`);
}
