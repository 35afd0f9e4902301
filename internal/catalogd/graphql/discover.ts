// The shape of a catalog as upstream's GraphQL schema sees it, learnt from the blobs themselves:
// per schema (olm.package, olm.bundle, any custom one) how many blobs it has and which fields,
// with a GraphQL scalar type each, and for arrays of objects the fields of their elements.
//
// The rules (upstream's discovery, observed through its tests and docs):
// - A field's type comes from the first blob that has it: string → String, boolean → Boolean,
//   an integral number → Int, another number → Float, null, an object or anything else → String
//   (objects are answered as JSON text). Later blobs never retype a field.
// - An array is a list of its elements' type, judged from its first ten elements: the first
//   non-null one decides, mixed scalar kinds make it [String], an empty or all-null array is [String].
// - Elements that are objects (among those first ten) give the field a nested object type; the
//   nested fields of every blob are merged (the first seen wins), one level deep only: a nested
//   field that is itself an array of objects is a [String] of JSON texts.
// - Keys become field names with `fieldName`; two keys with the same field name share the field
//   (its type from the first), and both are looked up when answering.
//
// Only the shape is kept: nothing of a blob outlives its analysis.
import { open } from 'node:fs/promises';
import type { BlobIndexEntry } from '../../shared/fbc/index.ts';
import { isObject } from '../../shared/toolkit/index.ts';
import { FieldNames } from './names.ts';

export type Scalar = 'String' | 'Int' | 'Float' | 'Boolean';

export interface FieldShape {
  /** JSON keys that map to this field name, the first seen first. */
  readonly keys: string[];
  readonly scalar: Scalar;
  readonly list: boolean;
}

export interface TopFieldShape extends FieldShape {
  /** For arrays of objects: the elements' fields by field name (never empty when present). */
  nested?: Map<string, FieldShape>;
}

export interface SchemaShape {
  readonly name: string;
  /** Blobs of this schema. */
  objects: number;
  /** By field name, in discovery order. */
  readonly fields: Map<string, TopFieldShape>;
}

export interface CatalogShape {
  /** By schema name, in discovery order. */
  readonly schemas: Map<string, SchemaShape>;
}

/** How many elements of an array are looked at to type it. */
export const ARRAY_SAMPLE = 10;

type Kind = 'string' | 'number' | 'boolean' | 'object' | 'array';

const kindOf = (v: unknown): Kind | undefined => {
  if (v === null || v === undefined) return undefined;
  if (Array.isArray(v)) return 'array';
  const t = typeof v;
  return t === 'string' || t === 'number' || t === 'boolean' || t === 'object' ? t : undefined;
};

/** Integral as Go's `f == float64(int64(f))` sees it (int64 range). */
const isIntegral = (n: number): boolean => Number.isInteger(n) && Math.abs(n) < 2 ** 63;

function scalarOf(kind: Kind | undefined, sample: unknown): Scalar {
  switch (kind) {
    case 'boolean':
      return 'Boolean';
    case 'number':
      return isIntegral(sample as number) ? 'Int' : 'Float';
    default:
      return 'String';
  }
}

/** Builds a CatalogShape one blob at a time. */
export class ShapeBuilder {
  private readonly shape: CatalogShape = { schemas: new Map() };
  private readonly names = new FieldNames();

  /** Adds one blob of `schema` (blobs without a schema are not part of any type). */
  add(schema: string, blob: unknown): void {
    if (schema === '' || !isObject(blob)) return;
    let info = this.shape.schemas.get(schema);
    if (!info) {
      info = { name: schema, objects: 0, fields: new Map() };
      this.shape.schemas.set(schema, info);
    }
    info.objects++;
    for (const key in blob) {
      const name = this.names.of(key);
      const value = blob[key];
      const existing = info.fields.get(name);
      if (existing) {
        if (!existing.keys.includes(key)) existing.keys.push(key);
        if (Array.isArray(value)) {
          const nested = this.nestedOf(value);
          if (nested) existing.nested = existing.nested ? mergeInto(existing.nested, nested) : nested;
        }
        continue;
      }
      info.fields.set(name, this.fieldOf(key, value));
    }
  }

  result(): CatalogShape {
    return this.shape;
  }

  private fieldOf(key: string, value: unknown): TopFieldShape {
    if (!Array.isArray(value)) return { keys: [key], scalar: scalarOf(kindOf(value), value), list: false };
    let first: Kind | undefined;
    let sample: unknown;
    let mixed = false;
    for (let i = 0; i < value.length && i < ARRAY_SAMPLE; i++) {
      const kind = kindOf(value[i]);
      if (kind === undefined) continue;
      if (first === undefined) {
        first = kind;
        sample = value[i];
      } else if (kind !== first) mixed = true;
    }
    const nested = this.nestedOf(value);
    const scalar = first === undefined || (mixed && !nested) ? 'String' : scalarOf(first, sample);
    return { keys: [key], scalar, list: true, ...(nested && { nested }) };
  }

  /** The merged fields of the object elements among an array's first ARRAY_SAMPLE; undefined when none has any. */
  private nestedOf(array: readonly unknown[]): Map<string, FieldShape> | undefined {
    let fields: Map<string, FieldShape> | undefined;
    for (let i = 0; i < array.length && i < ARRAY_SAMPLE; i++) {
      const element = array[i];
      if (!isObject(element)) continue;
      for (const key in element) {
        fields ??= new Map();
        const name = this.names.of(key);
        const existing = fields.get(name);
        if (existing) {
          if (!existing.keys.includes(key)) existing.keys.push(key);
          continue;
        }
        const value = element[key];
        // One level only: an array is typed by its first element, objects inside are JSON text.
        const list = Array.isArray(value);
        const sample: unknown = list ? (value as unknown[])[0] : value;
        fields.set(name, { keys: [key], scalar: scalarOf(kindOf(sample), sample), list });
      }
    }
    return fields;
  }
}

function mergeInto(into: Map<string, FieldShape>, from: ReadonlyMap<string, FieldShape>): Map<string, FieldShape> {
  for (const [name, field] of from) {
    const existing = into.get(name);
    if (!existing) into.set(name, field);
    else for (const k of field.keys) if (!existing.keys.includes(k)) existing.keys.push(k);
  }
  return into;
}

/** Bytes read at a time into one reused buffer (it grows only for a longer line). */
const READ_CHUNK = 1 << 20;
const NEWLINE = 0x0a;

/**
 * The shape of a stored catalog, from one streaming pass over its `catalog.jsonl`: each line is
 * parsed, analysed and dropped. A line's schema is the one its index entry has (the index holds
 * every blob with a schema; a line without an entry has none). The file is read into one reused
 * buffer, so the pass leaves no read buffers behind for the collector.
 */
export async function discoverShape(jsonlPath: string, entries: readonly BlobIndexEntry[], signal?: AbortSignal): Promise<CatalogShape> {
  const builder = new ShapeBuilder();
  // Entries in file order, so each line's entry is found by walking along.
  const sorted = entries.every((e, i) => i === 0 || e.offset >= (entries[i - 1] as BlobIndexEntry).offset);
  const ordered = sorted ? entries : [...entries].sort((a, b) => a.offset - b.offset);
  let next = 0;
  const line = (buf: Buffer, start: number, end: number, at: number): void => {
    while (next < ordered.length && (ordered[next] as BlobIndexEntry).offset < at) next++;
    const entry = ordered[next];
    if (entry === undefined || entry.offset !== at || entry.schema === '') return;
    builder.add(entry.schema, JSON.parse(buf.toString('utf8', start, end)));
  };
  const file = await open(jsonlPath, 'r');
  try {
    let buf = Buffer.allocUnsafe(READ_CHUNK);
    let filled = 0; // bytes of buf holding data
    let offset = 0; // file offset of buf[0]
    for (;;) {
      signal?.throwIfAborted();
      if (filled === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2); // a line longer than the buffer
        buf.copy(bigger, 0, 0, filled);
        buf = bigger;
      }
      const { bytesRead } = await file.read(buf, filled, buf.length - filled, offset + filled);
      if (bytesRead === 0) break;
      const scanFrom = filled;
      filled += bytesRead;
      let start = 0;
      for (let nl = buf.indexOf(NEWLINE, scanFrom); nl >= 0 && nl < filled; nl = buf.indexOf(NEWLINE, nl + 1)) {
        if (nl > start) line(buf, start, nl, offset + start);
        start = nl + 1;
      }
      buf.copy(buf, 0, start, filled); // the unfinished line to the front
      offset += start;
      filled -= start;
    }
    if (filled > 0) line(buf, 0, filled, offset);
  } finally {
    await file.close();
  }
  return builder.result();
}
