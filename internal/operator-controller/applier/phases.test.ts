import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api/meta/v1.ts';
import { PHASE_ORDER, objectKey, phaseOf, sortIntoPhases } from './phases.ts';

const obj = (apiVersion: string, kind: string, name: string, namespace?: string): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name, ...(namespace && { namespace }) },
});

describe('phases', () => {
  it('has upstream Boxcutter phase names in upstream order', () => {
    expect(PHASE_ORDER).toEqual([
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
    ]);
  });

  it.each([
    ['v1', 'Namespace', 'namespaces'],
    ['networking.k8s.io/v1', 'NetworkPolicy', 'policies'],
    ['policy/v1', 'PodDisruptionBudget', 'policies'],
    ['scheduling.k8s.io/v1', 'PriorityClass', 'policies'],
    ['v1', 'ServiceAccount', 'identity'],
    ['v1', 'Secret', 'configuration'],
    ['v1', 'ConfigMap', 'configuration'],
    ['v1', 'PersistentVolumeClaim', 'storage'],
    ['storage.k8s.io/v1', 'StorageClass', 'storage'],
    ['apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'crds'],
    ['rbac.authorization.k8s.io/v1', 'ClusterRole', 'roles'],
    ['rbac.authorization.k8s.io/v1', 'Role', 'roles'],
    ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'bindings'],
    ['rbac.authorization.k8s.io/v1', 'RoleBinding', 'bindings'],
    ['v1', 'Service', 'infrastructure'],
    ['cert-manager.io/v1', 'Certificate', 'infrastructure'],
    ['cert-manager.io/v1', 'Issuer', 'infrastructure'],
    ['apps/v1', 'Deployment', 'deploy'],
    ['example.com/v1', 'Widget', 'deploy'],
    ['autoscaling.k8s.io/v1', 'VerticalPodAutoscaler', 'scaling'],
    ['monitoring.coreos.com/v1', 'ServiceMonitor', 'publish'],
    ['networking.k8s.io/v1', 'Ingress', 'publish'],
    ['route.openshift.io/v1', 'Route', 'publish'],
    ['monitoring.coreos.com/v1', 'PodMonitor', 'publish'],
    ['monitoring.coreos.com/v1', 'PrometheusRule', 'publish'],
    ['console.openshift.io/v1', 'ConsoleYAMLSample', 'publish'],
    ['console.openshift.io/v1', 'ConsoleQuickStart', 'publish'],
    ['console.openshift.io/v1', 'ConsoleCLIDownload', 'publish'],
    ['console.openshift.io/v1', 'ConsoleLink', 'publish'],
    ['console.openshift.io/v1', 'ConsolePlugin', 'publish'],
    // A console kind upstream's presets do not list goes where every unknown kind goes.
    ['console.openshift.io/v1', 'ConsoleNotification', 'deploy'],
    ['v1', 'PersistentVolume', 'storage'],
    ['admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', 'admission'],
    ['admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration', 'admission'],
    // Same kind, other group: not the well-known one.
    ['example.com/v1', 'Service', 'deploy'],
  ])('%s %s → %s', (apiVersion, kind, phase) => {
    expect(phaseOf(obj(apiVersion, kind, 'x'))).toBe(phase);
  });

  it('groups into phases in order, leaves out empty phases, sorts by group, version, kind, namespace, name', () => {
    const phases = sortIntoPhases([
      obj('apps/v1', 'Deployment', 'b', 'ns'),
      obj('v1', 'ServiceAccount', 'sa', 'ns'),
      obj('apps/v1', 'Deployment', 'a', 'ns'),
      obj('example.com/v1', 'Widget', 'w', 'ns'),
      obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'widgets.example.com'),
      obj('apps/v1', 'Deployment', 'a', 'another'),
    ]);
    expect(phases.map((p) => [p.name, p.objects.map(objectKey)])).toEqual([
      ['identity', ['/ServiceAccount/ns/sa']],
      ['crds', ['apiextensions.k8s.io/CustomResourceDefinition//widgets.example.com']],
      ['deploy', ['apps/Deployment/another/a', 'apps/Deployment/ns/a', 'apps/Deployment/ns/b', 'example.com/Widget/ns/w']],
    ]);
  });

  it('identifies objects across versions by group, kind, namespace and name', () => {
    expect(objectKey(obj('example.com/v1', 'Widget', 'w', 'ns'))).toBe(objectKey(obj('example.com/v2', 'Widget', 'w', 'ns')));
  });
});
