// A step's manifest: the object as JSON text (YAML accepted, as upstream's YAMLOrJSON decoder does).
// Upstream also lets a manifest be a reference to a bundle unpacked into a ConfigMap by an unpack Job
// (`{"kind":"ConfigMap","name","namespace","catalogSourceName","catalogSourceNamespace",…}`); this OLM unpacks
// bundles in process and writes every manifest inline, so such a reference is refused with a clear error.
import yaml from 'js-yaml';
import type { Step } from '../../../api/operators/index.ts';
import { GoJSONSyntaxError, goJSONParse } from '../../shared/gocompat/index.ts';
import { errorMessage, isObject, oneLine, tryOr } from '../../shared/toolkit/index.ts';

/**
 * The manifest as an object. A document that starts with `{` is JSON, refused with Go's json.Unmarshal texts (what
 * upstream's ExecutePlan runs on the built-in kinds' manifests, e.g. `invalid character 'n' looking for beginning of
 * object key string`); anything else is read as YAML (upstream's YAMLOrJSONDecoder, for CRDs and other kinds), refused
 * as `error converting YAML to JSON: yaml: line N: <reason>`. Every error is one line: it ends in a plan's status.
 */
export function decodeManifest(manifest: string): Record<string, unknown> {
  let parsed: unknown;
  if (/^[ \t\r\n]*\{/.test(manifest)) {
    try {
      parsed = JSON.parse(manifest);
    } catch (err) {
      throw new Error(goJSONError(manifest) ?? oneLine(errorMessage(err)), { cause: err });
    }
  } else {
    try {
      parsed = yaml.load(manifest);
    } catch (err) {
      const e = err as { reason?: string; mark?: { line?: number } };
      const where = e.mark?.line !== undefined ? `line ${e.mark.line + 1}: ` : '';
      throw new Error(`error converting YAML to JSON: yaml: ${where}${oneLine(e.reason ?? errorMessage(err))}`, { cause: err });
    }
  }
  if (!isObject(parsed)) throw new Error(`manifest is not an object: ${oneLine(manifest.slice(0, 80))}`);
  return parsed;
}

/** Go's json.Unmarshal error for a document JSON.parse refused (undefined when Go's scanner would accept it). */
function goJSONError(text: string): string | undefined {
  try {
    goJSONParse(text);
  } catch (err) {
    return err instanceof GoJSONSyntaxError ? err.message : undefined;
  }
  return undefined;
}

/** upstream's refForStep: the manifest names an unpacked-bundle ConfigMap instead of holding the object. */
export function isUnpackedBundleReference(step: Step): boolean {
  const ref = tryOr(() => JSON.parse(step.resource.manifest ?? '') as unknown, undefined);
  if (!isObject(ref)) return false;
  const str = (k: string): string => (typeof ref[k] === 'string' ? (ref[k] as string) : '');
  return str('kind') === 'ConfigMap' && !!str('name') && !!str('namespace') && !!str('catalogSourceName') && !!str('catalogSourceNamespace');
}

/** The manifest to apply for a step (ManifestForStep). */
export function manifestForStep(step: Step): string {
  if (isUnpackedBundleReference(step)) {
    const ref = JSON.parse(step.resource.manifest ?? '{}') as Record<string, string>;
    throw new Error(
      `step ${step.resource.name} refers to an unpacked bundle ConfigMap ${ref['namespace']}/${ref['name']}: this OLM unpacks bundles in process and expects every step's manifest inline`,
    );
  }
  return step.resource.manifest ?? '';
}
