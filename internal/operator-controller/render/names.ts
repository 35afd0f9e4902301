// Object names as upstream derives them: ObjectNameForBaseAndSuffix (63-character cap, which can
// yield 64 characters when base+suffix is exactly 63) and DefaultUniqueNameGenerator, whose suffix
// is base36(sha224(Go encoding/json of the permission + "\n")).
import { createHash } from 'node:crypto';
import { goJSONString } from '../../shared/gocompat/index.ts';
import { goPolicyRule, type StrategyDeploymentPermissions } from '../../shared/registryv1/index.ts';

const MAX_NAME = 63;

export function objectNameForBaseAndSuffix(base: string, suffix: string): string {
  if (base.length + suffix.length > MAX_NAME) base = base.slice(0, MAX_NAME - suffix.length - 1);
  return `${base}-${suffix}`;
}

/** encoding/json.Encoder output for v1alpha1.StrategyDeploymentPermissions (trailing newline included). */
export function goPermissionJSON(p: StrategyDeploymentPermissions): string {
  const rules = p.rules == null ? 'null' : `[${p.rules.map(goPolicyRule).join(',')}]`;
  return `{"serviceAccountName":${goJSONString(p.serviceAccountName ?? '')},"rules":${rules}}\n`;
}

export function permissionHash(p: StrategyDeploymentPermissions): string {
  const hex = createHash('sha224').update(goPermissionJSON(p)).digest('hex');
  return BigInt(`0x${hex}`).toString(36);
}

export const uniqueName = (base: string, p: StrategyDeploymentPermissions): string => objectNameForBaseAndSuffix(base, permissionHash(p));
