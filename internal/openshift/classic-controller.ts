// Classic OLM's ClusterOperator controller for the olm-classic process (upstream: the olm operator run with
// `--writeStatusName`): CSVs from an informer (all namespaces, only what gating reads kept), one key — the
// ClusterOperator's name — enqueued by every change of a non-copied CSV, the status of classic.ts written.
import { ClusterServiceVersionKind, V1alpha1, type ClusterServiceVersion } from '../../api/operators/index.ts';
import { formatTime, type Controller } from '../shared/controller/index.ts';
import type { Informer} from '../shared/kube/index.ts';
import { informers } from '../shared/kube/index.ts';
import { clockOf, type ManagerContext, type ManagerParts } from '../shared/manager/index.ts';
import { classicRelatedObjects, classicStatus, classicVerdict, isCopied, type CsvInfo } from './classic.ts';
import type { OperandVersion } from './clusteroperator.ts';
import { clusterOperatorController } from './gating.ts';
import { CSV_PROPERTIES_ANNOTATION } from './properties.ts';
import { OLM_VERSION } from './olm-version.ts';

export interface ClassicGatingOptions {
  /** The ClusterOperator to write (upstream's `--writeStatusName`, `operator-lifecycle-manager` on OpenShift). */
  readonly name: string;
  /** The cluster's release (`RELEASE_VERSION`); missing or invalid is reported in Upgradeable, as upstream. */
  readonly releaseVersion: string | undefined;
  /** OLM's namespace: its non-copied CSVs are the ClusterOperator's relatedObjects ('' = every namespace). */
  readonly namespace: string;
  /** Watch CSVs of this namespace only, as upstream's `--watchedNamespaces` narrows its cache (default: all). */
  readonly watchedNamespace?: string;
}

export interface ClassicGatingParts extends ManagerParts {
  readonly csvs: Informer<ClusterServiceVersion>;
  readonly controller: Controller;
}

/** Only what gating reads of a CSV stays in the cache: name, namespace, the copied label, the properties annotation. */
function slim(csv: ClusterServiceVersion): ClusterServiceVersion {
  const m = csv.metadata;
  const copied = m.labels?.['olm.copiedFrom'];
  const props = m.annotations?.[CSV_PROPERTIES_ANNOTATION];
  return {
    apiVersion: csv.apiVersion,
    kind: csv.kind,
    metadata: {
      name: m.name,
      namespace: m.namespace,
      resourceVersion: m.resourceVersion,
      ...(copied !== undefined && { labels: { 'olm.copiedFrom': copied } }),
      ...(props !== undefined && { annotations: { [CSV_PROPERTIES_ANNOTATION]: props } }),
    },
  } as ClusterServiceVersion;
}

const info = (csv: ClusterServiceVersion): CsvInfo => ({
  namespace: csv.metadata.namespace ?? '',
  name: csv.metadata.name ?? '',
  ...(csv.metadata.labels && { labels: csv.metadata.labels }),
  ...(csv.metadata.annotations && { annotations: csv.metadata.annotations }),
});

const byKey = (a: CsvInfo, b: CsvInfo): number => (a.namespace === b.namespace ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.namespace < b.namespace ? -1 : 1);

export function classicGatingSetup(options: ClassicGatingOptions): (ctx: ManagerContext) => ClassicGatingParts {
  return (ctx) => {
    const { client, logger } = ctx;
    const clock = clockOf(ctx);
    const csvs = informers(client, logger)<ClusterServiceVersion>(V1alpha1, ClusterServiceVersionKind, {
      ...(options.watchedNamespace && { namespace: options.watchedNamespace }),
      transform: slim,
    });
    const targetVersions: OperandVersion[] = [
      { name: 'operator', version: options.releaseVersion ?? '' },
      { name: options.name, version: OLM_VERSION },
    ];
    const { controller, close, log } = clusterOperatorController(ctx, {
      name: options.name,
      controller: 'clusteroperator',
      component: 'olm-classic',
      kind: ClusterServiceVersionKind,
      compute: (current) => {
        // Upstream lists from its cache in no particular order; here namespace/name order, so messages are stable.
        const all = csvs.list().map(info).sort(byKey);
        const { status, verdict } = classicStatus(current, {
          name: options.name,
          synced: csvs.hasSynced(),
          targetVersions,
          olmVersion: OLM_VERSION,
          related: classicRelatedObjects(all, options.namespace),
          verdict: () => classicVerdict(options.releaseVersion, all),
          now: formatTime(clock.date()),
        });
        return { status, blocking: verdict?.kind === 'incompatible' ? verdict.skews.length : verdict?.kind === 'compatible' ? 0 : undefined };
      },
    });
    // Every change of an original (non-copied) CSV recomputes the one ClusterOperator.
    controller.watch(csvs, (csv) => (isCopied(info(csv)) ? undefined : options.name));
    controller.enqueue(options.name);
    log.info('writing ClusterOperator status', { clusterOperator: options.name, releaseVersion: options.releaseVersion ?? '' });
    return { informers: [csvs], controllers: [controller], closers: [close], csvs, controller };
  };
}
