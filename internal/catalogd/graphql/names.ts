// How catalog names become GraphQL names, with upstream's conventions (catalogd's GraphQL
// README, "Field Naming Conventions"):
//
//   JSON key      → field name   camelCase of the alphanumeric words: `default_channel` → `defaultChannel`,
//                                `UPPERCASE` → `uppercase`, `` → `value`, `123x` → `field_123x`
//   schema / key  → type name    PascalCase of the words, leading digits dropped: `olm.bundle` → `OlmBundle`,
//                                `relatedImages` → `Relatedimages`, `` → `Unknown`
//   schema        → query field  alphanumerics, lower-cased, plus `s`: `olm.bundle` → `olmbundles`

const NON_WORD = /[^A-Za-z0-9_]+/g;
const NON_ALNUM = /[^A-Za-z0-9]/g;
const LETTER_FIRST = /^[A-Za-z]/;

const capitalized = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();

/** The GraphQL field name of a JSON key. */
export function fieldName(key: string): string {
  if (key === '') return 'value';
  const words = key.replace(NON_WORD, '_').split('_').filter((w) => w !== '');
  let out = '';
  words.forEach((w, i) => {
    if (i > 0) out += capitalized(w);
    else if (w.toUpperCase() === w) out = w.toLowerCase(); // an all-caps first word is lower-cased whole
    else out = w.charAt(0).toLowerCase() + w.slice(1);
  });
  return LETTER_FIRST.test(out) ? out : `field_${out}`;
}

/** A GraphQL type name from a schema name (or a schema's type name plus a field name, for nested types). */
export function typeName(name: string): string {
  const words = name.replace(NON_ALNUM, '_').replace(/^[0-9]+/, '').split('_');
  const out = words.map((w) => (w === '' ? '' : capitalized(w))).join('');
  return out === '' ? 'Unknown' : out;
}

/** The root query field that lists a schema's blobs. */
export function queryFieldName(schema: string): string {
  return schema.replace(NON_ALNUM, '').toLowerCase() + 's';
}

/** Field names already computed: a catalog repeats the same few keys in every blob. */
export class FieldNames {
  private readonly known = new Map<string, string>();

  of(key: string): string {
    let name = this.known.get(key);
    if (name === undefined) {
      name = fieldName(key);
      if (this.known.size < 100_000) this.known.set(key, name);
    }
    return name;
  }
}
