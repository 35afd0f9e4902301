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
import { removedStoredVersions } from '../../operator-controller/preflights/index.ts';
import { isAlreadyExists, isNotFound, type KubeClient, type Logger } from '../../shared/kube/index.ts';
import { installedAlongside, alongsideToAnnotations, type CsvPresence, type NamespacedName } from './alongside.ts';
import { aggregate, validateCustomResource, type JsonSchemaProps } from './crschema.ts';
import { errorText, gvkString, opaque, reasonInChain, wrap } from './errors.ts';
import { decodeManifest } from './manifest.ts';

export const OLM_MANAGED_LABEL = 'olm.managed';

interface CrdVersion {
  name: string;
  served?: boolean;
  storage?: boolean;
  schema?: { openAPIV3Schema?: JsonSchemaProps };
  [key: string]: unknown;
}

interface Crd extends KubeObject {
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
      return StepStatusPresent;
    case StepStatusCreated:
      return StepStatusCreated;
    case StepStatusWaitingForAPI: {
      let crd: Crd;
      try {
        crd = await client.get<Crd>({ apiVersion, kind: 'CustomResourceDefinition', name: step.resource.name }, { signal });
      } catch (err) {
        if (isNotFound(err)) return StepStatusNotPresent;
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
    throw opaque(`${version} crd unmarshaling failed: ${errorText(err)}`, err);
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
      await new Promise((r) => setTimeout(r, 10));
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
    await validateExistingCrs(client, current, crd, signal);
  } catch (err) {
    if (crd.spec.conversion?.strategy !== 'Webhook' || !(err instanceof CrValidationError)) {
      throw wrap(`error validating existing CRs against new CRD's schema for ${JSON.stringify(name)}`, err);
    }
    // A webhook conversion may turn the existing CRs into valid ones: warn and go on, as upstream.
    const warning =
      "Validation of existing CRs against the new CRD's schema failed, but a webhook conversion strategy was specified in the new CRD.\n" +
      'The new webhook will only start after the bundle is upgraded, so we must assume that it will successfully convert existing CRs to a format that would have passed validation.\n\n' +
      `CRD: ${JSON.stringify(name)}\nValidation Error: ${errorText(err)}\n`;
    deps.logger.warn(warning);
    deps.warn('CRDValidation', warning);
  }

  const removed = removedStoredVersions(current, crd);
  if (removed.length > 0) {
    const why = `new CRD removes version ${removed[0]} that is listed as a stored version on the existing CRD`;
    deps.logger.error(`risk of data loss updating ${JSON.stringify(name)}: ${why}`);
    throw new Error(`risk of data loss updating ${JSON.stringify(name)}: ${why}`);
  }

  setAnnotations(crd, await alongside([crd, current]));
  try {
    await client.update(crd, { signal });
  } catch (err) {
    throw wrap(`error updating CRD ${JSON.stringify(name)}`, err);
  }
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

/**
 * Every CR of each version the old CRD serves and the new one still serves, listed from the cluster and validated
 * against the new version's schema (validateV1CRDCompatibility / validateExistingCRs). The first invalid CR stops
 * it: `error validating <group>/<version>, Kind=<Kind> "<ns>/<name>": updated validation is too restrictive: <errors>`.
 */
export async function validateExistingCrs(client: KubeClient, oldCrd: Crd, newCrd: Crd, signal?: AbortSignal): Promise<void> {
  const oldServed = new Set((oldCrd.spec.versions ?? []).filter((v) => v.served).map((v) => v.name));
  const group = newCrd.spec.group ?? '';
  const kind = newCrd.spec.names?.kind ?? '';
  const checked = new Set<string>();
  for (const v of newCrd.spec.versions ?? []) {
    if (!oldServed.has(v.name) || !v.served || checked.has(v.name)) continue;
    checked.add(v.name);
    const schema = v.schema?.openAPIV3Schema;
    const list = await client.listAll({ apiVersion: `${group}/${v.name}`, kind }, { signal });
    for (const cr of list.items) {
      const problems = validateCustomResource(schema, cr, { root: '[]' });
      if (problems.length === 0) continue;
      const [g, ver] = (cr.apiVersion ?? '').includes('/') ? (cr.apiVersion ?? '').split('/', 2) : ['', cr.apiVersion ?? ''];
      const at = cr.metadata.namespace ? `${cr.metadata.namespace}/${cr.metadata.name ?? ''}` : (cr.metadata.name ?? '');
      throw new CrValidationError(
        `error validating ${gvkString(g ?? '', ver ?? '', cr.kind ?? '')} ${JSON.stringify(at)}: updated validation is too restrictive: ${aggregate(problems)}`,
      );
    }
  }
}
