// A step's manifest: the object as JSON text (YAML accepted, as upstream's YAMLOrJSON decoder does).
// Upstream also lets a manifest be a reference to a bundle unpacked into a ConfigMap by an unpack Job
// (`{"kind":"ConfigMap","name","namespace","catalogSourceName","catalogSourceNamespace",…}`); this OLM unpacks
// bundles in process and writes every manifest inline, so such a reference is refused with a clear error.
import yaml from 'js-yaml';
import type { Step } from '../../../api/operators/index.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The manifest as an object; throws when it is neither JSON nor YAML of one object. */
export function decodeManifest(manifest: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(manifest);
  } catch {
    parsed = yaml.load(manifest);
  }
  if (!isObject(parsed)) throw new Error(`manifest is not an object: ${manifest.slice(0, 80)}`);
  return parsed;
}

/** upstream's refForStep: the manifest names an unpacked-bundle ConfigMap instead of holding the object. */
export function isUnpackedBundleReference(step: Step): boolean {
  let ref: unknown;
  try {
    ref = JSON.parse(step.resource.manifest ?? '');
  } catch {
    return false;
  }
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
