// ExecutePlan: applies an Installing plan's steps in order, each step's new status written into the plan
// as it goes; the first error stops the pass (the phase machine retries or fails the plan). CRDs go through
// the CRD step with the controller's own identity; every other kind is written by the StepEnsurer with the
// attenuated service account's client when the plan has one. Kinds upstream does not support get
// `UnsupportedResource` and the plan is invalid. API warnings of a step become an `AppliedWithWarnings`
// Warning event on the plan (fieldPath `status.plan[i]`) and count in `installplan_warnings_total`.
import { OwnerKindLabel, OwnerLabel, OwnerNamespaceLabel } from '../../../api/operators/index.ts';
import type { KubeObject, OwnerReference } from '../../../api/meta/v1.ts';
import {
  ClusterServiceVersionKind,
  InstallPlanPhaseInstalling,
  StepStatusCreated,
  StepStatusNotPresent,
  StepStatusPresent,
  StepStatusUnknown,
  StepStatusUnsupportedResource,
  StepStatusWaitingForAPI,
  SubscriptionKind,
  V1alpha1,
  type ClusterServiceVersion,
  type InstallPlan,
  type ObjectReference,
  type Step,
  type StepResource,
  type StepStatus,
  isCopiedCSV,
} from '../../../api/operators/index.ts';
import { isNoKindMatch, isNotFound, nonBlockingOwnerReference, type EventRecorder, type KubeClient } from '../../shared/kube/index.ts';
import { errorMessage, type Logger } from '../../shared/toolkit/index.ts';
import { goQuote } from '../../shared/gocompat/index.ts';
import type { CsvPresence, NamespacedName } from './alongside.ts';
import { crdStep, OLM_MANAGED_LABEL } from './crd.ts';
import { stepEnsurer, type StepEnsurer } from './ensure.ts';
import { gvkNotFound, invalidInstallPlan, isNotFoundError, opaque, wrap, wrapped } from './errors.ts';
import { decodeManifest, manifestForStep } from './manifest.ts';
import { CustomResourceDefinitionKind } from './plan.ts';

const RBAC_V1 = 'rbac.authorization.k8s.io/v1';

/** The synthetic kind of a Secret that ships in a bundle (upstream's resolver.BundleSecretKind). */
export const BundleSecretKind = 'BundleSecret';
/** Annotation on a Subscription an InstallPlan created (a dependency): the plan's name. */
export const GENERATED_BY_ANNOTATION = 'olm.generated-by';

/** Kinds beyond the built-in ones that a plan may create (upstream's supportedresources.go). */
export const SUPPORTED_KINDS: ReadonlySet<string> = new Set([
  'PrometheusRule',
  'ServiceMonitor',
  'PodDisruptionBudget',
  'PriorityClass',
  'VerticalPodAutoscaler',
  'ConsoleYAMLSample',
  'ConsoleQuickStart',
  'ConsoleCLIDownload',
  'ConsoleLink',
  'ConsolePlugin',
  'NetworkPolicy',
]);

export interface ExecuteDeps {
  /** The controller's own client (reads CSVs, owner UIDs, discovery; the base of the step clients). */
  readonly client: KubeClient;
  /** upstream's operator namespace: `Secret` steps copy the pull secret of that name from it. */
  readonly operatorNamespace: string;
  readonly events: EventRecorder;
  /** +1 per step whose writes drew API warnings. */
  readonly onWarning: () => void;
  readonly logger: Logger;
  /** The client to apply steps with for the plan's attenuated service account (see attenuate.ts). */
  readonly attenuate: (base: KubeClient, ref: ObjectReference | undefined, signal?: AbortSignal) => Promise<KubeClient>;
  readonly signal?: AbortSignal;
}

interface Context {
  readonly plan: InstallPlan;
  readonly namespace: string;
  readonly initialCsvs: ReadonlySet<string>;
  readonly existingOwners: ReadonlyMap<string, readonly string[]>;
  readonly ensurer: StepEnsurer;
  readonly base: KubeClient;
  readonly deps: ExecuteDeps;
}

/** Applies `plan`'s steps, updating `plan.status.plan[i].status` in place; throws the first step's error. */
export async function executePlan(plan: InstallPlan, deps: ExecuteDeps): Promise<void> {
  if (plan.status?.phase !== InstallPlanPhaseInstalling) throw new Error('attempted to install a plan that wasn\'t in the installing phase');
  const namespace = plan.metadata.namespace ?? '';
  const { signal } = deps;
  const existingOwners = await existingApiOwners(deps.client, namespace, signal);

  const warnings: string[] = [];
  const base = deps.client.withWarningHandler((w) => {
    if (w.code === 299) warnings.push(w.text);
  });
  let scoped: KubeClient;
  try {
    scoped = await deps.attenuate(base, plan.status.attenuatedServiceAccountRef, signal);
  } catch (err) {
    // The controller logs the error it rethrows; this line says which plan, at info.
    deps.logger.info(`failed to get a client for plan execution: ${errorMessage(err)}`, { installPlan: `${namespace}/${plan.metadata.name ?? ''}` });
    throw err;
  }
  const ctx: Context = {
    plan,
    namespace,
    initialCsvs: new Set(plan.spec.clusterServiceVersionNames ?? []),
    existingOwners,
    ensurer: stepEnsurer(scoped, signal),
    base,
    deps,
  };

  const steps = plan.status.plan ?? [];
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    warnings.length = 0;
    try {
      await runStep(ctx, step);
    } catch (err) {
      reportWarnings(ctx, i, step, warnings);
      if (isNotFoundError(err)) {
        // An API the step needs may not be served at all: say so rather than "not found".
        const missing = await queryForGvk(deps.client, step.resource);
        if (missing) throw missing;
      }
      throw err;
    }
    reportWarnings(ctx, i, step, warnings);
  }
}

function reportWarnings(ctx: Context, i: number, step: Step, warnings: string[]): void {
  if (warnings.length === 0) return;
  const { kind, name } = step.resource;
  const text = warnings.join(', ');
  const message = step.resolving
    ? `${warnings.length} warning(s) generated during installation of operator ${goQuote(step.resolving)} (${kind} ${goQuote(name)}): ${text}`
    : `${warnings.length} warning(s) generated during operator installation (${kind} ${goQuote(name)}): ${text}`;
  ctx.deps.events.warning({ ...ctx.plan, apiVersion: V1alpha1, kind: 'InstallPlan' }, 'AppliedWithWarnings', message, { fieldPath: `status.plan[${i}]` });
  ctx.deps.onWarning();
  warnings.length = 0;
}

async function runStep(ctx: Context, step: Step): Promise<void> {
  const { deps, namespace } = ctx;
  if (step.resource.kind === CustomResourceDefinitionKind) {
    const manifest = manifestForStep(step);
    step.status = await crdStep(step, manifest, {
      client: ctx.base,
      namespace,
      csvPresence: (nn) => csvPresence(deps.client, nn, deps.signal),
      warn: (reason, message) => deps.events.warning({ ...ctx.plan, apiVersion: V1alpha1, kind: 'InstallPlan' }, reason, message),
      logger: deps.logger,
      ...(deps.signal && { signal: deps.signal }),
    });
    return;
  }

  switch (step.status) {
    case StepStatusPresent:
    case StepStatusCreated:
    case StepStatusWaitingForAPI:
      return;
    case StepStatusUnknown:
    case StepStatusNotPresent:
      break;
    default:
      throw invalidInstallPlan();
  }

  const manifest = manifestForStep(step);
  deps.logger.debug('execute resource', { kind: step.resource.kind, name: step.resource.name });
  // The step's object with the managed label, in the plan's namespace unless cluster-scoped.
  const parse = (apiVersion: string, kind: string, inPlanNamespace = true): KubeObject => {
    let obj: Record<string, unknown>;
    try {
      obj = decodeManifest(manifest);
    } catch (err) {
      throw wrap(`error parsing step manifest: ${step.resource.name}`, err);
    }
    const metadata = (obj['metadata'] ?? {}) as KubeObject['metadata'];
    return { ...obj, apiVersion, kind, metadata: { ...metadata, ...(inPlanNamespace && { namespace }), labels: { ...metadata.labels, [OLM_MANAGED_LABEL]: 'true' } } };
  };
  const ownerRefs = async (obj: KubeObject, what: string): Promise<void> => {
    const refs = await wrapped(`error generating ownerrefs for ${what}`, () => updatedOwnerReferences(deps.client, obj.metadata.ownerReferences ?? [], namespace, deps.signal));
    if (refs.length > 0) obj.metadata.ownerReferences = refs;
    else delete obj.metadata.ownerReferences;
  };
  // A namespaced object of the plan: the resolving CSV as a non-blocking owner (`withCsvOwner`), owner references
  // refreshed (`what` names the object in the error, as upstream).
  const namespaced = async (apiVersion: string, kind: string, what: string, withCsvOwner: boolean, ensure: (obj: KubeObject) => Promise<StepStatus>): Promise<void> => {
    const obj = parse(apiVersion, kind);
    if (withCsvOwner && step.resolving) addNonBlockingCsvOwner(obj, step.resolving);
    await ownerRefs(obj, `${what}${obj.metadata.name ?? ''}`);
    step.status = await ensure(obj);
  };

  switch (step.resource.kind) {
    case ClusterServiceVersionKind: {
      const csv = parse(V1alpha1, ClusterServiceVersionKind) as ClusterServiceVersion;
      const name = csv.metadata.name ?? '';
      if (!ctx.initialCsvs.has(name)) {
        let competing: boolean;
        try {
          competing = competingCrdOwnersExist(namespace, csv, ctx.existingOwners);
        } catch (err) {
          throw wrap(`error checking crd owners for: ${name}`, err);
        }
        if (competing) throw new Error(`pre-existing CRD owners found for owned CRD(s) of dependent CSV ${name}`);
      }
      step.status = await ctx.ensurer.clusterServiceVersion(csv);
      return;
    }
    case SubscriptionKind: {
      const sub = parse(V1alpha1, SubscriptionKind);
      sub.metadata.annotations = { ...sub.metadata.annotations, [GENERATED_BY_ANNOTATION]: ctx.plan.metadata.name ?? '' };
      step.status = await ctx.ensurer.subscription(sub);
      return;
    }
    case BundleSecretKind:
      return namespaced('v1', 'Secret', 'secret ', true, (o) => ctx.ensurer.bundleSecret(o));
    case 'Secret':
      step.status = await ctx.ensurer.secret(deps.operatorNamespace, namespace, step.resource.name);
      return;
    case 'ClusterRole':
    case 'ClusterRoleBinding': {
      const obj = parse(RBAC_V1, step.resource.kind, false);
      step.status = await ctx.ensurer.clusterRBAC(obj, step.resolving);
      return;
    }
    case 'Role':
      return namespaced(RBAC_V1, 'Role', 'role ', false, (o) => ctx.ensurer.role(o));
    case 'RoleBinding':
      return namespaced(RBAC_V1, 'RoleBinding', 'rolebinding ', false, (o) => ctx.ensurer.roleBinding(o));
    case 'ServiceAccount':
      return namespaced('v1', 'ServiceAccount', 'service account: ', false, (o) => ctx.ensurer.serviceAccount(o));
    case 'Service':
      return namespaced('v1', 'Service', 'service: ', true, (o) => ctx.ensurer.service(o));
    case 'ConfigMap':
      return namespaced('v1', 'ConfigMap', 'configmap: ', true, (o) => ctx.ensurer.configMap(o));
    default:
      await otherKind(ctx, step, manifest);
  }
}

/** A kind of upstream's supported list, written through the dynamic client (EnsureUnstructuredObject). */
async function otherKind(ctx: Context, step: Step, manifest: string): Promise<void> {
  const { deps, namespace } = ctx;
  if (!SUPPORTED_KINDS.has(step.resource.kind)) {
    step.status = StepStatusUnsupportedResource;
    throw invalidInstallPlan();
  }
  let obj: KubeObject;
  try {
    obj = decodeManifest(manifest) as KubeObject;
    obj.metadata ??= {};
  } catch (err) {
    throw wrap(`error decoding ${step.resource.name} object to an unstructured object`, err);
  }
  const apiVersion = obj.apiVersion ?? '';
  const kind = obj.kind ?? '';
  const namespaced = await apiResourceScope(deps.client, apiVersion, kind);
  if (step.resolving) {
    if (namespaced) {
      addNonBlockingCsvOwner(obj, step.resolving);
      const what = `unstructured object: ${obj.metadata.name ?? ''}`;
      obj.metadata.ownerReferences = await wrapped(`error generating ownerrefs for ${what}`, () => updatedOwnerReferences(deps.client, obj.metadata.ownerReferences ?? [], namespace, deps.signal));
    } else {
      obj.metadata.labels = {
        ...obj.metadata.labels,
        [OwnerLabel]: step.resolving,
        [OwnerNamespaceLabel]: namespace,
        [OwnerKindLabel]: ClusterServiceVersionKind,
      };
    }
  }
  obj.metadata.labels = { ...obj.metadata.labels, [OLM_MANAGED_LABEL]: 'true' };
  if (namespaced) obj.metadata.namespace = namespace;
  else delete obj.metadata.namespace;
  step.status = await ctx.ensurer.unstructured(obj);
}

/** Whether `apiVersion`/`kind` is namespaced (apiresourceFromGVK); a kind discovery lacks is upstream's GroupVersionKindNotFoundError. */
async function apiResourceScope(client: KubeClient, apiVersion: string, kind: string): Promise<boolean> {
  try {
    return (await client.mapping(apiVersion, kind)).namespaced;
  } catch (err) {
    if (!isNoKindMatch(err)) throw err;
    // A group-version the server does not serve is a 404 of discovery upstream (NotFound: the step's API is checked next).
    if ((await client.mapper.resources(apiVersion)) === undefined) throw err;
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
    throw opaque(`Unable to find GVK in discovery: ${group} ${version} ${kind}`, err);
  }
}

/** The step's group/version/kind is not served: upstream's gvkNotFoundError, else undefined (discoveryQuerier). */
export async function queryForGvk(client: KubeClient, r: StepResource): Promise<Error | undefined> {
  const apiVersion = r.group ? `${r.group}/${r.version}` : r.version;
  try {
    await client.mapping(apiVersion, r.kind);
    return undefined;
  } catch (err) {
    if (isNoKindMatch(err) || isNotFound(err)) return gvkNotFound(r.group, r.version, r.kind, r.name);
    return err instanceof Error ? err : new Error(String(err), { cause: err });
  }
}

/** A non-blocking, non-controller owner reference to the plan's CSV `name` (ownerutil.AddNonBlockingOwner); its uid is filled later. */
export function addNonBlockingCsvOwner(obj: KubeObject, name: string): void {
  const refs = obj.metadata.ownerReferences ?? [];
  if (refs.some((r) => r.kind === ClusterServiceVersionKind && r.name === name && (r.uid ?? '') === '')) return;
  obj.metadata.ownerReferences = [...refs, nonBlockingOwnerReference(V1alpha1, ClusterServiceVersionKind, { metadata: { name } })];
}

/** Every CSV owner reference gets the CSV's current uid (getUpdatedOwnerReferences); a missing CSV is an error. */
export async function updatedOwnerReferences(client: KubeClient, refs: readonly OwnerReference[], namespace: string, signal?: AbortSignal): Promise<OwnerReference[]> {
  const out: OwnerReference[] = [];
  for (const ref of refs) {
    if (ref.kind !== ClusterServiceVersionKind) {
      out.push(ref);
      continue;
    }
    const csv = await client.get({ apiVersion: V1alpha1, kind: ClusterServiceVersionKind, namespace, name: ref.name }, { signal });
    out.push({ ...ref, uid: csv.metadata.uid ?? '' });
  }
  return out;
}

/** CRD name (and APIService group) → the CSVs of the namespace that own it (getExistingAPIOwners). */
export async function existingApiOwners(client: KubeClient, namespace: string, signal?: AbortSignal): Promise<Map<string, string[]>> {
  const list = await client.list<ClusterServiceVersion>({ apiVersion: V1alpha1, kind: ClusterServiceVersionKind, namespace }, { signal });
  const owners = new Map<string, string[]>();
  const add = (key: string, csv: string): void => void owners.set(key, [...(owners.get(key) ?? []), csv]);
  for (const csv of list.items) {
    for (const crd of csv.spec?.customresourcedefinitions?.owned ?? []) add(crd.name, csv.metadata.name ?? '');
    for (const api of csv.spec?.apiservicedefinitions?.owned ?? []) add(api.group, csv.metadata.name ?? '');
  }
  return owners;
}

/** Another CSV of the namespace already owns one of this CSV's CRDs (competingCRDOwnersExist); several owners is an error. */
export function competingCrdOwnersExist(namespace: string, csv: ClusterServiceVersion, owners: ReadonlyMap<string, readonly string[]>): boolean {
  for (const crd of csv.spec?.customresourcedefinitions?.owned ?? []) {
    const found = owners.get(crd.name) ?? [];
    if (found.length === 1 && found[0] !== csv.metadata.name) return true;
    if (found.length > 1) throw new Error(`Existing CSVs [${found.join(' ')}] in namespace ${namespace} all claim to own CRD ${crd.name}`);
  }
  return false;
}

/** Where an installed-alongside reference's CSV stands (the CSV lister of setInstalledAlongsideAnnotation). */
async function csvPresence(client: KubeClient, nn: NamespacedName, signal?: AbortSignal): Promise<CsvPresence> {
  try {
    const csv = await client.get<ClusterServiceVersion>({ apiVersion: V1alpha1, kind: ClusterServiceVersionKind, namespace: nn.namespace, name: nn.name }, { signal });
    return isCopiedCSV(csv) ? 'copied' : 'present';
  } catch (err) {
    return isNotFound(err) ? 'missing' : 'unknown';
  }
}
