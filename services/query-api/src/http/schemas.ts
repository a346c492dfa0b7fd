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

/** Path parameters of the routes about one instrument. */
export const SECURITY_ID_PARAMS = {
  type: 'object',
  properties: { securityId: SECURITY_ID_SCHEMA },
  required: ['securityId'],
} as const;

/** Path parameters of the routes about one underlying's options. */
export const UNDERLYING_PARAMS = {
  type: 'object',
  properties: { underlyingId: { ...SECURITY_ID_SCHEMA, description: 'security id of the underlying' } },
  required: ['underlyingId'],
} as const;
