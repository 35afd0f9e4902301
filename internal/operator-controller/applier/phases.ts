// Which phase each object is applied in, and the order of the phases: upstream's Boxcutter phase
// names, order and group-kind presets (operator-controller internal/operator-controller/applier/phase.go, v1.11).
// Objects of unknown kinds go to `deploy`, as upstream's do.
import type { KubeObject } from '../../../api/meta/v1.ts';

/** The phases in the order they are applied. */
export const PHASE_ORDER = [
  'namespaces',
  'policies',
  'identity',
  'configuration',
  'storage',
  'crds',
  'roles',
  'bindings',
  'infrastructure',
  'deploy',
  'scaling',
  'publish',
  'admission',
] as const;
export type PhaseName = (typeof PHASE_ORDER)[number];

/** The phase of unknown kinds. */
export const DEFAULT_PHASE: PhaseName = 'deploy';

/** `group/kind` → phase; the core group is the empty string. */
const byGroupKind: ReadonlyMap<string, PhaseName> = new Map<string, PhaseName>([
  ['/Namespace', 'namespaces'],
  ['networking.k8s.io/NetworkPolicy', 'policies'],
  ['policy/PodDisruptionBudget', 'policies'],
  ['scheduling.k8s.io/PriorityClass', 'policies'],
  ['/ServiceAccount', 'identity'],
  ['/Secret', 'configuration'],
  ['/ConfigMap', 'configuration'],
  ['/PersistentVolume', 'storage'],
  ['/PersistentVolumeClaim', 'storage'],
  ['storage.k8s.io/StorageClass', 'storage'],
  ['apiextensions.k8s.io/CustomResourceDefinition', 'crds'],
  ['rbac.authorization.k8s.io/ClusterRole', 'roles'],
  ['rbac.authorization.k8s.io/Role', 'roles'],
  ['rbac.authorization.k8s.io/ClusterRoleBinding', 'bindings'],
  ['rbac.authorization.k8s.io/RoleBinding', 'bindings'],
  ['/Service', 'infrastructure'],
  ['cert-manager.io/Issuer', 'infrastructure'],
  ['cert-manager.io/Certificate', 'infrastructure'],
  ['apps/Deployment', 'deploy'],
  ['autoscaling.k8s.io/VerticalPodAutoscaler', 'scaling'],
  ['monitoring.coreos.com/PrometheusRule', 'publish'],
  ['monitoring.coreos.com/ServiceMonitor', 'publish'],
  ['monitoring.coreos.com/PodMonitor', 'publish'],
  ['networking.k8s.io/Ingress', 'publish'],
  ['route.openshift.io/Route', 'publish'],
  ['console.openshift.io/ConsoleYAMLSample', 'publish'],
  ['console.openshift.io/ConsoleQuickStart', 'publish'],
  ['console.openshift.io/ConsoleCLIDownload', 'publish'],
  ['console.openshift.io/ConsoleLink', 'publish'],
  ['console.openshift.io/ConsolePlugin', 'publish'],
  ['admissionregistration.k8s.io/ValidatingWebhookConfiguration', 'admission'],
  ['admissionregistration.k8s.io/MutatingWebhookConfiguration', 'admission'],
]);

/** `apps/v1` → `apps`, `v1` → `` (core). */
export function groupOf(apiVersion: string | undefined): string {
  const v = apiVersion ?? '';
  const slash = v.indexOf('/');
  return slash < 0 ? '' : v.slice(0, slash);
}

export function versionOf(apiVersion: string | undefined): string {
  const v = apiVersion ?? '';
  return v.slice(v.indexOf('/') + 1);
}

export function phaseOf(obj: KubeObject): PhaseName {
  return byGroupKind.get(`${groupOf(obj.apiVersion)}/${obj.kind ?? ''}`) ?? DEFAULT_PHASE;
}

export interface Phase {
  readonly name: PhaseName;
  readonly objects: readonly KubeObject[];
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Group, version, kind, namespace, name: upstream's order of objects within a phase. */
export function compareObjects(a: KubeObject, b: KubeObject): number {
  return (
    cmp(groupOf(a.apiVersion), groupOf(b.apiVersion)) ||
    cmp(versionOf(a.apiVersion), versionOf(b.apiVersion)) ||
    cmp(a.kind ?? '', b.kind ?? '') ||
    cmp(a.metadata.namespace ?? '', b.metadata.namespace ?? '') ||
    cmp(a.metadata.name ?? '', b.metadata.name ?? '')
  );
}

/** The objects grouped into phases, in phase order; empty phases are left out. */
export function sortIntoPhases(objects: readonly KubeObject[]): Phase[] {
  const phased = objects.map((obj) => ({ obj, phase: phaseOf(obj) }));
  return PHASE_ORDER.map((name) => ({ name, objects: phased.filter((o) => o.phase === name).map((o) => o.obj).sort(compareObjects) })).filter(
    (p) => p.objects.length > 0,
  );
}

/** Identity of an object across revisions: group, kind, namespace, name (the version may change). */
export function objectKey(obj: KubeObject): string {
  return `${groupOf(obj.apiVersion)}/${obj.kind ?? ''}/${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}
