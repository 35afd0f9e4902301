// A GraphQL schema from a CatalogShape, in upstream's form:
//
//   type Query {
//     <schema>s(limit: Int = 100, offset: Int = 0): [<Schema>]   one per catalog schema (names.ts)
//     summary: CatalogSummary                                     { totalSchemas, schemas { name totalObjects totalFields } }
//   }
//   type <Schema> { <field>: <scalar> | [<scalar>] | [<Schema><Field>] }   from discover.ts
//
// A list field answers at most 100 blobs of its schema in catalog order, from `offset`; a limit
// outside 1…100 is 100, a negative offset is 0. The blobs come from the BlobReader passed as the
// execution's context value, so the schema (kept per catalog digest) holds no catalog content.
// Objects in a String field are answered as their JSON text (Go's json.Marshal: sorted keys,
// `<>&` escaped).
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInt,
  GraphQLList,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  validateSchema,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  type GraphQLOutputType,
  type GraphQLScalarType,
} from 'graphql';
import { canonicalJSON } from '../../shared/fbc/index.ts';
import { isObject } from '../../shared/toolkit/index.ts';
import { type CatalogShape, type FieldShape, type Scalar, type SchemaShape, type TopFieldShape } from './discover.ts';
import { FieldNames, queryFieldName, typeName } from './names.ts';

/** Where the blobs of a query come from: the catalog being queried, given per execution. */
export interface BlobReader {
  /** Up to `limit` blobs of `schema` from position `offset`, in catalog order, parsed. */
  read(schema: string, offset: number, limit: number): Record<string, unknown>[];
}

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 100;

const SCALARS: Readonly<Record<Scalar, GraphQLScalarType>> = {
  String: GraphQLString,
  Int: GraphQLInt,
  Float: GraphQLFloat,
  Boolean: GraphQLBoolean,
};

const HTML_UNSAFE = /[<>&]/g;
const HTML_ESCAPES: Readonly<Record<string, string>> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026' };

/** Go's json.Marshal of a decoded JSON value: canonical (sorted keys) with `<`, `>`, `&` escaped. */
export function goMarshal(value: unknown): string {
  return canonicalJSON(value).replace(HTML_UNSAFE, (c) => HTML_ESCAPES[c] ?? c);
}

/** A value for a scalar: objects and arrays as JSON text. */
const scalarValue = (v: unknown): unknown => (typeof v === 'object' && v !== null ? goMarshal(v) : v);

/** A value for a list of scalars: each element as scalarValue; anything but an array as it is (GraphQL reports it). */
const listValue = (v: unknown): unknown => (Array.isArray(v) ? v.map(scalarValue) : scalarValue(v));

const names = new FieldNames();

/**
 * The value of a field in a blob (or nested element): the first of the field's known keys that
 * the object has; failing that, any other key with the same field name.
 */
function lookup(source: unknown, name: string, keys: readonly string[]): unknown {
  if (!isObject(source)) return null;
  for (const k of keys) if (Object.hasOwn(source, k)) return source[k];
  for (const k in source) if (names.of(k) === name) return source[k];
  return null;
}

function scalarField(name: string, field: FieldShape): GraphQLFieldConfig<unknown, unknown> {
  const base = SCALARS[field.scalar];
  const { keys } = field;
  return field.list
    ? { type: new GraphQLList(base), resolve: (source) => listValue(lookup(source, name, keys)) }
    : { type: base, resolve: (source) => scalarValue(lookup(source, name, keys)) };
}

function objectType(schema: SchemaShape): GraphQLObjectType {
  const ownName = typeName(schema.name);
  return new GraphQLObjectType({
    name: ownName,
    fields: () => {
      const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
      for (const name of [...schema.fields.keys()].sort()) {
        const field = schema.fields.get(name) as TopFieldShape;
        const nested = field.nested;
        if (nested === undefined || nested.size === 0) {
          fields[name] = scalarField(name, field);
          continue;
        }
        const element = new GraphQLObjectType({
          name: ownName + typeName(name),
          fields: () => {
            const inner: GraphQLFieldConfigMap<unknown, unknown> = {};
            for (const n of [...nested.keys()].sort()) inner[n] = scalarField(n, nested.get(n) as FieldShape);
            return inner;
          },
        });
        const { keys } = field;
        fields[name] = { type: new GraphQLList(element), resolve: (source) => lookup(source, name, keys) };
      }
      return fields;
    },
  });
}

const SchemaSummary = new GraphQLObjectType({
  name: 'SchemaSummary',
  fields: { name: { type: GraphQLString }, totalObjects: { type: GraphQLInt }, totalFields: { type: GraphQLInt } },
});

const CatalogSummary = new GraphQLObjectType({
  name: 'CatalogSummary',
  fields: { totalSchemas: { type: GraphQLInt }, schemas: { type: new GraphQLList(SchemaSummary) } },
});

/** A schema that cannot be built; the message is upstream's. */
export class SchemaBuildError extends Error {
  override readonly name = 'SchemaBuildError';
}

/** Two schemas whose names meet in one GraphQL name (checked in schema name order). */
function collision(schemas: readonly string[], nameOf: (s: string) => string, what: (a: string, b: string, n: string) => string): void {
  const seen = new Map<string, string>();
  for (const s of schemas) {
    const n = nameOf(s);
    const other = seen.get(n);
    if (other !== undefined) throw new SchemaBuildError(what(other, s, n));
    seen.set(n, s);
  }
}

/** The GraphQL schema of a catalog shape. Throws SchemaBuildError when names collide or are invalid. */
export function buildSchema(shape: CatalogShape): GraphQLSchema {
  const schemaNames = [...shape.schemas.keys()].sort();
  collision(schemaNames, typeName, (a, b, n) => `type name collision: schemas ${JSON.stringify(a)} and ${JSON.stringify(b)} both sanitize to GraphQL type ${JSON.stringify(n)}`);
  collision(schemaNames, queryFieldName, (a, b, n) => `query field collision: schemas ${JSON.stringify(a)} and ${JSON.stringify(b)} both map to field ${JSON.stringify(n)}`);

  const query: GraphQLFieldConfigMap<unknown, BlobReader> = {};
  for (const schemaName of schemaNames) {
    const schema = shape.schemas.get(schemaName) as SchemaShape;
    const type: GraphQLOutputType = new GraphQLList(objectType(schema));
    query[queryFieldName(schemaName)] = {
      type,
      args: {
        limit: { type: GraphQLInt, defaultValue: DEFAULT_LIMIT, description: 'Maximum number of items to return' },
        offset: { type: GraphQLInt, defaultValue: 0, description: 'Number of items to skip' },
      },
      resolve: (_source, args: { limit?: number | null; offset?: number | null }, reader) => {
        const limit = typeof args.limit === 'number' && args.limit > 0 && args.limit <= MAX_LIMIT ? args.limit : DEFAULT_LIMIT;
        const offset = typeof args.offset === 'number' && args.offset > 0 ? args.offset : 0;
        return reader.read(schemaName, offset, limit);
      },
    };
  }
  const summary = {
    totalSchemas: schemaNames.length,
    schemas: schemaNames.map((name) => {
      const s = shape.schemas.get(name) as SchemaShape;
      return { name, totalObjects: s.objects, totalFields: s.fields.size };
    }),
  };
  query.summary = { type: CatalogSummary, resolve: () => summary };
  const ordered: GraphQLFieldConfigMap<unknown, BlobReader> = {};
  for (const name of Object.keys(query).sort()) ordered[name] = query[name] as GraphQLFieldConfig<unknown, BlobReader>;

  let schema: GraphQLSchema;
  try {
    schema = new GraphQLSchema({ query: new GraphQLObjectType({ name: 'Query', fields: ordered }) });
  } catch (err) {
    throw new SchemaBuildError(`failed to create GraphQL schema: ${(err as Error).message}`);
  }
  const problems = validateSchema(schema);
  if (problems.length > 0) throw new SchemaBuildError(`failed to create GraphQL schema: ${problems.map((p) => p.message).join('; ')}`);
  return schema;
}
