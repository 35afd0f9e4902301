// One CRD upgrade judged as crdify's runner does: CRD-wide checks, the same version in the old and new CRD, and
// every pair of served versions in the new CRD (skipped under `conversion: Ignore` when it converts through a
// webhook). Served-version problems the existing CRD already had are not held against the upgrade ("ratcheting",
// operator-controller #2123).
import { compareVersions, CRD_CHECKS, enforce, type CheckResult } from './checks.ts';
import { OLM_CRDIFY_CONFIG, resolveConfig, type CrdifyConfig, type ResolvedConfig } from './config.ts';
import { compareKubeAwareVersions, type Crd } from './schema.ts';

/**
 * The problem lines (errors only; warnings never fail) of upgrading `oldCrd` to `newCrd`, in report order; empty
 * when it is safe. `config` defaults to OLM's; a bad config throws crdify's runner error.
 */
export function validateUpgrade(oldCrd: Crd, newCrd: Crd, config: CrdifyConfig | ResolvedConfig = OLM_CRDIFY_CONFIG): string[] {
  const resolved = isResolved(config) ? config : resolveConfig(config);
  const lines: string[] = [];
  for (const check of CRD_CHECKS) {
    const options = resolved.checks.get(check.name)!;
    for (const err of enforce(check.name, options, check.compare(oldCrd, newCrd, options)).errors) lines.push(`${check.name}: ${err}`);
  }
  for (const oldVersion of oldCrd.spec.versions ?? []) {
    const newVersion = newCrd.spec.versions?.find((v) => v.name === oldVersion.name);
    if (!newVersion) continue;
    lines.push(...propertyLines(oldVersion.name, compareVersions(oldVersion, newVersion, resolved)));
  }
  const existing = new Set(servedVersionLines(oldCrd, resolved));
  lines.push(...servedVersionLines(newCrd, resolved).filter((line) => !existing.has(line)));
  return lines;
}

const isResolved = (c: CrdifyConfig | ResolvedConfig): c is ResolvedConfig => 'checks' in c;

/** `<v1> -> <v2>: <path>: <check>: <message>` for each pair of served versions, oldest first. */
export function servedVersionLines(crd: Crd, config: CrdifyConfig | ResolvedConfig = OLM_CRDIFY_CONFIG): string[] {
  const resolved = isResolved(config) ? config : resolveConfig(config);
  if (resolved.conversion === 'Ignore' && crd.spec.conversion?.strategy === 'Webhook') return [];
  const served = (crd.spec.versions ?? []).filter((v) => v.served).sort((a, b) => compareKubeAwareVersions(a.name, b.name));
  const lines: string[] = [];
  for (let i = 0; i < served.length; i++) {
    for (let j = i + 1; j < served.length; j++) {
      const [a, b] = [served[i]!, served[j]!];
      lines.push(...propertyLines(`${a.name} -> ${b.name}`, compareVersions(a, b, resolved)));
    }
  }
  return lines;
}

function propertyLines(prefix: string, results: Map<string, CheckResult[]>): string[] {
  return [...results].flatMap(([path, checks]) => checks.flatMap((check) => check.errors.map((err) => `${prefix}: ${path}: ${check.name}: ${err}`)));
}

/** `validating upgrade for CRD "<name>": <line>\n<line>…` (Go's `%q` and errors.Join). */
export function upgradeMessage(name: string, lines: readonly string[]): string {
  return `validating upgrade for CRD ${JSON.stringify(name)}: ${lines.join('\n')}`;
}
