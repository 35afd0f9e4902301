// catalogd's controllers. At this stage the ClusterCatalog controller watches and logs; pulling,
// storing and serving catalogs arrive with the catalogd issue.
import { ClusterCatalogKind, GroupVersion, type ClusterCatalog } from '../../api/v1/index.ts';
import { Controller } from '../shared/controller/index.ts';
import { Informer, stripManagedFields } from '../shared/kube/index.ts';
import type { ManagerContext, ManagerParts } from '../shared/manager/index.ts';

export function catalogdSetup({ client, logger, metrics }: ManagerContext): ManagerParts {
  const catalogs = new Informer<ClusterCatalog>({
    client,
    apiVersion: GroupVersion,
    kind: ClusterCatalogKind,
    transform: stripManagedFields,
    logger: logger.child({ informer: 'clustercatalogs' }),
  });
  const log = logger.child({ controller: 'clustercatalog' });
  const controller = new Controller({
    name: 'clustercatalog',
    logger: log,
    metrics,
    reconciler: {
      reconcile: async (key) => {
        const cat = catalogs.get(key);
        if (!cat) log.info('ClusterCatalog deleted', { name: key });
        else log.info('observed ClusterCatalog', { name: key, generation: cat.metadata.generation, ref: cat.spec.source.image?.ref });
      },
    },
  });
  controller.watch(catalogs);
  return { informers: [catalogs], controllers: [controller] };
}
