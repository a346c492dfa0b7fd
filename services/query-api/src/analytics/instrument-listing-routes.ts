/**
 * GET /v1/instruments/:securityId/listing: the instrument's rows of the instrument master
 * (market.instruments, loaded daily from the service's published list), every version with the
 * days it was valid, newest first: symbol, segment, lot and tick size, expiry, strike, underlying.
 * An id listed on several segments has rows for each. Read with FINAL: a version closed since the
 * table's last merge leaves no stale copy.
 */
import { REFERENCE_TABLES } from '@feedpipe/contracts';
import { routeDoc } from '@feedpipe/service-http';
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.js';
import { notFound } from '../errors.js';
import { FORMAT_PROPERTY, SECURITY_ID_PARAMS } from '../http/schemas.js';
import { tabularResponse } from '../http/tabular-doc.js';
import type { OutputFormat } from '../query/formats.js';
import { outputFormatOf } from '../query/negotiation.js';
import { cachedTabular } from './tabular-reply.js';

const LISTING_COLUMNS = {
  exchange_segment: 'LowCardinality(String)',
  valid_from: 'Date',
  valid_to: 'Nullable(Date)',
  exchange: 'LowCardinality(String)',
  instrument_type: 'LowCardinality(String)',
  trading_symbol: 'String',
  custom_symbol: 'String',
  symbol_name: 'String',
  series: 'LowCardinality(String)',
  lot_size: 'UInt32',
  tick_size: 'Float64',
  expiry_code: 'Int16',
  expiry_date: "Nullable(DateTime64(0, 'UTC'))",
  strike_price: 'Nullable(Float64)',
  option_type: 'LowCardinality(String)',
  expiry_flag: 'LowCardinality(String)',
  underlying_security_id: 'Nullable(UInt32)',
  underlying_symbol: 'String',
} as const;

const FROM_TABLE = `${REFERENCE_TABLES.instruments.name} FINAL WHERE security_id = {sid:UInt32}`;

export const LISTING_SQL = `
SELECT exchange_segment, valid_from, valid_to, exchange, instrument_type, trading_symbol, custom_symbol,
       symbol_name, series, lot_size, tick_size, expiry_code, toDateTime64(expiry_date, 0, 'UTC') AS expiry_date,
       strike_price, option_type, expiry_flag, underlying_security_id, underlying_symbol
FROM ${FROM_TABLE}
ORDER BY valid_from DESC, exchange_segment`;

export function registerInstrumentListingRoutes(app: FastifyInstance, ctx: ApiContext): void {
  app.get<{ Params: { securityId: number }; Querystring: { format?: OutputFormat } }>(
    '/v1/instruments/:securityId/listing',
    {
      schema: routeDoc({
        operationId: 'getInstrumentListing',
        tags: ['instruments'],
        summary: "The instrument's rows of the instrument master, every version with its validity",
        description:
          "From market.instruments (the service's published instrument list, loaded daily). valid_to is null for the current version; a changed or delisted row has the first day it no longer applied. expiry_date is the expiry instant (15:30 IST of the expiry day for the simulator) in UTC.",
        params: SECURITY_ID_PARAMS,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { ...FORMAT_PROPERTY },
        },
        responses: { 200: tabularResponse('InstrumentListing', LISTING_COLUMNS) },
        errors: [406],
      }),
    },
    async (request, reply) => {
      const { securityId } = request.params;
      const format = outputFormatOf(request);
      const listed = await ctx.runner.rows(`SELECT 1 FROM ${FROM_TABLE} LIMIT 1`, { sid: securityId });
      if (listed.length === 0) throw notFound(`instrument ${securityId} is not in the instrument master`);
      return cachedTabular(
        ctx,
        reply,
        `listing|${securityId}`,
        ctx.config.cache.liveTtlMs,
        { sql: LISTING_SQL, params: { sid: securityId }, format },
        `listing-${securityId}`,
      );
    },
  );
}
