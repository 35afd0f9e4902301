// The classic (operators.coreos.com) CRDs, in file-name order, and their manifests for config/crd/bases.
import { crdFileName, renderCRD } from '../../v1/schema/index.ts';
import type { CustomResourceDefinition } from '../../v1/schema/types.ts';
import { catalogSourceCRD } from './catalogsource.ts';
import { clusterServiceVersionCRD } from './clusterserviceversion.ts';
import { installPlanCRD } from './installplan.ts';
import { olmConfigCRD } from './olmconfig.ts';
import { operatorCRD } from './operator.ts';
import { operatorConditionCRD } from './operatorcondition.ts';
import { operatorGroupCRD } from './operatorgroup.ts';
import { subscriptionCRD } from './subscription.ts';

/** Every classic CRD, in file-name order (`operators.coreos.com_<plural>.yaml`). */
export const classicCrds: readonly CustomResourceDefinition[] = [
  catalogSourceCRD,
  clusterServiceVersionCRD,
  installPlanCRD,
  olmConfigCRD,
  operatorConditionCRD,
  operatorGroupCRD,
  operatorCRD,
  subscriptionCRD,
];

/** File name → manifest text of every classic CRD. */
export function renderClassic(): Map<string, string> {
  return new Map(classicCrds.map((c) => [crdFileName(c), renderCRD(c, 'api/operators/schema')]));
}
