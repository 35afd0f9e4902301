// How OpenShift's v1 gating (internal/openshift) reads an extension's revisions: the standard runtime's revision-head
// Secrets or, under BoxcutterRuntime, the ClusterObjectSets.
import type { KubeObject } from '../../api/meta/v1.ts';
import { BundleNameKey, ClusterExtensionKind, ClusterObjectSetKind, GroupVersion, OwnerKindKey, OwnerNameKey, PropertiesAnnotation, type ClusterObjectSet } from '../../api/v1/index.ts';
import { RevisionHeadsSelector, readRevisionHead } from './applier/index.ts';

/** How OpenShift's v1 gating reads an extension's revisions (`RevisionHeadSource` of internal/openshift). */
export interface RevisionSource {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly labelSelector: string;
  readonly transform?: (obj: KubeObject) => KubeObject;
  read(obj: KubeObject): { extension: string; revision: { number: number; active: boolean; bundleName: string; properties?: string } } | undefined;
}

/**
 * The revision heads of `systemNamespace` (the standard runtime's revision Secrets): each head's extension, number,
 * lifecycle, bundle name and `olm.properties`.
 */
export function revisionHeadSource(systemNamespace: string): RevisionSource {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    namespace: systemNamespace,
    labelSelector: RevisionHeadsSelector,
    read: (secret) => {
      const r = readRevisionHead(secret);
      if (!r) return undefined;
      const { number, archived, bundle } = r.head;
      return { extension: r.extension, revision: { number, active: !archived, bundleName: bundle.name, ...(bundle.properties !== undefined && { properties: bundle.properties }) } };
    },
  };
}

/** The extensions' ClusterObjectSets (BoxcutterRuntime): each one's extension, revision, lifecycle, bundle name and `olm.properties`. */
export function objectSetRevisionSource(): RevisionSource {
  return {
    apiVersion: GroupVersion,
    kind: ClusterObjectSetKind,
    labelSelector: `${OwnerKindKey}=${ClusterExtensionKind}`,
    transform: (o) => {
      const cos = o as ClusterObjectSet;
      const a = cos.metadata.annotations ?? {};
      return {
        apiVersion: cos.apiVersion,
        kind: cos.kind,
        metadata: {
          name: cos.metadata.name,
          resourceVersion: cos.metadata.resourceVersion,
          ...(cos.metadata.labels && { labels: cos.metadata.labels }),
          annotations: {
            ...(a[BundleNameKey] !== undefined && { [BundleNameKey]: a[BundleNameKey] }),
            ...(a[PropertiesAnnotation] !== undefined && { [PropertiesAnnotation]: a[PropertiesAnnotation] }),
          },
        },
        spec: { revision: cos.spec?.revision, lifecycleState: cos.spec?.lifecycleState },
      } as KubeObject;
    },
    read: (o) => {
      const cos = o as ClusterObjectSet;
      const extension = cos.metadata.labels?.[OwnerNameKey];
      if (extension === undefined || cos.metadata.labels?.[OwnerKindKey] !== ClusterExtensionKind) return undefined;
      const properties = cos.metadata.annotations?.[PropertiesAnnotation];
      return {
        extension,
        revision: {
          number: cos.spec?.revision ?? 0,
          active: cos.spec?.lifecycleState !== 'Archived',
          bundleName: cos.metadata.annotations?.[BundleNameKey] ?? '',
          ...(properties !== undefined && { properties }),
        },
      };
    },
  };
}
