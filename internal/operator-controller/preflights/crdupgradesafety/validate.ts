// One CRD upgrade judged as crdify's runner does for OLM: CRD-wide checks, the same version in the old
// and new CRD, and every pair of served versions in the new CRD (skipped when it converts through a
// webhook). Served-version problems the existing CRD already had are not held against the upgrade
// ("ratcheting", operator-controller #2123).
import { compareVersions, CRD_CHECKS, type CheckResult } from './checks.ts';
import { compareKubeAwareVersions, type Crd } from './schema.ts';

/** The problem lines of upgrading `oldCrd` to `newCrd`, in report order; empty when it is safe. */
export function validateUpgrade(oldCrd: Crd, newCrd: Crd): string[] {
  const lines: string[] = [];
  for (const check of CRD_CHECKS) {
    for (const err of check.compare(oldCrd, newCrd)) lines.push(`${check.name}: ${err}`);
  }
  for (const oldVersion of oldCrd.spec.versions ?? []) {
    const newVersion = newCrd.spec.versions?.find((v) => v.name === oldVersion.name);
    if (!newVersion) continue;
    lines.push(...propertyLines(oldVersion.name, compareVersions(oldVersion, newVersion)));
  }
  const existing = new Set(servedVersionLines(oldCrd));
  lines.push(...servedVersionLines(newCrd).filter((line) => !existing.has(line)));
  return lines;
}

/** `<v1> -> <v2>: <path>: <check>: <message>` for each pair of served versions, oldest first. */
export function servedVersionLines(crd: Crd): string[] {
  if (crd.spec.conversion?.strategy === 'Webhook') return [];
  const served = (crd.spec.versions ?? []).filter((v) => v.served).sort((a, b) => compareKubeAwareVersions(a.name, b.name));
  const lines: string[] = [];
  for (let i = 0; i < served.length; i++) {
    for (let j = i + 1; j < served.length; j++) {
      const [a, b] = [served[i]!, served[j]!];
      lines.push(...propertyLines(`${a.name} -> ${b.name}`, compareVersions(a, b)));
    }
  }
  return lines;
}

function propertyLines(prefix: string, results: Map<string, CheckResult[]>): string[] {
  const lines: string[] = [];
  for (const [path, checks] of results) {
    for (const check of checks) {
      for (const err of check.errors) lines.push(`${prefix}: ${path}: ${check.name}: ${err}`);
    }
  }
  return lines;
}

/** `validating upgrade for CRD "<name>": <line>\n<line>…` (Go's `%q` and errors.Join). */
export function upgradeMessage(name: string, lines: readonly string[]): string {
  return `validating upgrade for CRD ${JSON.stringify(name)}: ${lines.join('\n')}`;
}
