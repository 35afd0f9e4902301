// Delegated authentication and authorization of an aggregated API server, as k8s.io/apiserver's defaults do them:
// the requestheader authenticator (the front-proxy client certificate, verified against the requestheader client CA
// of kube-system/extension-apiserver-authentication, its CN in the allowed names; the user, groups and extra from the
// X-Remote-* headers that ConfigMap names) and the SubjectAccessReview authorizer (system:masters always allowed,
// /healthz, /readyz and /livez never checked, answers cached 10 s each way).
import type { IncomingMessage } from 'node:http';
import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { KubeClient } from '../../shared/kube/index.ts';
import { realClock, tryOr, type Clock, type Logger } from '../../shared/toolkit/index.ts';

export const AUTHENTICATION_CONFIGMAP = { namespace: 'kube-system', name: 'extension-apiserver-authentication' } as const;
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

/** What the API server's requestheader flags put in the ConfigMap. */
export interface RequestHeaderConfig {
  readonly clientCA: string;
  readonly allowedNames: readonly string[];
  readonly usernameHeaders: readonly string[];
  readonly groupHeaders: readonly string[];
  readonly extraHeaderPrefixes: readonly string[];
}

export interface UserInfo {
  readonly name: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

const jsonList = (text: string | undefined): string[] => {
  if (!text) return [];
  const v = tryOr(() => JSON.parse(text) as unknown, []);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
};

/** The requestheader part of the ConfigMap's data; undefined when the API server has no front proxy configured. */
export function requestHeaderConfig(data: Readonly<Record<string, string>> | undefined): RequestHeaderConfig | undefined {
  const clientCA = data?.['requestheader-client-ca-file'];
  if (!clientCA) return undefined;
  return {
    clientCA,
    allowedNames: jsonList(data['requestheader-allowed-names']),
    usernameHeaders: jsonList(data['requestheader-username-headers']),
    groupHeaders: jsonList(data['requestheader-group-headers']),
    extraHeaderPrefixes: jsonList(data['requestheader-extra-headers-prefix']),
  };
}

/**
 * The user of a request that came through the front proxy: a client certificate the TLS layer verified against the
 * requestheader CA, with the clientAuth usage and, when the allowed names are set, one of them as its CN; then the
 * first non-empty username header, the group headers' values plus system:authenticated. Undefined means
 * unauthenticated (401).
 */
export function authenticate(req: IncomingMessage, config: RequestHeaderConfig | undefined): UserInfo | undefined {
  if (!config) return undefined;
  const socket = req.socket as TLSSocket;
  if (!socket.authorized) return undefined;
  const raw = socket.getPeerCertificate?.()?.raw;
  if (!raw) return undefined;
  const cert = new X509Certificate(raw);
  if (cert.keyUsage && !cert.keyUsage.includes(CLIENT_AUTH)) return undefined;
  if (config.allowedNames.length > 0) {
    const cn = /(?:^|\n)CN=([^\n]*)/.exec(cert.subject)?.[1];
    if (cn === undefined || !config.allowedNames.includes(cn)) return undefined;
  }
  const values = (header: string): string[] => req.headersDistinct[header.toLowerCase()] ?? [];
  const name = config.usernameHeaders.map((h) => values(h)[0] ?? '').find((v) => v !== '');
  if (!name) return undefined;
  const groups = config.groupHeaders.flatMap(values);
  // the generic API server's AuthenticatedGroupAdder: every authenticated user but system:anonymous is in system:authenticated
  if (name !== 'system:anonymous' && !groups.includes('system:authenticated') && !groups.includes('system:unauthenticated')) groups.push('system:authenticated');
  const extra: Record<string, string[]> = {};
  for (const prefix of config.extraHeaderPrefixes.map((p) => p.toLowerCase())) {
    for (const [header, vs] of Object.entries(req.headersDistinct)) {
      if (!header.startsWith(prefix) || !vs) continue;
      const key = decodeURIComponent(header.slice(prefix.length)).toLowerCase();
      (extra[key] ??= []).push(...vs);
    }
  }
  return { name, groups, extra };
}

/** authorizer.Attributes, the part a SubjectAccessReview carries. */
export type Attributes =
  | { readonly resourceRequest: true; readonly verb: string; readonly group: string; readonly version: string; readonly resource: string; readonly subresource: string; readonly namespace: string; readonly name: string }
  | { readonly resourceRequest: false; readonly verb: string; readonly path: string };

export interface Decision {
  readonly allowed: boolean;
  readonly reason: string;
}

interface SubjectAccessReview extends KubeObject {
  status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string };
}

const ALWAYS_ALLOW_PATHS = new Set(['/healthz', '/readyz', '/livez']);
const ALWAYS_ALLOW_GROUPS = ['system:masters'];
const CACHE_TTL_MS = 10_000;

/** The delegating authorizer: a SubjectAccessReview per distinct question, answers cached for 10 s. */
export function subjectAccessReviewer(client: KubeClient, clock: Clock = realClock): (user: UserInfo, attrs: Attributes) => Promise<Decision> {
  const cache = new Map<string, { at: number; decision: Decision }>();
  return async (user, attrs) => {
    if (!attrs.resourceRequest && ALWAYS_ALLOW_PATHS.has(attrs.path)) return { allowed: true, reason: '' };
    if (user.groups.some((g) => ALWAYS_ALLOW_GROUPS.includes(g))) return { allowed: true, reason: '' };
    const spec = {
      user: user.name,
      groups: [...user.groups],
      ...(Object.keys(user.extra).length > 0 && { extra: Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]])) }),
      ...(attrs.resourceRequest
        ? {
            resourceAttributes: {
              namespace: attrs.namespace,
              verb: attrs.verb,
              group: attrs.group,
              version: attrs.version,
              resource: attrs.resource,
              subresource: attrs.subresource,
              name: attrs.name,
            },
          }
        : { nonResourceAttributes: { path: attrs.path, verb: attrs.verb } }),
    };
    const key = JSON.stringify(spec);
    const at = clock.now();
    const hit = cache.get(key);
    if (hit && at - hit.at < CACHE_TTL_MS) return hit.decision;
    const review = await client.create<SubjectAccessReview>({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: {}, spec } as SubjectAccessReview);
    const decision = { allowed: review.status?.allowed === true, reason: review.status?.reason ?? '' };
    if (cache.size > 10_000) cache.clear();
    cache.set(key, { at, decision });
    return decision;
  };
}

/** Reads the ConfigMap; logs and keeps the last good one when it cannot. */
export async function readRequestHeaderConfig(client: KubeClient, logger: Logger): Promise<RequestHeaderConfig | undefined> {
  try {
    const cm = await client.get<KubeObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'ConfigMap', ...AUTHENTICATION_CONFIGMAP });
    const config = requestHeaderConfig(cm.data);
    if (!config) logger.info('no requestheader client CA in kube-system/extension-apiserver-authentication: every request is unauthenticated');
    return config;
  } catch (err) {
    logger.error('reading kube-system/extension-apiserver-authentication', { error: (err as Error).message });
    return undefined;
  }
}
