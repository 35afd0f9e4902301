// The installer identity alone: which extensions a ServiceAccount or RBAC change re-enqueues, the missing-account
// error from the cache, and what the slimmed cache keeps.
import { describe, expect, it } from 'vitest';
import type { ClusterExtension } from '../../../api/v1/index.ts';
import { ServiceAccountNotFoundError } from '../controller/index.ts';
import { cachedServiceAccounts, extensionsToRequeue, slimToName, waitingOnPermissions } from './index.ts';

const signal = new AbortController().signal;

function ext(name: string, opts: { sa?: string; namespace?: string; progressing?: { reason: string; message: string } } = {}): ClusterExtension {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name },
    spec: { namespace: opts.namespace ?? 'ns', ...(opts.sa && { serviceAccount: { name: opts.sa } }), source: { sourceType: 'Catalog', catalog: { packageName: 'p' } } },
    ...(opts.progressing && {
      status: { conditions: [{ type: 'Progressing', status: 'True', lastTransitionTime: '2026-11-25T00:00:00Z', observedGeneration: 1, ...opts.progressing }] },
    }),
  } as ClusterExtension;
}

const preflightFailed = { reason: 'Retrying', message: 'error for resolved bundle "p.v1" with version "1": pre-authorization failed: service account requires …' };
const forbidden = { reason: 'Retrying', message: 'error for resolved bundle "p.v1" with version "1": deployments.apps "op" is forbidden: User "system:serviceaccount:ns:sa" cannot patch …' };
const missingAccount = { reason: 'Retrying', message: 'installation cannot proceed due to missing ServiceAccount' };
const resolutionFailed = { reason: 'Retrying', message: 'no bundles found for package "p"' };
const succeeded = { reason: 'Succeeded', message: 'Desired state reached' };

describe('waitingOnPermissions', () => {
  it('is true for a preflight refusal, a forbidden apply and a missing account, with a service account named', () => {
    expect([preflightFailed, forbidden, missingAccount].map((progressing) => waitingOnPermissions(ext('e', { sa: 'sa', progressing })))).toEqual([true, true, true]);
  });
  it('is false for other failures, success, no status, or no service account', () => {
    expect(waitingOnPermissions(ext('e', { sa: 'sa', progressing: resolutionFailed }))).toBe(false);
    expect(waitingOnPermissions(ext('e', { sa: 'sa', progressing: succeeded }))).toBe(false);
    expect(waitingOnPermissions(ext('e', { sa: 'sa' }))).toBe(false);
    expect(waitingOnPermissions(ext('e', { progressing: preflightFailed }))).toBe(false);
  });
});

describe('extensionsToRequeue', () => {
  const all = [
    ext('waiting', { sa: 'sa', progressing: preflightFailed }),
    ext('forbidden', { sa: 'other', namespace: 'elsewhere', progressing: forbidden }),
    ext('fine', { sa: 'sa', progressing: succeeded }),
    ext('unresolved', { sa: 'sa', progressing: resolutionFailed }),
    ext('own-identity', { progressing: preflightFailed }),
  ];
  it('an RBAC change: the extensions waiting on a permission failure, whatever the object', () => {
    for (const kind of ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'] as const) {
      expect(extensionsToRequeue({ kind, namespace: kind.startsWith('Cluster') ? '' : 'x', name: 'any' }, all)).toEqual(['waiting', 'forbidden']);
    }
  });
  it('a ServiceAccount change: every extension installing as that account, in that namespace', () => {
    expect(extensionsToRequeue({ kind: 'ServiceAccount', namespace: 'ns', name: 'sa' }, all)).toEqual(['waiting', 'fine', 'unresolved']);
    expect(extensionsToRequeue({ kind: 'ServiceAccount', namespace: 'other-ns', name: 'sa' }, all)).toEqual([]);
  });
});

describe('cachedServiceAccounts', () => {
  const cache = new Map([['ns/sa', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: 'ns' } }]]);
  const identity = cachedServiceAccounts((key) => cache.get(key));
  it('passes an existing account and an extension naming none', async () => {
    await expect(identity.check(ext('e', { sa: 'sa' }), signal)).resolves.toBeUndefined();
    await expect(identity.check(ext('e'), signal)).resolves.toBeUndefined();
  });
  it('a missing account, or one in a missing namespace: upstream’s ServiceAccountNotFoundError, one line', async () => {
    const err = await identity.check(ext('e', { sa: 'nobody' }), signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceAccountNotFoundError);
    expect((err as Error).message).toBe('service account "nobody" not found in namespace "ns": unable to authenticate with the Kubernetes cluster.');
    await expect(identity.check(ext('e', { sa: 'sa', namespace: 'gone' }), signal)).rejects.toThrow('service account "sa" not found in namespace "gone"');
  });
});

describe('slimToName', () => {
  it('keeps only the identifying metadata: no rules, subjects or secrets', () => {
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'r', namespace: 'ns', uid: 'u', resourceVersion: '7', labels: { a: 'b' }, managedFields: [] },
      rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    };
    expect(slimToName(role)).toEqual({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r', namespace: 'ns', uid: 'u', resourceVersion: '7' } });
  });
});
