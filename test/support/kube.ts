// A deliberately tiny Kubernetes HTTP client for test set-up and for asserting on raw API
// answers (admission messages, RBAC refusals). Production code uses internal/shared/kube.
import { Agent, request } from 'undici';
import { parseWarningHeader } from '../../internal/shared/kube/index.ts';
import type { ControlPlaneInfo } from './control-plane.ts';

export interface ApiResponse<T = Record<string, unknown>> {
  readonly status: number;
  readonly body: T;
  /** The text of each `Warning` header of the answer (admission warnings, deprecated APIs), in order. */
  readonly warnings?: readonly string[];
}

export interface Status {
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [k: string]: unknown };
  [k: string]: unknown;
}

const agents = new Map<string, Agent>();
function agentFor(caPem: string): Agent {
  let a = agents.get(caPem);
  if (!a) {
    a = new Agent({ connect: { ca: caPem }, keepAliveTimeout: 10_000 });
    agents.set(caPem, a);
  }
  return a;
}

export class TestKube {
  readonly info: ControlPlaneInfo;
  readonly token: string;
  private readonly headers: Record<string, string>;

  constructor(info: ControlPlaneInfo, opts: { token?: string; impersonate?: string; impersonateGroups?: string[] } = {}) {
    this.info = info;
    this.token = opts.token ?? info.adminToken;
    this.headers = { authorization: `Bearer ${this.token}` };
    if (opts.impersonate) this.headers['impersonate-user'] = opts.impersonate;
    // undici joins repeated header values; one group per request is all tests need.
    if (opts.impersonateGroups?.[0]) this.headers['impersonate-group'] = opts.impersonateGroups[0];
  }

  /** Same server, other identity. */
  as(opts: { token?: string; impersonate?: string; impersonateGroups?: string[] }): TestKube {
    return new TestKube(this.info, { token: this.info.adminToken, ...opts });
  }

  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<ApiResponse<T>> {
    const res = await request(this.info.server + path, {
      method: method as 'GET',
      dispatcher: agentFor(this.info.caPem),
      headers: { ...this.headers, accept: 'application/json', ...(body !== undefined ? { 'content-type': contentType } : {}) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.body.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      /* non-JSON bodies (e.g. /readyz) stay text */
    }
    const header = res.headers['warning'];
    const warnings = (header === undefined ? [] : Array.isArray(header) ? header : [header]).map((raw) => parseWarningHeader(raw).text);
    return { status: res.statusCode, body: parsed as T, warnings };
  }

  /** The answer's status and body as text, unparsed (a Pod's log, what a service proxy returns). */
  async raw(method: string, path: string): Promise<{ status: number; text: string }> {
    const res = await request(this.info.server + path, { method: method as 'GET', dispatcher: agentFor(this.info.caPem), headers: { ...this.headers } });
    return { status: res.statusCode, text: await res.body.text() };
  }

  /** A list as the server-side printer's Table (what `kubectl get` shows). */
  async table<T = Record<string, unknown>>(path: string): Promise<ApiResponse<T>> {
    const res = await request(this.info.server + path, {
      method: 'GET',
      dispatcher: agentFor(this.info.caPem),
      headers: { ...this.headers, accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    });
    return { status: res.statusCode, body: (await res.body.json()) as T };
  }

  /** Path of an object's collection or the object itself, from apiVersion/kind/plural. */
  static path(apiVersion: string, plural: string, name?: string, namespace?: string): string {
    const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const ns = namespace ? `/namespaces/${namespace}` : '';
    return `${base}${ns}/${plural}${name ? `/${name}` : ''}`;
  }

  /** Server-side apply with force as field manager `test`. */
  async apply(obj: KubeObject, plural: string, fieldManager = 'test'): Promise<ApiResponse> {
    const p = TestKube.path(obj.apiVersion, plural, obj.metadata.name, obj.metadata.namespace);
    return this.request('PATCH', `${p}?fieldManager=${fieldManager}&force=true`, obj, 'application/apply-patch+yaml');
  }

  /** Asserting wrapper: throws with the API's message on any non-2xx answer. */
  async must<T = Record<string, unknown>>(p: Promise<ApiResponse<T>>): Promise<T> {
    const r = await p;
    if (r.status < 200 || r.status > 299) {
      throw new Error(`API answered ${r.status}: ${JSON.stringify(r.body)}`);
    }
    return r.body;
  }

  /** Creates a uniquely named namespace and returns its name. */
  async namespace(prefix = 'test'): Promise<string> {
    const name = `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
    await this.must(this.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
    return name;
  }

  /** A bound token for a service account (TokenRequest API), creating the account if needed. */
  async serviceAccountToken(namespace: string, name: string): Promise<string> {
    const sa = await this.request('POST', `/api/v1/namespaces/${namespace}/serviceaccounts`, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name },
    });
    if (sa.status !== 201 && sa.status !== 409) throw new Error(`create SA: ${JSON.stringify(sa.body)}`);
    const tr = await this.must<{ status: { token: string } }>(
      this.request('POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: 3600 },
      }),
    );
    return tr.status.token;
  }
}
