// The parts of operators.coreos.com/v1alpha1 ClusterServiceVersion that rendering reads, as plain
// JSON shapes (unknown fields kept).
import type { KubeObject } from '../../../api/meta/v1.ts';

export type InstallModeType = 'OwnNamespace' | 'SingleNamespace' | 'MultiNamespace' | 'AllNamespaces';

export interface PolicyRule {
  verbs?: string[] | null;
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
  [k: string]: unknown;
}

export interface StrategyDeploymentPermissions {
  serviceAccountName?: string;
  rules?: PolicyRule[] | null;
}

export interface StrategyDeploymentSpec {
  name?: string;
  spec?: Record<string, unknown>;
  label?: Record<string, string>;
}

export type WebhookAdmissionType = 'ValidatingAdmissionWebhook' | 'MutatingAdmissionWebhook' | 'ConversionWebhook';

export interface WebhookDescription {
  generateName?: string;
  type?: WebhookAdmissionType;
  deploymentName?: string;
  containerPort?: number;
  targetPort?: number | string;
  rules?: { apiGroups?: string[]; apiVersions?: string[]; resources?: string[]; operations?: string[]; scope?: string }[];
  failurePolicy?: string;
  matchPolicy?: string;
  objectSelector?: unknown;
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  reinvocationPolicy?: string;
  webhookPath?: string;
  conversionCRDs?: string[];
}

export interface CSVSpec {
  installModes?: { type?: InstallModeType; supported?: boolean }[];
  install?: {
    strategy?: string;
    spec?: {
      deployments?: StrategyDeploymentSpec[];
      permissions?: StrategyDeploymentPermissions[];
      clusterPermissions?: StrategyDeploymentPermissions[];
    };
  };
  customresourcedefinitions?: { owned?: { name?: string }[]; required?: unknown[] };
  apiservicedefinitions?: { owned?: unknown[]; required?: unknown[] };
  webhookdefinitions?: WebhookDescription[];
  [k: string]: unknown;
}

export interface ClusterServiceVersion extends KubeObject {
  spec?: CSVSpec;
}

export const deploymentsOf = (csv: ClusterServiceVersion): StrategyDeploymentSpec[] => csv.spec?.install?.spec?.deployments ?? [];
export const permissionsOf = (csv: ClusterServiceVersion): StrategyDeploymentPermissions[] => csv.spec?.install?.spec?.permissions ?? [];
export const clusterPermissionsOf = (csv: ClusterServiceVersion): StrategyDeploymentPermissions[] =>
  csv.spec?.install?.spec?.clusterPermissions ?? [];
export const webhooksOf = (csv: ClusterServiceVersion): WebhookDescription[] => csv.spec?.webhookdefinitions ?? [];

/** Install modes with `supported: true`, sorted (Go's sets.List order). */
export function supportedInstallModes(csv: ClusterServiceVersion): InstallModeType[] {
  const set = new Set<InstallModeType>();
  for (const m of csv.spec?.installModes ?? []) if (m.supported === true && m.type !== undefined) set.add(m.type);
  return [...set].sort();
}
