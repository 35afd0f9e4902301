// operatorConditionSetup: the OperatorCondition generator and condition controllers over the shared classic caches.
import type { KubeObject } from '../../../api/meta/v1.ts';
import { ClusterServiceVersionKind, OperatorConditionKind } from '../../../api/operators/index.ts';
import { Controller, objectKey } from '../../shared/controller/index.ts';
import { clockOf, type ManagerContext, type ManagerParts } from '../../shared/manager/index.ts';
import type { OlmCaches } from '../olmcache/index.ts';
import { newOperatorConditionReconciler, newOperatorConditionGeneratorReconciler } from './reconcilers.ts';

/** The controller owner of an object, by kind, as `namespace/name` in the object's namespace. */
function ownerKey(obj: KubeObject, kind: string): string | undefined {
  const ref = (obj.metadata.ownerReferences ?? []).find((r) => r.kind === kind && r.controller === true);
  return ref ? `${obj.metadata.namespace ?? ''}/${ref.name}` : undefined;
}

export function operatorConditionSetup(caches: OlmCaches): (ctx: ManagerContext) => ManagerParts {
  return (ctx) => {
    const { client, logger, metrics } = ctx;
    const log = logger.child({ controller: 'operatorcondition' });
    const generator = new Controller({
      name: 'operator-condition-generator',
      reconciler: newOperatorConditionGeneratorReconciler({ client, caches, logger: log }),
      logger,
      metrics,
    });
    generator.watch(caches.csvs);
    generator.watch(caches.operatorConditions, (oc) => ownerKey(oc, ClusterServiceVersionKind));

    const reconciler = new Controller({
      name: 'operator-condition',
      reconciler: newOperatorConditionReconciler({ client, caches, logger: log, clock: clockOf(ctx) }),
      logger,
      metrics,
    });
    reconciler.watch(caches.operatorConditions, (oc) => objectKey(oc));
    reconciler.watch(caches.roles, (r) => ownerKey(r, OperatorConditionKind));
    reconciler.watch(caches.roleBindings, (r) => ownerKey(r, OperatorConditionKind));
    reconciler.watch(caches.deployments, (d) => {
      const ref = (d.metadata.ownerReferences ?? []).find((r) => r.kind === ClusterServiceVersionKind);
      return ref ? `${d.metadata.namespace ?? ''}/${ref.name}` : undefined;
    });
    return { informers: [], controllers: [generator, reconciler] };
  };
}
