// Builders for in-memory registry+v1 bundles in tests.
import type { KubeObject } from '../../../api/meta/v1.ts';
import type { CSVSpec, ClusterServiceVersion, InstallModeType, RegistryV1 } from '../../shared/registryv1/index.ts';

export function csvWith(spec: CSVSpec = {}, name = 'test-operator.v1.0.0', annotations?: Record<string, string>): ClusterServiceVersion {
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: annotations ? { name, annotations } : { name },
    spec,
  };
}

export function installModes(...supported: InstallModeType[]): CSVSpec['installModes'] {
  return (['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'] as const).map((type) => ({
    type,
    supported: supported.includes(type),
  }));
}

export function crd(name: string, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name }, spec: { ...extra } };
}

export function bundle(csv: ClusterServiceVersion, parts: Partial<Omit<RegistryV1, 'csv'>> = {}): RegistryV1 {
  return { packageName: parts.packageName ?? 'test-operator', csv, crds: parts.crds ?? [], others: parts.others ?? [] };
}
