// Policy rules and the requests an apply makes, in the shapes operator-controller's historical
// pre-authorizer used (olmv1.md §5.5): what to ask the authorizer, how a denied request becomes a
// missing rule, how missing rules are compacted, and the message listing them.
import { goQuote } from '../../../shared/gocompat/index.ts';

/** rbac.authorization.k8s.io/v1 PolicyRule. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** One authorization question (authorizer.AttributesRecord): a resource request or a non-resource path. */
export type Attributes =
  | {
      readonly kind: 'resource';
      readonly verb: string;
      readonly namespace: string;
      readonly group: string;
      readonly version: string;
      /** `resource` or `resource/subresource`. */
      readonly resource: string;
      readonly name: string;
    }
  | { readonly kind: 'nonResource'; readonly verb: string; readonly path: string };

export const attributesKey = (a: Attributes): string =>
  a.kind === 'resource' ? ['r', a.verb, a.namespace, a.group, a.version, a.resource, a.name].join('\u0000') : ['n', a.verb, a.path].join('\u0000');

/** The rule a denied request was missing (policyRuleFromAttributesRecord). */
export function ruleFromAttributes(a: Attributes): PolicyRule {
  if (a.kind === 'nonResource') return { verbs: [a.verb], nonResourceURLs: [a.path] };
  return { verbs: [a.verb], apiGroups: [a.group], resources: [a.resource], ...(a.name && { resourceNames: [a.name] }) };
}

/** One request per verb × group × resource × name (or URL), as rbac's BreakdownRule splits a rule. */
export function breakdownRule(rule: PolicyRule, namespace: string): Attributes[] {
  const out: Attributes[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames?.length ? rule.resourceNames : [''];
        for (const name of names) out.push({ kind: 'resource', verb, namespace, group, version: '*', resource, name });
      }
    }
  }
  for (const path of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) out.push({ kind: 'nonResource', verb, path });
  }
  return out;
}

/**
 * rbac's CompactRules (rules on one group, one resource and at most one name merge their verbs), then
 * each rule's verbs de-duplicated and sorted, or just `*` when `*` is among them.
 */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const rule of rules) {
    const isSimple =
      !rule.nonResourceURLs?.length && rule.apiGroups?.length === 1 && rule.resources?.length === 1 && (rule.resourceNames?.length ?? 0) <= 1;
    if (!isSimple) {
      compacted.push(structuredClone(rule));
      continue;
    }
    const key = [rule.apiGroups![0], rule.resources![0], rule.resourceNames?.[0] ?? '\u0000none'].join('\u0000');
    const existing = simple.get(key);
    if (existing) existing.verbs.push(...rule.verbs);
    else simple.set(key, structuredClone(rule));
  }
  return [...compacted, ...simple.values()].map((rule) => ({
    ...rule,
    verbs: rule.verbs.includes('*') ? ['*'] : [...new Set(rule.verbs)].sort(),
  }));
}

/** `Namespace:"<ns>" APIGroups:[..] Resources:[..] ResourceNames:[..] Verbs:[..] NonResourceURLs:[..]`, empty lists left out. */
export function ruleDescription(namespace: string, rule: PolicyRule): string {
  let out = `Namespace:${goQuote(namespace)}`;
  const list = (label: string, items: readonly string[] | undefined): void => {
    if (items?.length) out += ` ${label}:[${[...items].sort().join(',')}]`;
  };
  list('APIGroups', rule.apiGroups);
  list('Resources', rule.resources);
  list('ResourceNames', rule.resourceNames);
  list('Verbs', rule.verbs);
  list('NonResourceURLs', rule.nonResourceURLs);
  return out;
}

/** Missing rules of one namespace (`''` = cluster scope). */
export interface ScopedPolicyRules {
  readonly namespace: string;
  readonly missingRules: readonly PolicyRule[];
}

/**
 * formatPreAuthorizerOutput: every missing rule on its own line (lines sorted), then any evaluation error;
 * `undefined` when nothing is missing and nothing failed.
 */
export function preAuthorizationMessage(missing: readonly ScopedPolicyRules[], evaluationError?: string): string | undefined {
  const parts: string[] = [];
  const lines = missing.flatMap((scoped) => scoped.missingRules.map((rule) => ruleDescription(scoped.namespace, rule))).sort();
  if (lines.length > 0) parts.push(`service account requires the following permissions to manage cluster extension:\n  ${lines.join('\n  ')}`);
  if (evaluationError !== undefined) parts.push(`authorization evaluation error: ${evaluationError}`);
  return parts.length > 0 ? `pre-authorization failed: ${parts.join('\n')}` : undefined;
}
