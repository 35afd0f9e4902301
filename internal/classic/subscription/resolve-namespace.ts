// One namespace resolved (upstream's ResolveSteps up to the solver): the resolving namespaces, their CatalogSources'
// content, the installed CSVs and the Subscriptions handed to the resolver. The namespace sync's resolve step
// (sync-steps.ts) and `kubectl olm resolve -n` use it.
import type { CatalogSource, ClusterServiceVersion, OperatorGroup, Subscription } from '../../../api/operators/index.ts';
import { routine } from '../../shared/controller/index.ts';
import type { CatalogContent } from '../catalogsource/index.ts';
import { loadCelFor, resolve, type ClassicResolutionMetrics, type ResolvedEntry, type ResolveInput } from '../resolver/index.ts';
import { installedEntries, namespaceCatalogs } from './sources.ts';

/** The OperatorGroup annotation that keeps the global catalog namespace out of a namespace's resolution. */
export const ExcludeGlobalNamespaceAnnotation = 'olm.operatorframework.io/exclude-global-namespace-resolution';

export interface NamespaceResolutionInput {
  readonly namespace: string;
  readonly globalNamespace: string;
  readonly subscriptions: readonly Subscription[];
  readonly csvs: readonly ClusterServiceVersion[];
  readonly operatorGroups: readonly OperatorGroup[];
  readonly catalogSources: (namespace: string) => readonly CatalogSource[];
  readonly content: (namespace: string, name: string) => CatalogContent | undefined;
  readonly metrics?: ClassicResolutionMetrics;
}

export interface NamespaceResolution {
  /** The resolving namespaces: the namespace, and the global one unless the OperatorGroup excludes it. */
  readonly namespaces: readonly string[];
  readonly resolved: ResolvedEntry[];
  /** The catalog bundle (image, properties) behind a resolved entry. */
  readonly bundleOf: ReturnType<typeof namespaceCatalogs>['bundleOf'];
}

/**
 * Upstream's ResolveSteps up to the solver: exactly one OperatorGroup, the namespace's and the global namespace's
 * CatalogSources (every one must have content), the installed CSVs as @existing, the resolver. Throws upstream's
 * errors (a NotSatisfiableError when the constraints conflict).
 */
export async function resolveNamespace(i: NamespaceResolutionInput): Promise<NamespaceResolution> {
  const ogs = i.operatorGroups;
  if (ogs.length !== 1) {
    const err = new Error(`expected 1 OperatorGroup in the namespace, found ${ogs.length}`);
    // None yet is a wait (its creation re-queues the namespace); more than one needs someone to act.
    throw ogs.length === 0 ? routine(err, 'NoOperatorGroup') : err;
  }
  const excluded = ogs[0]?.metadata.annotations?.[ExcludeGlobalNamespaceAnnotation] === 'true';
  const namespaces = i.namespace === i.globalNamespace || excluded ? [i.namespace] : [i.namespace, i.globalNamespace];
  const catalogs = namespaceCatalogs(
    namespaces.flatMap((ns) => i.catalogSources(ns)),
    i.content,
  );
  if (catalogs.errors.length > 0) {
    // A CatalogSource whose content is not loaded yet: a wait; the CatalogSource's own status and logs say why it is not.
    throw routine(new Error(catalogs.errors.length === 1 ? catalogs.errors[0] : `[${catalogs.errors.join(', ')}]`), 'CatalogSourceNotReady', 'info');
  }
  const input: ResolveInput = {
    namespaces,
    catalogs: catalogs.catalogs,
    installed: installedEntries(i.csvs, i.subscriptions, i.namespace),
    subscriptions: i.subscriptions.map((s) => ({
      name: s.metadata.name ?? '',
      namespace: i.namespace,
      spec: s.spec,
      status: { installedCSV: s.status?.installedCSV ?? '' },
    })),
  };
  await loadCelFor(input);
  const resolved = resolve(input, { ...(i.metrics && { metrics: i.metrics }) });
  return { namespaces, resolved, bundleOf: catalogs.bundleOf };
}
