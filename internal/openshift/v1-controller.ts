// OLM v1's gating for the operator-controller process (upstream: cluster-olm-operator's incompatible-operator
// controller and library-go's status syncer for ClusterOperator `olm`): ClusterExtensions and their revision
// heads from informers, one key — the ClusterOperator's name — enqueued by any change, and the ClusterOperator's
// Upgradeable condition written from v1.ts (its other conditions are left as they are).
import type { KubeObject } from '../../api/meta/v1.ts';
import { ClusterExtensionKind, GroupVersion, type ClusterExtension } from '../../api/v1/index.ts';
import { formatTime, type Controller } from '../shared/controller/index.ts';
import type { Informer} from '../shared/kube/index.ts';
import { informers } from '../shared/kube/index.ts';
import { clockOf, type ManagerContext, type ManagerParts } from '../shared/manager/index.ts';
import type { Version } from '../shared/semver/index.ts';
import { libraryGoSetCondition, type ClusterOperatorStatus } from './clusteroperator.ts';
import { clusterOperatorController } from './gating.ts';
import { v1Incompatible, v1Upgradeable, type ExtensionInfo, type RevisionInfo } from './v1.ts';

/**
 * Where an extension's revisions are and how to read one (operator-controller provides it): revision head Secrets of
 * the system namespace (the standard runtime), or ClusterObjectSets (BoxcutterRuntime).
 */
export interface RevisionHeadSource {
  readonly apiVersion: string;
  readonly kind: string;
  /** Namespace of the objects; absent: cluster-scoped (or every namespace). */
  readonly namespace?: string;
  /** Label selector of the revision objects of every extension. */
  readonly labelSelector: string;
  /** What the informer keeps of an object; default: its metadata (and a Secret's type). */
  readonly transform?: (obj: KubeObject) => KubeObject;
  /** An object's extension and revision; undefined for an object that is not a revision. */
  read(obj: KubeObject): { readonly extension: string; readonly revision: RevisionInfo } | undefined;
}

export interface V1GatingOptions {
  /** The ClusterOperator to write (`olm` on OpenShift). */
  readonly name: string;
  /** The cluster's minor (`RELEASE_VERSION` parsed strictly, patch, prerelease and build zeroed: v1CurrentMinor). */
  readonly currentMinor: Version;
  readonly revisions: RevisionHeadSource;
}

export interface V1GatingParts extends ManagerParts {
  readonly extensions: Informer<ClusterExtension>;
  readonly heads: Informer;
  readonly controller: Controller;
}

const nameOnly = <T extends KubeObject>(o: T): T => ({ apiVersion: o.apiVersion, kind: o.kind, metadata: { name: o.metadata.name, resourceVersion: o.metadata.resourceVersion } }) as T;
const metadataOnly = (o: KubeObject & { type?: string }): KubeObject => {
  const { managedFields: _m, ...metadata } = o.metadata;
  return { apiVersion: o.apiVersion, kind: o.kind, metadata, ...(o.type !== undefined && { type: o.type }) } as KubeObject;
};

export function v1GatingSetup(options: V1GatingOptions): (ctx: ManagerContext) => V1GatingParts {
  return (ctx) => {
    const { client, logger } = ctx;
    const clock = clockOf(ctx);
    const informer = informers(client, logger);
    const extensions = informer<ClusterExtension>(GroupVersion, ClusterExtensionKind, { name: 'clusterextensions-gating', transform: nameOnly });
    const heads = informer(options.revisions.apiVersion, options.revisions.kind, {
      name: 'revision-heads',
      ...(options.revisions.namespace !== undefined && { namespace: options.revisions.namespace }),
      labelSelector: options.revisions.labelSelector,
      transform: options.revisions.transform ?? metadataOnly,
    });
    const extensionInfos = (): ExtensionInfo[] => {
      const byExtension = new Map<string, RevisionInfo[]>();
      for (const s of heads.list()) {
        const r = options.revisions.read(s);
        if (!r) continue;
        const list = byExtension.get(r.extension) ?? [];
        list.push(r.revision);
        byExtension.set(r.extension, list);
      }
      return extensions
        .list()
        .map((e) => e.metadata.name ?? '')
        .sort()
        .map((name) => ({ name, revisions: byExtension.get(name) ?? [] }));
    };
    const { controller, close, log } = clusterOperatorController(ctx, {
      name: options.name,
      controller: 'clusteroperator-olm',
      component: 'operator-controller',
      kind: ClusterExtensionKind,
      compute: (current) => {
        const result = v1Incompatible(extensionInfos(), options.currentMinor);
        const status: ClusterOperatorStatus = structuredClone(current ?? {});
        libraryGoSetCondition(status, v1Upgradeable(result, options.currentMinor), formatTime(clock.date()));
        return { status, blocking: result.blocking.length + result.errors.length };
      },
    });
    controller.watch(extensions, () => options.name);
    controller.watch(heads, () => options.name);
    controller.enqueue(options.name);
    log.info('writing ClusterOperator Upgradeable', { clusterOperator: options.name, currentMinor: `${options.currentMinor.major}.${options.currentMinor.minor}` });
    return { informers: [extensions, heads], controllers: [controller], closers: [close], extensions, heads, controller };
  };
}
