// The classic TypeScript types against the CRD schemas they describe (api/operators/schema): at every
// listed path the type has exactly the schema's property names (checked at compile time against the
// type's keys, at run time against the schema) and exactly the schema's required fields; upstream's
// words (states, reasons, phases) pinned where the schema or upstream names them.
import { describe, expect, it } from 'vitest';
import type { Condition, LabelSelector } from '../meta/v1.ts';
import type { CustomResourceDefinition, JSONSchemaProps } from '../v1/schema/index.ts';
import * as api from './index.ts';
import type * as T from './index.ts';
import {
  catalogSourceCRD,
  clusterServiceVersionCRD,
  installPlanCRD,
  operatorConditionCRD,
  operatorCRD,
  operatorGroupCRD,
  subscriptionCRD,
} from './schema/index.ts';

/** The storage version's root schema (the version the types describe). */
function storageRoot(crd: CustomResourceDefinition): JSONSchemaProps {
  const v = crd.spec.versions.find((x) => x.storage);
  const root = v?.schema?.openAPIV3Schema;
  if (!root) throw new Error(`${crd.metadata.name}: no storage version schema`);
  return root;
}

function at(schema: JSONSchemaProps, path: string): JSONSchemaProps {
  let node = schema;
  for (const step of path.split('.').filter(Boolean)) {
    const items = step.endsWith('[]');
    const name = items ? step.slice(0, -2) : step;
    const next = node.properties?.[name];
    if (!next) throw new Error(`no property ${name} on the way to ${path}`);
    node = items ? (next.items ?? next) : next;
  }
  return node;
}

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type RequiredKeys<X> = { [K in keyof X]-?: object extends Pick<X, K> ? never : K }[keyof X] & string;
type Check<K extends readonly string[], Want> = Same<K[number], Want> extends true ? unknown : { error: 'keys differ from the type' };

/** Compile time: `keys` are exactly the keys of X; the test compares them with the schema. */
const fieldsOf =
  <X>() =>
  <const K extends readonly string[]>(...keys: K & Check<K, keyof X & string>): readonly string[] =>
    keys;
/** Compile time: `keys` are exactly the required keys of X. */
const requiredOf =
  <X>() =>
  <const K extends readonly string[]>(...keys: K & Check<K, RequiredKeys<X>>): readonly string[] =>
    keys;

type Row = readonly [kind: string, crd: CustomResourceDefinition, path: string, fields: readonly string[], required: readonly string[]];
const CS = catalogSourceCRD;
const SUB = subscriptionCRD;
const IP = installPlanCRD;
const CSV = clusterServiceVersionCRD;
const OG = operatorGroupCRD;
const OC = operatorConditionCRD;
const OP = operatorCRD;

const rows: readonly Row[] = [
  // CatalogSource
  ['CatalogSource', CS, 'spec',
    fieldsOf<T.CatalogSourceSpec>()('address', 'configMap', 'description', 'displayName', 'grpcPodConfig', 'icon', 'image', 'priority', 'publisher', 'secrets', 'sourceType', 'updateStrategy'),
    requiredOf<T.CatalogSourceSpec>()('sourceType')],
  ['CatalogSource', CS, 'spec.grpcPodConfig',
    fieldsOf<T.GrpcPodConfig>()('affinity', 'extractContent', 'memoryTarget', 'nodeSelector', 'priorityClassName', 'securityContextConfig', 'tolerations'),
    requiredOf<T.GrpcPodConfig>()()],
  ['CatalogSource', CS, 'spec.grpcPodConfig.extractContent', fieldsOf<T.ExtractContentConfig>()('cacheDir', 'catalogDir'), requiredOf<T.ExtractContentConfig>()('catalogDir')],
  ['CatalogSource', CS, 'spec.icon', fieldsOf<T.Icon>()('base64data', 'mediatype'), requiredOf<T.Icon>()('base64data', 'mediatype')],
  ['CatalogSource', CS, 'spec.updateStrategy', fieldsOf<T.UpdateStrategy>()('registryPoll'), requiredOf<T.UpdateStrategy>()()],
  ['CatalogSource', CS, 'spec.updateStrategy.registryPoll', fieldsOf<T.RegistryPoll>()('interval'), requiredOf<T.RegistryPoll>()()],
  ['CatalogSource', CS, 'status',
    fieldsOf<T.CatalogSourceStatus>()('conditions', 'configMapReference', 'connectionState', 'latestImageRegistryPoll', 'message', 'reason', 'registryService'),
    requiredOf<T.CatalogSourceStatus>()()],
  ['CatalogSource', CS, 'status.conditions[]',
    fieldsOf<Condition>()('lastTransitionTime', 'message', 'observedGeneration', 'reason', 'status', 'type'),
    requiredOf<Condition>()('lastTransitionTime', 'message', 'reason', 'status', 'type')],
  ['CatalogSource', CS, 'status.configMapReference',
    fieldsOf<T.ConfigMapResourceReference>()('lastUpdateTime', 'name', 'namespace', 'resourceVersion', 'uid'),
    requiredOf<T.ConfigMapResourceReference>()('name', 'namespace')],
  ['CatalogSource', CS, 'status.connectionState', fieldsOf<T.GRPCConnectionState>()('address', 'lastConnect', 'lastObservedState'), requiredOf<T.GRPCConnectionState>()('lastObservedState')],
  ['CatalogSource', CS, 'status.registryService',
    fieldsOf<T.RegistryServiceStatus>()('createdAt', 'port', 'protocol', 'serviceName', 'serviceNamespace'),
    requiredOf<T.RegistryServiceStatus>()()],
  // Subscription
  ['Subscription', SUB, 'spec',
    fieldsOf<T.SubscriptionSpec>()('channel', 'config', 'installPlanApproval', 'name', 'source', 'sourceNamespace', 'startingCSV'),
    requiredOf<T.SubscriptionSpec>()('name', 'source', 'sourceNamespace')],
  ['Subscription', SUB, 'spec.config',
    fieldsOf<T.SubscriptionConfig>()('affinity', 'annotations', 'env', 'envFrom', 'nodeSelector', 'resources', 'selector', 'tolerations', 'volumeMounts', 'volumes'),
    requiredOf<T.SubscriptionConfig>()()],
  ['Subscription', SUB, 'status',
    fieldsOf<T.SubscriptionStatus>()('catalogHealth', 'conditions', 'currentCSV', 'installPlanGeneration', 'installPlanRef', 'installedCSV', 'installplan', 'lastUpdated', 'reason', 'state'),
    requiredOf<T.SubscriptionStatus>()('lastUpdated')],
  ['Subscription', SUB, 'status.catalogHealth[]',
    fieldsOf<T.SubscriptionCatalogHealth>()('catalogSourceRef', 'healthy', 'lastUpdated'),
    requiredOf<T.SubscriptionCatalogHealth>()('catalogSourceRef', 'healthy', 'lastUpdated')],
  ['Subscription', SUB, 'status.catalogHealth[].catalogSourceRef',
    fieldsOf<T.ObjectReference>()('apiVersion', 'fieldPath', 'kind', 'name', 'namespace', 'resourceVersion', 'uid'),
    requiredOf<T.ObjectReference>()()],
  ['Subscription', SUB, 'status.conditions[]',
    fieldsOf<T.SubscriptionCondition>()('lastHeartbeatTime', 'lastTransitionTime', 'message', 'reason', 'status', 'type'),
    requiredOf<T.SubscriptionCondition>()('status', 'type')],
  ['Subscription', SUB, 'status.installplan', fieldsOf<T.InstallPlanReference>()('apiVersion', 'kind', 'name', 'uuid'), requiredOf<T.InstallPlanReference>()('apiVersion', 'kind', 'name', 'uuid')],
  // InstallPlan
  ['InstallPlan', IP, 'spec',
    fieldsOf<T.InstallPlanSpec>()('approval', 'approved', 'clusterServiceVersionNames', 'generation', 'source', 'sourceNamespace'),
    requiredOf<T.InstallPlanSpec>()('approval', 'approved', 'clusterServiceVersionNames')],
  ['InstallPlan', IP, 'status',
    fieldsOf<T.InstallPlanStatus>()('attenuatedServiceAccountRef', 'bundleLookups', 'catalogSources', 'conditions', 'message', 'phase', 'plan', 'startTime'),
    requiredOf<T.InstallPlanStatus>()('catalogSources', 'phase')],
  ['InstallPlan', IP, 'status.bundleLookups[]',
    fieldsOf<T.BundleLookup>()('catalogSourceRef', 'conditions', 'identifier', 'path', 'properties', 'replaces'),
    requiredOf<T.BundleLookup>()('catalogSourceRef', 'identifier', 'path', 'replaces')],
  ['InstallPlan', IP, 'status.bundleLookups[].conditions[]',
    fieldsOf<T.BundleLookupCondition>()('lastTransitionTime', 'lastUpdateTime', 'message', 'reason', 'status', 'type'),
    requiredOf<T.BundleLookupCondition>()('status', 'type')],
  ['InstallPlan', IP, 'status.conditions[]',
    fieldsOf<T.InstallPlanCondition>()('lastTransitionTime', 'lastUpdateTime', 'message', 'reason', 'status', 'type'),
    requiredOf<T.InstallPlanCondition>()()],
  ['InstallPlan', IP, 'status.plan[]', fieldsOf<T.Step>()('optional', 'resolving', 'resource', 'status'), requiredOf<T.Step>()('resolving', 'resource', 'status')],
  ['InstallPlan', IP, 'status.plan[].resource',
    fieldsOf<T.StepResource>()('group', 'kind', 'manifest', 'name', 'sourceName', 'sourceNamespace', 'version'),
    requiredOf<T.StepResource>()('group', 'kind', 'name', 'sourceName', 'sourceNamespace', 'version')],
  // ClusterServiceVersion
  ['ClusterServiceVersion', CSV, 'spec',
    fieldsOf<T.ClusterServiceVersionSpec>()(
      'annotations', 'apiservicedefinitions', 'cleanup', 'customresourcedefinitions', 'description', 'displayName', 'icon', 'install',
      'installModes', 'keywords', 'labels', 'links', 'maintainers', 'maturity', 'minKubeVersion', 'nativeAPIs', 'provider',
      'relatedImages', 'release', 'replaces', 'selector', 'skips', 'version', 'webhookdefinitions',
    ),
    requiredOf<T.ClusterServiceVersionSpec>()('displayName', 'install')],
  ['ClusterServiceVersion', CSV, 'spec.customresourcedefinitions.owned[]',
    fieldsOf<T.CRDDescription>()('actionDescriptors', 'description', 'displayName', 'kind', 'name', 'resources', 'specDescriptors', 'statusDescriptors', 'version'),
    requiredOf<T.CRDDescription>()('kind', 'name', 'version')],
  ['ClusterServiceVersion', CSV, 'spec.apiservicedefinitions.owned[]',
    fieldsOf<T.APIServiceDescription>()(
      'actionDescriptors', 'containerPort', 'deploymentName', 'description', 'displayName', 'group', 'kind', 'name', 'resources',
      'specDescriptors', 'statusDescriptors', 'version',
    ),
    requiredOf<T.APIServiceDescription>()('group', 'kind', 'name', 'version')],
  ['ClusterServiceVersion', CSV, 'spec.install', fieldsOf<T.NamedInstallStrategy>()('spec', 'strategy'), requiredOf<T.NamedInstallStrategy>()('strategy')],
  ['ClusterServiceVersion', CSV, 'spec.install.spec.deployments[]', fieldsOf<T.StrategyDeploymentSpec>()('label', 'name', 'spec'), requiredOf<T.StrategyDeploymentSpec>()('name', 'spec')],
  ['ClusterServiceVersion', CSV, 'spec.install.spec.permissions[]',
    fieldsOf<T.StrategyDeploymentPermissions>()('rules', 'serviceAccountName'),
    requiredOf<T.StrategyDeploymentPermissions>()('rules', 'serviceAccountName')],
  ['ClusterServiceVersion', CSV, 'spec.installModes[]', fieldsOf<T.InstallMode>()('supported', 'type'), requiredOf<T.InstallMode>()('supported', 'type')],
  ['ClusterServiceVersion', CSV, 'spec.webhookdefinitions[]',
    fieldsOf<T.WebhookDescription>()(
      'admissionReviewVersions', 'containerPort', 'conversionCRDs', 'deploymentName', 'failurePolicy', 'generateName', 'matchPolicy',
      'objectSelector', 'reinvocationPolicy', 'rules', 'sideEffects', 'targetPort', 'timeoutSeconds', 'type', 'webhookPath',
    ),
    requiredOf<T.WebhookDescription>()('admissionReviewVersions', 'generateName', 'sideEffects', 'type')],
  ['ClusterServiceVersion', CSV, 'status',
    fieldsOf<T.ClusterServiceVersionStatus>()(
      'certsLastUpdated', 'certsRotateAt', 'cleanup', 'conditions', 'lastTransitionTime', 'lastUpdateTime', 'message', 'phase', 'reason', 'requirementStatus',
    ),
    requiredOf<T.ClusterServiceVersionStatus>()()],
  ['ClusterServiceVersion', CSV, 'status.conditions[]',
    fieldsOf<T.CSVCondition>()('lastTransitionTime', 'lastUpdateTime', 'message', 'phase', 'reason'),
    requiredOf<T.CSVCondition>()()],
  ['ClusterServiceVersion', CSV, 'status.requirementStatus[]',
    fieldsOf<T.RequirementStatus>()('dependents', 'group', 'kind', 'message', 'name', 'status', 'uuid', 'version'),
    requiredOf<T.RequirementStatus>()('group', 'kind', 'message', 'name', 'status', 'version')],
  ['ClusterServiceVersion', CSV, 'status.requirementStatus[].dependents[]',
    fieldsOf<T.DependentStatus>()('group', 'kind', 'message', 'status', 'uuid', 'version'),
    requiredOf<T.DependentStatus>()('group', 'kind', 'status', 'version')],
  // OperatorGroup (v1)
  ['OperatorGroup', OG, 'spec',
    fieldsOf<T.OperatorGroupSpec>()('selector', 'serviceAccountName', 'staticProvidedAPIs', 'targetNamespaces', 'upgradeStrategy'),
    requiredOf<T.OperatorGroupSpec>()()],
  ['OperatorGroup', OG, 'spec.selector', fieldsOf<LabelSelector>()('matchExpressions', 'matchLabels'), requiredOf<LabelSelector>()()],
  ['OperatorGroup', OG, 'status',
    fieldsOf<T.OperatorGroupStatus>()('conditions', 'lastUpdated', 'namespaces', 'serviceAccountRef'),
    requiredOf<T.OperatorGroupStatus>()('lastUpdated')],
  // OperatorCondition (v2)
  ['OperatorCondition', OC, 'spec',
    fieldsOf<T.OperatorConditionSpec>()('conditions', 'deployments', 'overrides', 'serviceAccounts'),
    requiredOf<T.OperatorConditionSpec>()()],
  ['OperatorCondition', OC, 'spec.overrides[]',
    fieldsOf<T.ConditionOverride>()('lastTransitionTime', 'message', 'observedGeneration', 'reason', 'status', 'type'),
    requiredOf<T.ConditionOverride>()('message', 'reason', 'status', 'type')],
  ['OperatorCondition', OC, 'status', fieldsOf<T.OperatorConditionStatus>()('conditions'), requiredOf<T.OperatorConditionStatus>()()],
  // Operator (v1)
  ['Operator', OP, 'spec', fieldsOf<T.OperatorSpec>()(), requiredOf<T.OperatorSpec>()()],
  ['Operator', OP, 'status', fieldsOf<T.OperatorStatus>()('components'), requiredOf<T.OperatorStatus>()()],
  ['Operator', OP, 'status.components', fieldsOf<T.Components>()('labelSelector', 'refs'), requiredOf<T.Components>()('labelSelector')],
  ['Operator', OP, 'status.components.refs[]',
    fieldsOf<T.RichReference>()('apiVersion', 'conditions', 'fieldPath', 'kind', 'name', 'namespace', 'resourceVersion', 'uid'),
    requiredOf<T.RichReference>()()],
];

const sorted = (xs: readonly string[]): string[] => [...xs].sort();

describe('classic TypeScript types', () => {
  it.each(rows)('%s %s: the type has exactly the schema’s fields and required fields', (_kind, crd, path, fields, required) => {
    const node = at(storageRoot(crd), path);
    expect(sorted(fields)).toEqual(sorted(Object.keys(node.properties ?? {})));
    expect(sorted(required)).toEqual(sorted(node.required ?? []));
  });

  it('covers every property of spec and status of every kind it types', () => {
    const covered = new Set(rows.map(([kind, , path]) => `${kind} ${path}`));
    for (const [kind, crd] of [['CatalogSource', CS], ['Subscription', SUB], ['InstallPlan', IP], ['ClusterServiceVersion', CSV],
      ['OperatorGroup', OG], ['OperatorCondition', OC], ['Operator', OP]] as const) {
      expect(covered.has(`${kind} spec`) && covered.has(`${kind} status`), kind).toBe(true);
      expect(sorted(Object.keys(storageRoot(crd).properties ?? {}))).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    }
  });

  it('spells enums as the schema does', () => {
    const enumAt = (crd: CustomResourceDefinition, path: string): readonly unknown[] => at(storageRoot(crd), path).enum ?? [];
    expect(enumAt(CS, 'spec.grpcPodConfig.securityContextConfig')).toEqual([api.SecurityConfigLegacy, api.SecurityConfigRestricted]);
    expect(enumAt(OG, 'spec.upgradeStrategy')).toEqual([api.UpgradeStrategyDefault, api.UpgradeStrategyUnsafeFailForward]);
    expect(enumAt(CSV, 'spec.webhookdefinitions[].type')).toEqual(['ValidatingAdmissionWebhook', 'MutatingAdmissionWebhook', 'ConversionWebhook']);
    expect(at(storageRoot(OG), 'spec.upgradeStrategy').default).toBe(api.UpgradeStrategyDefault);
  });

  it('uses upstream’s words', () => {
    expect([api.SourceTypeInternal, api.SourceTypeConfigmap, api.SourceTypeGrpc]).toEqual(['internal', 'configmap', 'grpc']);
    expect([api.ConnectionStateIdle, api.ConnectionStateConnecting, api.ConnectionStateReady, api.ConnectionStateTransientFailure, api.ConnectionStateShutdown])
      .toEqual(['IDLE', 'CONNECTING', 'READY', 'TRANSIENT_FAILURE', 'SHUTDOWN']);
    expect([api.CatalogSourceSpecInvalidError, api.CatalogSourceConfigMapError, api.CatalogSourceRegistryServerError, api.CatalogSourceIntervalInvalidError])
      .toEqual(['SpecInvalidError', 'ConfigMapError', 'RegistryServerError', 'InvalidIntervalError']);
    expect(api.DefaultRegistryPollDurationMs).toBe(15 * 60 * 1000);
    expect([api.SubscriptionStateNone, api.SubscriptionStateFailed, api.SubscriptionStateUpgradeAvailable, api.SubscriptionStateUpgradePending, api.SubscriptionStateAtLatest])
      .toEqual(['', 'UpgradeFailed', 'UpgradeAvailable', 'UpgradePending', 'AtLatestKnown']);
    expect([api.InstallPlanPhaseNone, api.InstallPlanPhasePlanning, api.InstallPlanPhaseRequiresApproval, api.InstallPlanPhaseInstalling, api.InstallPlanPhaseComplete, api.InstallPlanPhaseFailed])
      .toEqual(['', 'Planning', 'RequiresApproval', 'Installing', 'Complete', 'Failed']);
    expect(api.StepStatusWaitingForAPI).toBe('WaitingForApi');
    expect(api.InstallPlanReasonDependencyConflict).toBe('DependenciesConflict');
    expect(api.CSVReasons.RequirementsMet).toBe('AllRequirementsMet');
    expect(api.CSVReasons.WaitingForCleanupToComplete).toBe('WaitingOnCleanup');
    expect(api.MultipleOperatorGroupCondition).toBe('MultipleOperatorGroup');
    expect(api.GeneratedByAnnotation).toBe('olm.generated-by');
  });
});
