// Whether a CSV's OperatorCondition lets it be replaced (upstream olm/operatorconditions.go isOperatorUpgradeable).
import { OperatorConditionUpgradeable, type OperatorCondition } from '../../../api/operators/index.ts';
import { goQuote } from '../../shared/gocompat/index.ts';

export interface Upgradeability {
  readonly upgradeable: boolean;
  /** Why not, upstream's text (`the operator is not upgradeable: <message>`, or the outdated-status text). */
  readonly reason?: string;
}

/**
 * No OperatorCondition: upgradeable. An `Upgradeable` override decides alone (True or not); otherwise a status
 * `Upgradeable` condition observed for another generation blocks as outdated, and one that is False blocks.
 */
export function operatorUpgradeable(oc: OperatorCondition | undefined): Upgradeability {
  if (!oc) return { upgradeable: true };
  const override = (oc.spec?.overrides ?? []).find((c) => c.type === OperatorConditionUpgradeable);
  if (override) {
    return override.status === 'True' ? { upgradeable: true } : { upgradeable: false, reason: `the operator is not upgradeable: ${override.message}` };
  }
  const c = (oc.status?.conditions ?? []).find((x) => x.type === OperatorConditionUpgradeable);
  if (c) {
    if ((c.observedGeneration ?? 0) !== (oc.metadata.generation ?? 0)) {
      return { upgradeable: false, reason: `the operatorcondition status ${goQuote(c.type)}=${goQuote(c.status)} is outdated` };
    }
    if (c.status === 'False') return { upgradeable: false, reason: `the operator is not upgradeable: ${c.message}` };
  }
  return { upgradeable: true };
}
