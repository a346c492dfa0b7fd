/**
 * The documented answer of a tabular route: its columns, named with the ClickHouse types ClickHouse
 * reports for them in the JSON format's `meta` (a test compares the two on real answers, so the
 * document cannot drift from the SQL), the JSON row schema derived from those types, and the
 * media type of every other output format. One content entry per format: a client picks with
 * `format=` or with Accept (query/negotiation.ts).
 */
import { mediaTypeOf, type OutputFormat } from '../query/formats.js';

/** Column name -> ClickHouse type, in the order the SQL selects them. */
export type Columns = Readonly<Record<string, string>>;

type JsonSchema = Record<string, unknown>;

const INTEGER = /^U?Int(8|16|32|64|128|256)$/;
const NUMBER = /^(Float32|Float64|BFloat16|Decimal.*)$/;
const TEXT = /^(String|FixedString\(.*\)|UUID|IPv4|IPv6|Enum(8|16)\(.*\)|Date|Date32|DateTime.*)$/;

function unwrap(type: string, wrapper: string): string | undefined {
  const prefix = `${wrapper}(`;
  return type.startsWith(prefix) && type.endsWith(')') ? type.slice(prefix.length, -1) : undefined;
}

function enumValues(type: string): string[] | undefined {
  const inner = unwrap(type, 'Enum8') ?? unwrap(type, 'Enum16');
  if (inner === undefined) return undefined;
  return [...inner.matchAll(/'((?:[^'\\]|\\.)*)'\s*=/g)].map((m) => m[1] as string);
}

/**
 * The JSON schema of a value of ClickHouse type `type` in ClickHouse's JSON output with the API's
 * format settings (64-bit integers as numbers, query/formats.ts).
 */
export function jsonSchemaOfClickHouseType(type: string): JsonSchema {
  const nullable = unwrap(type, 'Nullable');
  if (nullable !== undefined) {
    const inner = jsonSchemaOfClickHouseType(nullable);
    return { ...inner, type: [inner.type, 'null'] };
  }
  const lowCardinality = unwrap(type, 'LowCardinality');
  if (lowCardinality !== undefined) return jsonSchemaOfClickHouseType(lowCardinality);
  const array = unwrap(type, 'Array');
  if (array !== undefined) return { type: 'array', items: jsonSchemaOfClickHouseType(array) };
  if (INTEGER.test(type)) return { type: 'integer' };
  if (NUMBER.test(type)) return { type: 'number' };
  if (type === 'Bool') return { type: 'boolean' };
  const values = enumValues(type);
  if (values) return { type: 'string', enum: values };
  if (TEXT.test(type)) return { type: 'string' };
  throw new Error(`tabular-doc: no JSON schema for ClickHouse type ${type}`);
}

/** The schema of one row in the json format: every column, as ClickHouse writes it. */
export function rowSchema(name: string, columns: Columns): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [column, type] of Object.entries(columns)) {
    properties[column] = { ...jsonSchemaOfClickHouseType(type), description: `ClickHouse ${type}` };
  }
  return {
    title: `${name}Row`,
    type: 'object',
    required: Object.keys(columns),
    properties,
  };
}

const STATISTICS = {
  type: 'object',
  properties: {
    elapsed: { type: 'number', description: 'seconds the query took' },
    rows_read: { type: 'integer' },
    bytes_read: { type: 'integer' },
  },
} as const;

/** ClickHouse's JSON format: the column list, the rows, their count and the query's figures. */
export function jsonTableSchema(name: string, row: JsonSchema): JsonSchema {
  return {
    title: `${name}Table`,
    type: 'object',
    required: ['meta', 'data', 'rows'],
    properties: {
      meta: {
        type: 'array',
        description: 'the columns: name and ClickHouse type',
        items: {
          type: 'object',
          required: ['name', 'type'],
          properties: { name: { type: 'string' }, type: { type: 'string' } },
        },
      },
      data: { type: 'array', items: row },
      rows: { type: 'integer', description: 'rows in data' },
      rows_before_limit_at_least: {
        type: 'integer',
        description: 'rows there were before LIMIT, when the query had one',
      },
      statistics: STATISTICS,
    },
  };
}

const BINARY_FORMATS: readonly OutputFormat[] = ['arrow', 'arrowstream', 'parquet'];
const TEXT_FORMATS: readonly OutputFormat[] = ['csv', 'ndjson'];

/** An answer's OpenAPI object: its media types and their schemas. */
export type ResponseDoc = { description: string; content: Record<string, unknown> };

/** The 200 answer of a tabular route whose rows are `row`, in every output format. */
export function tabularResponseOf(name: string, row: JsonSchema): ResponseDoc {
  const content: Record<string, unknown> = {
    [mediaTypeOf('json')]: { schema: jsonTableSchema(name, row) },
  };
  for (const format of TEXT_FORMATS) content[mediaTypeOf(format)] = { schema: { type: 'string' } };
  for (const format of BINARY_FORMATS) {
    content[mediaTypeOf(format)] = {
      schema: { type: 'string', format: 'binary', contentMediaType: mediaTypeOf(format) },
    };
  }
  return {
    description:
      'The rows in the format named by format= or, without it, chosen by Accept: json is ClickHouse JSON ({ meta, data, rows, statistics }); csv has a header line; ndjson is one JSON row a line; arrow is the Arrow IPC file format, arrowstream the IPC stream format; parquet is Parquet',
    content,
  };
}

/** The 200 answer of a tabular route with these columns. */
export function tabularResponse(name: string, columns: Columns): ResponseDoc {
  return tabularResponseOf(name, rowSchema(name, columns));
}
