// The CustomResourceDefinition step (upstream's only "stepper", step.go NewCRDV1Step): always run with the
// catalog operator's own identity, never the attenuated service account. Unknown/NotPresent: create it
// (label olm.managed, installed-alongside annotations) → WaitingForApi; when it exists, update it in place
// after two checks — every existing CR of a version that stays served must pass the new schema, and no
// version in status.storedVersions may disappear — → Present. WaitingForApi: Created once Established and
// NamesAccepted (else, as upstream, Unknown: the next pass updates it and reports Present).
import type { KubeObject } from '../../../api/meta/v1.ts';
import {
  StepStatusCreated,
  StepStatusNotPresent,
  StepStatusPresent,
  StepStatusUnknown,
  StepStatusWaitingForAPI,
  type Step,
  type StepStatus,
} from '../../../api/operators/index.ts';
import { goQuote } from '../../shared/gocompat/index.ts';
import { isAlreadyExists, type KubeClient } from '../../shared/kube/index.ts';
import { removedStoredVersions } from '../../shared/registryv1/index.ts';
import { aggregateMessages, errorMessage, sleep, type Logger } from '../../shared/toolkit/index.ts';
import { installedAlongside, alongsideToAnnotations, type CsvPresence, type NamespacedName } from './alongside.ts';
import { validateCustomResource, type JsonSchemaProps } from './crschema.ts';
import { gvkString, isNotFoundError, opaque, reasonInChain, wrap, wrapped } from './errors.ts';
import { decodeManifest } from './manifest.ts';

export const OLM_MANAGED_LABEL = 'olm.managed';

interface CrdVersion {
  name: string;
  served?: boolean;
  storage?: boolean;
  schema?: { openAPIV3Schema?: JsonSchemaProps };
  [key: string]: unknown;
}

export interface Crd extends KubeObject {
  spec: {
    group?: string;
    names?: { kind?: string; plural?: string };
    version?: string;
    versions?: CrdVersion[];
    conversion?: { strategy?: string };
    [key: string]: unknown;
  };
  status?: { conditions?: { type: string; status: string }[]; storedVersions?: string[] };
}

export interface CrdStepDeps {
  /** The catalog operator's own client (upstream builds the CRD stepper on it, not on the attenuated one). */
  readonly client: KubeClient;
  /** The InstallPlan's namespace. */
  readonly namespace: string;
  /** Whether a CSV an installed-alongside annotation names still exists (and is not a copy). */
  readonly csvPresence: (nn: NamespacedName) => Promise<CsvPresence>;
  /** A Warning event on the InstallPlan. */
  readonly warn: (reason: string, message: string) => void;
  readonly logger: Logger;
  readonly signal?: AbortSignal;
}

/** `CRD APIVersion from manifest not supported: <v>` unless the manifest is apiextensions v1 or v1beta1 (crdlib.Version). */
export function crdManifestVersion(manifest: string): 'v1' | 'v1beta1' {
  const obj = decodeManifest(manifest);
  const apiVersion = typeof obj['apiVersion'] === 'string' ? obj['apiVersion'] : '';
  const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
  if (version !== 'v1' && version !== 'v1beta1') throw new Error(`CRD APIVersion from manifest not supported: ${version}`);
  return version;
}

const RETRY_ON_CONFLICT_STEPS = 5;

/** What the step is now, or throws the step's error (upstream returns the status and the error together). */
export async function crdStep(step: Step, manifest: string, deps: CrdStepDeps): Promise<StepStatus> {
  const version = crdManifestVersion(manifest);
  const apiVersion = `apiextensions.k8s.io/${version}`;
  const { client, signal } = deps;
  switch (step.status) {
    case StepStatusPresent:
    case StepStatusCreated:
      return step.status;
    case StepStatusWaitingForAPI: {
      let crd: Crd;
      try {
        crd = await client.get<Crd>({ apiVersion, kind: 'CustomResourceDefinition', name: step.resource.name }, { signal });
      } catch (err) {
        if (isNotFoundError(err)) return StepStatusNotPresent;
        // Upstream names the CRD from the empty object the failed Get returned.
        throw version === 'v1' ? wrap('error finding the  CRD', err) : wrap('error finding the "" CRD', err);
      }
      const isTrue = (type: string): boolean => !!crd.status?.conditions?.some((c) => c.type === type && c.status === 'True');
      return isTrue('Established') && isTrue('NamesAccepted') ? StepStatusCreated : StepStatusUnknown;
    }
    case StepStatusUnknown:
    case StepStatusNotPresent:
      return createOrUpdate(step, manifest, apiVersion, version, deps);
    default:
      return StepStatusUnknown;
  }
}

async function createOrUpdate(step: Step, manifest: string, apiVersion: string, version: string, deps: CrdStepDeps): Promise<StepStatus> {
  const { client, signal } = deps;
  let crd: Crd;
  try {
    crd = decodeManifest(manifest) as Crd;
    crd.spec ??= {};
  } catch (err) {
    throw opaque(`${version} crd unmarshaling failed: ${errorMessage(err)}`, err);
  }
  crd.apiVersion = apiVersion;
  crd.kind = 'CustomResourceDefinition';
  crd.metadata ??= {};
  const alongside = (sources: readonly KubeObject[]): Promise<NamespacedName[]> =>
    installedAlongside(
      deps.namespace,
      step.resolving,
      sources.map((s) => s.metadata.annotations),
      deps.csvPresence,
    );
  setAnnotations(crd, await alongside([crd]));
  crd.metadata.labels = { ...crd.metadata.labels, [OLM_MANAGED_LABEL]: 'true' };

  try {
    await client.create(crd, { signal });
    return StepStatusWaitingForAPI;
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }

  for (let attempt = 1; ; attempt++) {
    try {
      await updateExisting(step, crd, apiVersion, deps, alongside);
      return StepStatusPresent;
    } catch (err) {
      if (reasonInChain(err) !== 'Conflict' || attempt >= RETRY_ON_CONFLICT_STEPS) throw err;
      await sleep(10);
    }
  }
}

async function updateExisting(
  step: Step,
  crd: Crd,
  apiVersion: string,
  deps: CrdStepDeps,
  alongside: (sources: readonly KubeObject[]) => Promise<NamespacedName[]>,
): Promise<void> {
  const { client, signal } = deps;
  const name = step.resource.name;
  // Upstream ignores a failed Get here and goes on with an empty object (the update then fails).
  const current = await client
    .get<Crd>({ apiVersion, kind: 'CustomResourceDefinition', name: crd.metadata.name ?? '' }, { signal })
    .catch((): Crd => ({ metadata: {}, spec: {} }));
  if (current.metadata.resourceVersion) crd.metadata.resourceVersion = current.metadata.resourceVersion;
  else delete crd.metadata.resourceVersion;

  try {
    await validateExistingCrs(kubeCrLister(client, signal), current, crd);
  } catch (err) {
    if (crd.spec.conversion?.strategy !== 'Webhook' || !(err instanceof CrValidationError)) {
      throw wrap(`error validating existing CRs against new CRD's schema for ${goQuote(name)}`, err);
    }
    // A webhook conversion may turn the existing CRs into valid ones: warn and go on, as upstream.
    const warning =
      "Validation of existing CRs against the new CRD's schema failed, but a webhook conversion strategy was specified in the new CRD.\n" +
      'The new webhook will only start after the bundle is upgraded, so we must assume that it will successfully convert existing CRs to a format that would have passed validation.\n\n' +
      `CRD: ${goQuote(name)}\nValidation Error: ${errorMessage(err)}\n`;
    deps.logger.warn(warning);
    deps.warn('CRDValidation', warning);
  }

  const removed = removedStoredVersions(current, crd);
  if (removed.length > 0) {
    const why = `new CRD removes version ${removed[0]} that is listed as a stored version on the existing CRD`;
    deps.logger.error(`risk of data loss updating ${goQuote(name)}: ${why}`);
    throw new Error(`risk of data loss updating ${goQuote(name)}: ${why}`);
  }

  setAnnotations(crd, await alongside([crd, current]));
  await wrapped(`error updating CRD ${goQuote(name)}`, () => client.update(crd, { signal }));
}

function setAnnotations(obj: KubeObject, refs: readonly NamespacedName[]): void {
  const annotations = alongsideToAnnotations(obj.metadata.annotations, refs);
  if (annotations) obj.metadata.annotations = annotations;
  else delete obj.metadata.annotations;
}

/** An existing CR fails the new schema (upstream's validationError, which a webhook conversion may excuse). */
export class CrValidationError extends Error {
  override readonly name = 'CrValidationError';
}

/** The CRs of one version of the CRD's group and kind, as the API server lists them. */
export type CrLister = (group: string, version: string, kind: string) => Promise<readonly KubeObject[]>;

/**
 * The schemas existing CRs must pass: for each version the old CRD serves and the new one still serves, the new
 * version's schema (validateV1CRDCompatibility). A v1beta1 CRD's top-level `version` and `validation` count as
 * upstream's validateV1Beta1CRDCompatibility reads them: a top-level validation is checked against the first such
 * version only.
 */
export function schemasToCheck(oldCrd: Crd, newCrd: Crd): Map<string, JsonSchemaProps | undefined> {
  const oldServed = new Set<string>();
  if ((oldCrd.spec.versions ?? []).length === 0 && typeof oldCrd.spec.version === 'string') oldServed.add(oldCrd.spec.version);
  for (const v of oldCrd.spec.versions ?? []) if (v.served) oldServed.add(v.name);
  const topLevel = (newCrd.spec['validation'] as { openAPIV3Schema?: JsonSchemaProps } | undefined)?.openAPIV3Schema;
  const out = new Map<string, JsonSchemaProps | undefined>();
  if ((newCrd.spec.versions ?? []).length === 0 && typeof newCrd.spec.version === 'string' && oldServed.has(newCrd.spec.version)) {
    out.set(newCrd.spec.version, topLevel);
  }
  for (const v of newCrd.spec.versions ?? []) {
    if (!oldServed.has(v.name) || !v.served) continue;
    if (newCrd.spec['validation'] !== undefined) return new Map([[v.name, topLevel]]);
    if (!out.has(v.name)) out.set(v.name, v.schema?.openAPIV3Schema);
  }
  return out;
}

/**
 * Every CR of each version in {@link schemasToCheck}, validated against that version's new schema
 * (validateExistingCRs). The first invalid CR stops it with a CrValidationError:
 * `error validating <group>/<version>, Kind=<Kind> "<ns>/<name>": updated validation is too restrictive: <errors>`.
 */
export async function validateExistingCrs(list: CrLister, oldCrd: Crd, newCrd: Crd): Promise<void> {
  const group = newCrd.spec.group ?? '';
  const kind = newCrd.spec.names?.kind ?? '';
  for (const [version, schema] of schemasToCheck(oldCrd, newCrd)) {
    for (const cr of await list(group, version, kind)) {
      const problems = validateCustomResource(schema, cr, { root: '[]' });
      if (problems.length === 0) continue;
      const apiVersion = cr.apiVersion ?? '';
      const [g, ver] = apiVersion.includes('/') ? [apiVersion.slice(0, apiVersion.indexOf('/')), apiVersion.slice(apiVersion.indexOf('/') + 1)] : ['', apiVersion];
      const at = cr.metadata.namespace ? `${cr.metadata.namespace}/${cr.metadata.name ?? ''}` : (cr.metadata.name ?? '');
      throw new CrValidationError(`error validating ${gvkString(g, ver, cr.kind ?? '')} ${goQuote(at)}: updated validation is too restrictive: ${aggregateMessages(problems)}`);
    }
  }
}

/** Lists CRs through the API server, all pages. */
export const kubeCrLister =
  (client: KubeClient, signal?: AbortSignal): CrLister =>
  async (group, version, kind) =>
    (await client.listAll({ apiVersion: `${group}/${version}`, kind }, { ...(signal && { signal }) })).items;
