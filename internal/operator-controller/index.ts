// operator-controller's controllers. At this stage the ClusterExtension controller watches and
// logs; resolving and installing arrive with their issues.
import { ClusterExtensionKind, GroupVersion, type ClusterExtension } from '../../api/v1/index.ts';
import { Controller } from '../shared/controller/index.ts';
import { Informer, stripManagedFields } from '../shared/kube/index.ts';
import type { ManagerContext, ManagerParts } from '../shared/manager/index.ts';

export function operatorControllerSetup({ client, logger, metrics }: ManagerContext): ManagerParts {
  const extensions = new Informer<ClusterExtension>({
    client,
    apiVersion: GroupVersion,
    kind: ClusterExtensionKind,
    transform: stripManagedFields,
    logger: logger.child({ informer: 'clusterextensions' }),
  });
  const log = logger.child({ controller: 'clusterextension' });
  const controller = new Controller({
    name: 'clusterextension',
    logger: log,
    metrics,
    reconciler: {
      reconcile: async (key) => {
        const ext = extensions.get(key);
        if (!ext) log.info('ClusterExtension deleted', { name: key });
        else
          log.info('observed ClusterExtension', {
            name: key,
            generation: ext.metadata.generation,
            package: ext.spec?.source.catalog?.packageName,
          });
      },
    },
  });
  controller.watch(extensions);
  return { informers: [extensions], controllers: [controller] };
}
