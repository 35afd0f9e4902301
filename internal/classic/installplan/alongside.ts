// "Installed alongside" annotations on CRDs (upstream's internal/alongside): one annotation per CSV a CRD
// was installed with, key `operatorframework.io/installed-alongside-<fnv64a("<ns>/<name>") in hex>`,
// value `<ns>/<name>`. Writing them replaces every annotation of that prefix.
import { fnv64a } from '../../shared/toolkit/index.ts';

export const ALONGSIDE_ANNOTATION_PREFIX = 'operatorframework.io/installed-alongside-';

export interface NamespacedName {
  readonly namespace: string;
  readonly name: string;
}

export const alongsideKey = (nn: NamespacedName): string => `${ALONGSIDE_ANNOTATION_PREFIX}${fnv64a(`${nn.namespace}/${nn.name}`).toString(16)}`;

/** Every reference an object's alongside annotations hold (values that are not `<ns>/<name>` are skipped). */
export function alongsideFromAnnotations(annotations: Readonly<Record<string, string>> | undefined): NamespacedName[] {
  return Object.entries(annotations ?? {}).flatMap(([k, v]) => {
    const [namespace, name, ...rest] = v.split('/');
    return k.startsWith(ALONGSIDE_ANNOTATION_PREFIX) && name !== undefined && rest.length === 0 ? [{ namespace: namespace!, name }] : [];
  });
}

/** `annotations` without the alongside ones, plus one per reference (undefined when nothing is left). */
export function alongsideToAnnotations(annotations: Readonly<Record<string, string>> | undefined, refs: readonly NamespacedName[]): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(annotations ?? {})) if (!k.startsWith(ALONGSIDE_ANNOTATION_PREFIX)) out[k] = v;
  for (const nn of refs) out[alongsideKey(nn)] = `${nn.namespace}/${nn.name}`;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** What a lookup of a referenced CSV found: gone, a copied CSV, present, or an error other than NotFound. */
export type CsvPresence = 'missing' | 'copied' | 'present' | 'unknown';

/**
 * The references to write on a CRD installed for CSV `name` in `namespace` (setInstalledAlongsideAnnotation):
 * those of `sources` (the new manifest, and on an update the CRD in the cluster) whose CSV still exists and is not
 * a copy — kept too when the lookup failed, to try again next time — other than this CSV, then this CSV.
 */
export async function installedAlongside(
  namespace: string,
  name: string,
  sources: readonly (Readonly<Record<string, string>> | undefined)[],
  lookup: (nn: NamespacedName) => Promise<CsvPresence>,
): Promise<NamespacedName[]> {
  const refs: NamespacedName[] = [];
  for (const annotations of sources) {
    for (const nn of alongsideFromAnnotations(annotations)) {
      if (nn.namespace === namespace && nn.name === name) continue;
      const presence = await lookup(nn);
      if (presence === 'missing' || presence === 'copied') continue;
      refs.push(nn);
    }
  }
  if (namespace && name) refs.push({ namespace, name });
  return refs;
}
