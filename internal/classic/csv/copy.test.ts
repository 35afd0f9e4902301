// The operator's Roles lifted to ClusterRoles for a group of every namespace (upstream's ensureRBACInTargetNamespace /
// ensureSingletonRBAC), and what the CSV reconciler logs of it.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import {
  ClusterServiceVersionKind,
  OperatorGroupAnnotationKey,
  OperatorGroupNamespaceAnnotationKey,
  OperatorGroupTargetsAnnotationKey,
  OwnerKindLabel,
  OwnerLabel,
  OwnerNamespaceLabel,
  V1alpha1,
  type ClusterServiceVersion,
  type OperatorGroup,
} from '../../../api/operators/index.ts';
import { routineOf } from '../../shared/controller/index.ts';
import { ApiError, type KubeClient } from '../../shared/kube/index.ts';
import type { LogFields, Logger } from '../../shared/observability/index.ts';
import { noopLogger } from '../../shared/observability/index.ts';
import { buildTargetNamespaces } from '../operatorgroup/index.ts';
import { ensureRBACInTargetNamespace, type CopyPorts } from './copy.ts';
import { fakeCaches, fakeClient, fakePorts, metRequirements, type FakeCluster, type RecordedCall } from './testing.ts';
import { newCSVReconciler } from './reconciler.ts';

const NS = 'operators';
const RBAC = 'rbac.authorization.k8s.io/v1';
const ROLE = 'global.v1.0.0-operator-abc';

const og: OperatorGroup = { apiVersion: 'operators.coreos.com/v1', kind: 'OperatorGroup', metadata: { name: 'global', namespace: NS }, spec: {}, status: { namespaces: [''], lastUpdated: '2026-01-01T00:00:00Z' } } as OperatorGroup;

const csv: ClusterServiceVersion = {
  apiVersion: V1alpha1,
  kind: ClusterServiceVersionKind,
  metadata: {
    name: 'global.v1.0.0',
    namespace: NS,
    uid: 'csv-uid',
    annotations: { [OperatorGroupAnnotationKey]: 'global', [OperatorGroupNamespaceAnnotationKey]: NS, [OperatorGroupTargetsAnnotationKey]: buildTargetNamespaces(og) },
  },
  spec: {
    install: {
      strategy: 'deployment',
      spec: { deployments: [], permissions: [{ serviceAccountName: 'operator', rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] }] },
    },
  },
  status: { phase: 'Pending' },
} as unknown as ClusterServiceVersion;

const owned = { [OwnerLabel]: csv.metadata.name!, [OwnerNamespaceLabel]: NS, [OwnerKindLabel]: ClusterServiceVersionKind };
const role: KubeObject = { apiVersion: RBAC, kind: 'Role', metadata: { name: ROLE, namespace: NS, labels: owned }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] } as KubeObject;
const binding: KubeObject = {
  apiVersion: RBAC,
  kind: 'RoleBinding',
  metadata: { name: ROLE, namespace: NS, labels: owned },
  subjects: [{ kind: 'ServiceAccount', name: 'operator', namespace: NS }],
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: ROLE },
} as KubeObject;

const alreadyExists = (kind: string, name: string): ApiError =>
  new ApiError(409, { reason: 'AlreadyExists', message: `${kind.toLowerCase()}s.rbac.authorization.k8s.io "${name}" already exists` }, { method: 'POST', path: '/' });

/** Copy ports over fixed caches; `exists` names the kinds whose create the API server answers AlreadyExists. */
function ports(cluster: FakeCluster, exists: readonly string[] = []): { p: CopyPorts; calls: RecordedCall[] } {
  const { client, calls } = fakeClient();
  const create = client.create.bind(client);
  const answering = {
    ...client,
    create: async (o: KubeObject, opts?: unknown) => {
      if (exists.includes(o.kind ?? '')) {
        calls.push({ verb: 'create', kind: o.kind ?? '', name: o.metadata.name ?? '' });
        throw alreadyExists(o.kind ?? '', o.metadata.name ?? '');
      }
      return create(o, opts as never);
    },
  } as unknown as KubeClient;
  return { p: { client: answering, caches: fakeCaches(cluster), requirements: metRequirements(), logger: noopLogger, enqueueCopied: () => undefined }, calls };
}

const creates = (calls: readonly RecordedCall[]): string[] => calls.filter((c) => c.verb === 'create').map((c) => `${c.kind} ${c.name}`);

describe('ensureRBACInTargetNamespace (a group of every namespace, permissions not met cluster-wide)', () => {
  it('lifts the owned Roles and RoleBindings: ClusterRole with the namespaces view rule, ClusterRoleBinding to it', async () => {
    const { p, calls } = ports({ csvs: [csv], roles: [role], roleBindings: [binding] });
    await ensureRBACInTargetNamespace(p, csv, og, new AbortController().signal);
    expect(creates(calls)).toEqual([`ClusterRole ${ROLE}`, `ClusterRoleBinding ${ROLE}`]);
    const cr = calls.find((c) => c.kind === 'ClusterRole')!.body as { rules: unknown[]; metadata: { labels: Record<string, string> } };
    expect(cr.rules).toEqual([{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }, { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['namespaces'] }]);
    expect(cr.metadata.labels).toEqual(owned);
    const crb = calls.find((c) => c.kind === 'ClusterRoleBinding')!.body as { roleRef: unknown; subjects: unknown };
    expect(crb.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: ROLE });
    expect(crb.subjects).toEqual([{ kind: 'ServiceAccount', name: 'operator', namespace: NS }]);
  });

  it('creates nothing the cache already holds', async () => {
    const { p, calls } = ports({
      csvs: [csv],
      roles: [role],
      roleBindings: [binding],
      clusterRoles: [{ apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: ROLE } }],
      clusterRoleBindings: [{ apiVersion: RBAC, kind: 'ClusterRoleBinding', metadata: { name: ROLE } }],
    });
    await ensureRBACInTargetNamespace(p, csv, og, new AbortController().signal);
    expect(creates(calls)).toEqual([]);
  });

  it('a create answered AlreadyExists (made by an earlier pass, not cached yet) counts as made: no error, the binding still made', async () => {
    const { p, calls } = ports({ csvs: [csv], roles: [role], roleBindings: [binding] }, ['ClusterRole']);
    await expect(ensureRBACInTargetNamespace(p, csv, og, new AbortController().signal)).resolves.toBeUndefined();
    expect(creates(calls)).toEqual([`ClusterRole ${ROLE}`, `ClusterRoleBinding ${ROLE}`]);

    const both = ports({ csvs: [csv], roles: [role], roleBindings: [binding] }, ['ClusterRole', 'ClusterRoleBinding']);
    await expect(ensureRBACInTargetNamespace(both.p, csv, og, new AbortController().signal)).resolves.toBeUndefined();
  });

  it('other create errors still fail the pass', async () => {
    const { p } = ports({ csvs: [csv], roles: [role], roleBindings: [binding] });
    const refusing = { ...p, client: { ...p.client, create: () => Promise.reject(new ApiError(403, { reason: 'Forbidden', message: 'no' }, { method: 'POST', path: '/' })) } as unknown as KubeClient };
    await expect(ensureRBACInTargetNamespace(refusing, csv, og, new AbortController().signal)).rejects.toThrow('no');
  });

  it('no owned Roles yet (the InstallPlan makes them after the CSV): upstream’s error, marked routine', async () => {
    const { p, calls } = ports({ csvs: [csv] });
    const err = await ensureRBACInTargetNamespace(p, csv, og, new AbortController().signal).catch((e: unknown) => e);
    expect((err as Error).message).toBe('no owned roles found');
    expect(routineOf(err)?.reason).toBe('OwnedRolesNotCachedYet');
    expect(creates(calls)).toEqual([]);
  });
});

interface Line {
  readonly level: string;
  readonly msg: string;
  readonly fields: LogFields;
}
function capturing(lines: Line[], base: LogFields = {}): Logger {
  const at = (level: string) => (msg: string, fields?: LogFields) => void lines.push({ level, msg, fields: { ...base, ...fields } });
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), child: (f) => capturing(lines, { ...base, ...f }) };
}

describe('the CSV reconciler after its write: "couldn\'t ensure RBAC in target namespaces"', () => {
  const pass = async (cluster: FakeCluster): Promise<{ lines: Line[]; err: unknown }> => {
    const lines: Line[] = [];
    const fake = fakePorts({ ...cluster, operatorGroups: [og] });
    const copy: CopyPorts = { client: fake.client, caches: fake.caches, requirements: metRequirements(), logger: noopLogger, enqueueCopied: () => undefined };
    const r = newCSVReconciler({ ports: fake, copy, steps: [], log: capturing(lines), resyncMs: 300_000, enqueueCopy: () => undefined });
    const err = await r.reconcile(`${NS}/${csv.metadata.name!}`, new AbortController().signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    return { lines: lines.filter((l) => l.msg === "couldn't ensure RBAC in target namespaces"), err };
  };

  it('waiting for the InstallPlan’s Roles: logged at debug (it repeats every pass until they come), retried', async () => {
    const { lines, err } = await pass({ csvs: [csv] });
    expect(lines.map((l) => [l.level, l.fields['err']])).toEqual([['debug', 'no owned roles found']]);
    expect(routineOf(err)?.reason).toBe('OwnedRolesNotCachedYet');
  });

  it('any other failure: upstream’s line at info', async () => {
    const noStrategy = { ...csv, spec: { ...csv.spec, install: { strategy: 'other' } } } as unknown as ClusterServiceVersion;
    const { lines, err } = await pass({ csvs: [noStrategy] });
    expect(lines.map((l) => [l.level, l.fields['err']])).toEqual([['info', 'unrecognized install strategy']]);
    expect(err).toBeInstanceOf(Error);
  });

  it('the Roles lifted: nothing logged', async () => {
    const { lines, err } = await pass({ csvs: [csv], roles: [role], roleBindings: [binding] });
    expect(lines).toEqual([]);
    expect(err).toBeUndefined();
  });
});
