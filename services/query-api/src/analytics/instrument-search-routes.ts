/**
 * GET /v1/instruments/search: instruments by symbol or id, for a search box's suggestions. It reads
 * the in-memory catalog (no query of the store per keystroke) and answers 200 with an empty list
 * when nothing matches, so a page can tell "unknown instrument" without provoking a 404.
 */
import { routeDoc } from '@feedpipe/service-http';
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.js';
import { MAX_SEARCH_QUERY } from './instrument-catalog.js';

/** Most suggestions one request returns: a drop-down shows a handful. */
export const MAX_SEARCH_RESULTS = 50;

const MATCH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['securityId', 'symbol', 'segment', 'exact', 'stored'],
  properties: {
    securityId: { type: 'integer', description: 'security id of the instrument' },
    symbol: {
      type: ['string', 'null'],
      description: 'trading symbol, null when the API has no list with it',
    },
    segment: { type: ['string', 'null'], description: 'exchange segment (e.g. NSE_EQ, INX_EQ), when listed' },
    exact: { type: 'boolean', description: 'the query is the whole id or symbol (case-insensitive)' },
    stored: {
      type: 'boolean',
      description: 'seen in the stored data (live ticks, reference data or loaded history)',
    },
  },
} as const;

const SEARCH_ROUTE = {
  schema: routeDoc({
    tags: ['instruments'],
    operationId: 'searchInstruments',
    summary: 'Find instruments by symbol or security id (suggestions for a search box)',
    description:
      'Case-insensitive. Whole matches of the id or symbol come first, then prefixes, then symbols containing the query; instruments with stored data before those only listed. No match is an empty list, not a 404.',
    querystring: {
      type: 'object',
      additionalProperties: false,
      required: ['q'],
      properties: {
        q: {
          type: 'string',
          minLength: 1,
          maxLength: MAX_SEARCH_QUERY,
          pattern: '\\S',
          description: 'symbol or security id, whole or its beginning',
        },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_SEARCH_RESULTS,
          default: 10,
          description: 'how many suggestions at most',
        },
      },
    },
    responses: {
      200: {
        title: 'InstrumentMatches',
        description: 'matching instruments, best first',
        type: 'object',
        additionalProperties: false,
        required: ['data'],
        properties: { data: { type: 'array', items: MATCH_SCHEMA } },
      },
    },
  }),
} as const;

export function registerInstrumentSearchRoutes(app: FastifyInstance, ctx: ApiContext): void {
  app.get<{ Querystring: { q: string; limit: number } }>(
    '/v1/instruments/search',
    SEARCH_ROUTE,
    async (request) => ({ data: await ctx.instruments.search(request.query.q, request.query.limit) }),
  );
}
