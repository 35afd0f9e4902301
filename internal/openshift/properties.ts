// Bundle properties as the two gating controllers read them from the cluster, with encoding/json's errors:
//   classic — a CSV's `operatorframework.io/properties` annotation, `{"properties":[{type,value}…]}` as OLM
//             projects a bundle's properties (projection.PropertyListFromPropertiesAnnotation);
//   v1      — a revision's `olm.properties` annotation, a bare JSON array `[{type,value}…]` (the bundle CSV's
//             `olm.properties` after metadata/properties.yaml is merged in; cluster-olm-operator's
//             propertyListFromPropertiesAnnotation).
// Values stay raw JSON text, as json.RawMessage keeps them (`4.80` is not `4.8`).
import { GoJSONSyntaxError, goJSONField, goJSONParse, type GoJSONValue } from '../shared/gocompat/index.ts';
import { withErrorPrefix } from '../shared/toolkit/index.ts';
import type { RawProperty } from './version.ts';

/** The CSV annotation classic OLM writes the bundle's properties into. */
export const CSV_PROPERTIES_ANNOTATION = 'operatorframework.io/properties';

interface GoTarget {
  /** Where a type error is reported: `Go value of type <t>` or `Go struct field <s>.<path> of type <t>`. */
  readonly struct?: string;
  readonly path?: string;
  readonly type: string;
}

const typeError = (v: GoJSONValue, t: GoTarget): string =>
  `json: cannot unmarshal ${v.kind} into Go ${t.struct === undefined ? 'value' : `struct field ${t.struct}.${t.path}`} of type ${t.type}`;

/** A `[]property` in Go: each element an object of `type` (string) and `value` (raw); nulls leave zero values. */
function decodeProperties(list: GoJSONValue, listTarget: GoTarget, elem: GoTarget, typeField: GoTarget): RawProperty[] {
  if (list.kind === 'null') return [];
  if (list.kind !== 'array') throw new Error(typeError(list, listTarget));
  const out: RawProperty[] = [];
  let first: string | undefined;
  for (const item of list.items) {
    if (item.kind === 'null') {
      out.push({ type: '', value: '' });
      continue;
    }
    if (item.kind !== 'object') {
      first ??= typeError(item, elem);
      continue;
    }
    const type = goJSONField(item, 'type');
    const value = goJSONField(item, 'value');
    if (type !== undefined && type.kind !== 'string' && type.kind !== 'null') first ??= typeError(type, typeField);
    out.push({ type: type?.kind === 'string' ? type.value : '', value: value?.raw ?? '' });
  }
  // encoding/json decodes everything it can and then reports the first type error.
  if (first !== undefined) throw new Error(first);
  return out;
}

function parse(raw: string): GoJSONValue {
  try {
    return goJSONParse(raw);
  } catch (err) {
    if (err instanceof GoJSONSyntaxError) throw new Error(err.message, { cause: err });
    throw err;
  }
}

/** Classic: the properties of a CSV's `operatorframework.io/properties` annotation (upstream's error texts). */
export function classicPropertiesFromAnnotation(annotation: string): RawProperty[] {
  return withErrorPrefix('failed to unmarshal properties annotation', () => {
    const doc = parse(annotation);
    if (doc.kind === 'null') return [];
    if (doc.kind !== 'object') throw new Error(typeError(doc, { type: 'projection.propertiesAnnotation' }));
    const list = goJSONField(doc, 'properties');
    if (list === undefined) return [];
    const field = (path: string, type: string): GoTarget => ({ struct: 'propertiesAnnotation', path, type });
    return decodeProperties(list, field('properties', '[]projection.property'), field('properties', 'projection.property'), field('properties.type', 'string'));
  });
}

/** v1: the properties of a revision's `olm.properties` annotation, a bare JSON array (upstream's error texts). */
export function v1PropertiesFromAnnotation(annotation: string): RawProperty[] {
  return withErrorPrefix('failed to unmarshal properties annotation', () =>
    decodeProperties(
      parse(annotation),
      { type: '[]property.Property' },
      { type: 'property.Property' },
      { struct: 'Property', path: 'type', type: 'string' },
    ),
  );
}
