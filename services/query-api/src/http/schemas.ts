import '@feedpipe/service-http';
/** JSON schemas shared by several routes. */
import { FORMAT_QUERY_SCHEMA } from '../query/formats.js';

export const SECURITY_ID_SCHEMA = {
  type: 'integer',
  minimum: 1,
  maximum: 4_294_967_295,
  description: 'security id of the instrument',
} as const;

export const FORMAT_PROPERTY = { format: FORMAT_QUERY_SCHEMA } as const;

export const ERROR_RESPONSE = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        field: { type: 'string' },
        upstream: { type: 'object', additionalProperties: true },
      },
      required: ['code', 'message'],
    },
  },
} as const;

export const TABULAR_RESPONSE = {
  description:
    'The table in the requested format. json: ClickHouse JSON ({ meta, data, rows, statistics }); csv, ndjson, arrow, arrowstream and parquet as named',
  content: {
    'application/json': { schema: { type: 'object', additionalProperties: true } },
    'text/csv': { schema: { type: 'string' } },
    'application/x-ndjson': { schema: { type: 'string' } },
    'application/vnd.apache.arrow.file': { schema: { type: 'string', format: 'binary' } },
    'application/vnd.apache.arrow.stream': { schema: { type: 'string', format: 'binary' } },
    'application/vnd.apache.parquet': { schema: { type: 'string', format: 'binary' } },
  },
} as const;

export const READ_SECURITY = [{ apiKey: [] }] as const;
