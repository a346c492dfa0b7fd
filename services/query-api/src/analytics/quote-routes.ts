/**
 * Snapshot quotes of Indian instruments, polled by the quote poller into market.quotes (migration
 * 011): the latest quote of an instrument, and its depth history over a range. The five levels of
 * each side are arrays, best first. Read with FINAL: a batch stored twice (a retried insert) folds.
 */
import { REFERENCE_TABLES } from '@feedpipe/contracts';
import { routeDoc } from '@feedpipe/service-http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiContext } from '../context.js';
import { badRequest, notFound } from '../errors.js';
import { FORMAT_PROPERTY, SECURITY_ID_PARAMS } from '../http/schemas.js';
import { tabularResponse } from '../http/tabular-doc.js';
import type { OutputFormat } from '../query/formats.js';
import { outputFormatOf } from '../query/negotiation.js';
import { BAR_INTERVAL_SCHEMA, parseDurationSec, parseRange, rangeQuerystring } from '../query/time.js';
import { cachedTabular, streamedTabular } from './tabular-reply.js';

const QUOTES = REFERENCE_TABLES.quotes.name;

const DEPTH_COLUMNS = {
  bid_price: 'Array(Float64)',
  bid_quantity: 'Array(UInt32)',
  bid_orders: 'Array(UInt32)',
  ask_price: 'Array(Float64)',
  ask_quantity: 'Array(UInt32)',
  ask_orders: 'Array(UInt32)',
} as const;

const QUOTE_COLUMNS = {
  polled_at: "DateTime64(3, 'UTC')",
  exchange_segment: 'LowCardinality(String)',
  last_price: 'Float64',
  last_quantity: 'UInt32',
  last_trade_time: "Nullable(DateTime64(0, 'UTC'))",
  average_price: 'Float64',
  volume: 'UInt64',
  buy_quantity: 'UInt64',
  sell_quantity: 'UInt64',
  open: 'Float64',
  high: 'Float64',
  low: 'Float64',
  close: 'Float64',
  net_change: 'Float64',
  upper_circuit_limit: 'Float64',
  lower_circuit_limit: 'Float64',
  oi: 'UInt64',
  oi_day_high: 'UInt64',
  oi_day_low: 'UInt64',
  ...DEPTH_COLUMNS,
} as const;

const HISTORY_COLUMNS = {
  polled_at: "DateTime64(3, 'UTC')",
  last_price: 'Float64',
  volume: 'UInt64',
  buy_quantity: 'UInt64',
  sell_quantity: 'UInt64',
  ...DEPTH_COLUMNS,
} as const;

const QUOTE_SELECT = Object.keys(QUOTE_COLUMNS)
  .map((c) => (c === 'last_trade_time' ? "toDateTime64(last_trade_time, 0, 'UTC') AS last_trade_time" : c))
  .join(', ');

export const LATEST_QUOTE_SQL = `
SELECT ${QUOTE_SELECT} FROM ${QUOTES} FINAL
WHERE security_id = {sid:UInt32} AND ({seg:String} = '' OR exchange_segment = {seg:String})
ORDER BY polled_at DESC LIMIT 1`;

export const DEPTH_HISTORY_SQL = `
SELECT ${Object.keys(HISTORY_COLUMNS).join(', ')} FROM ${QUOTES} FINAL
WHERE security_id = {sid:UInt32} AND ({seg:String} = '' OR exchange_segment = {seg:String})
  AND polled_at >= fromUnixTimestamp64Milli({fromMs:Int64}, 'UTC') AND polled_at < fromUnixTimestamp64Milli({toMs:Int64}, 'UTC')
ORDER BY polled_at LIMIT {limit:UInt32}`;

const QUOTE_BAR_COLUMNS = {
  time: "DateTime64(0, 'UTC')",
  open: 'Float64',
  high: 'Float64',
  low: 'Float64',
  close: 'Float64',
  volume: 'Int64',
  quotes: 'UInt64',
} as const;

/**
 * Bars of the polled last price: open and close are the first and last poll's price in the slot,
 * volume the growth of the day's volume between them (the polls carry cumulative volume; a slot
 * that crosses midnight IST can undercount), quotes the polls in the slot.
 */
export const QUOTE_BARS_SQL = `
SELECT toDateTime64(toStartOfInterval(polled_at, toIntervalSecond({step:UInt32}), 'UTC'), 0, 'UTC') AS time,
       argMin(last_price, polled_at) AS open, max(last_price) AS high, min(last_price) AS low,
       argMax(last_price, polled_at) AS close, max(volume) - min(volume) AS volume, count() AS quotes
FROM ${QUOTES} FINAL
WHERE security_id = {sid:UInt32} AND ({seg:String} = '' OR exchange_segment = {seg:String})
  AND polled_at >= fromUnixTimestamp64Milli({fromMs:Int64}, 'UTC') AND polled_at < fromUnixTimestamp64Milli({toMs:Int64}, 'UTC')
GROUP BY time ORDER BY time`;

const SEGMENT = {
  type: 'string',
  pattern: '^[A-Z_]{2,16}$',
  description: 'exchange segment (NSE_EQ, NSE_FNO, BSE_EQ); default: any',
} as const;

/** Most quotes one depth-history answer holds: a day of polls every 5 s is 4,500. */
const MAX_DEPTH_ROWS = 100_000;

/** 404 unless the poller has stored a quote of the instrument (in the segment, if one is named). */
/** The instrument a quote route answers for, and the answer's format. */
interface QuoteTarget {
  securityId: number;
  segment: string;
  format: OutputFormat;
}

type QuoteRequest = FastifyRequest<{
  Params: { securityId: number };
  Querystring: { segment?: string; format?: OutputFormat };
}>;

/** What every quote route does first: read its instrument and format, and 404 when none was polled. */
type ReadQuoteTarget = (request: QuoteRequest) => Promise<QuoteTarget>;

const tags = ['quotes'];

export function registerQuoteRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const readTarget: ReadQuoteTarget = async (request) => {
    const { securityId } = request.params;
    const segment = request.query.segment ?? '';
    const format = outputFormatOf(request);
    const rows = await ctx.runner.rows(
      `SELECT 1 FROM ${QUOTES} WHERE security_id = {sid:UInt32} AND ({seg:String} = '' OR exchange_segment = {seg:String}) LIMIT 1`,
      { sid: securityId, seg: segment },
    );
    if (rows.length === 0) throw notFound(`no quotes polled for instrument ${securityId}`);
    return { securityId, segment, format };
  };

  registerLatestQuote(app, ctx, readTarget);
  registerQuoteBars(app, ctx, readTarget);
  registerDepthHistory(app, ctx, readTarget);
}

function registerLatestQuote(app: FastifyInstance, ctx: ApiContext, readTarget: ReadQuoteTarget): void {
  app.get<{ Params: { securityId: number }; Querystring: { segment?: string; format?: OutputFormat } }>(
    '/v1/instruments/:securityId/quote',
    {
      schema: routeDoc({
        operationId: 'getLatestQuote',
        tags,
        summary: 'The latest polled snapshot quote: last trade, OHLC, open interest and five depth levels',
        description:
          'From market.quotes (the quote poller). Depth levels are arrays, best first: bid_price[1] is the best bid. close is the previous close.',
        params: SECURITY_ID_PARAMS,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { segment: SEGMENT, ...FORMAT_PROPERTY },
        },
        responses: { 200: tabularResponse('Quote', QUOTE_COLUMNS) },
        errors: [406],
      }),
    },
    async (request, reply) => {
      const { securityId, segment, format } = await readTarget(request);
      return cachedTabular(
        ctx,
        reply,
        `quote|${securityId}|${segment}`,
        ctx.config.cache.liveTtlMs,
        { sql: LATEST_QUOTE_SQL, params: { sid: securityId, seg: segment }, format },
        `quote-${securityId}`,
      );
    },
  );
}

function registerQuoteBars(app: FastifyInstance, ctx: ApiContext, readTarget: ReadQuoteTarget): void {
  app.get<{
    Params: { securityId: number };
    Querystring: { from: string; to?: string; interval: string; segment?: string; format?: OutputFormat };
  }>(
    '/v1/instruments/:securityId/quote-bars',
    {
      schema: routeDoc({
        operationId: 'getQuoteBars',
        tags,
        summary: 'OHLC bars of the polled last price (Indian instruments without a live feed), 1 s to 1 day',
        description:
          'From market.quotes: open and close are the first and last polled price in the bar, volume the growth of the day volume between the polls of the bar, quotes the polls in it. Bars without a poll are left out.',
        params: SECURITY_ID_PARAMS,
        querystring: rangeQuerystring({
          interval: BAR_INTERVAL_SCHEMA,
          segment: SEGMENT,
          ...FORMAT_PROPERTY,
        }),
        responses: { 200: tabularResponse('QuoteBar', QUOTE_BAR_COLUMNS) },
        errors: [406],
      }),
    },
    async (request, reply) => {
      const q = request.query;
      const step = parseDurationSec('interval', q.interval, 1, 86_400);
      const range = parseRange(q.from, q.to, ctx.now());
      if ((range.toMs - range.fromMs) / 1000 / step > ctx.config.query.maxBars) {
        throw badRequest(
          'interval',
          `asks for more than ${ctx.config.query.maxBars} bars: use a longer interval or a shorter range`,
        );
      }
      const { securityId, segment, format } = await readTarget(request);
      return cachedTabular(
        ctx,
        reply,
        `quote-bars|${securityId}|${segment}|${step}|${range.fromMs}|${range.toMs}`,
        ctx.config.cache.liveTtlMs,
        {
          sql: QUOTE_BARS_SQL,
          params: { sid: securityId, seg: segment, step, fromMs: range.fromMs, toMs: range.toMs },
          format,
        },
        `quote-bars-${securityId}`,
      );
    },
  );
}

function registerDepthHistory(app: FastifyInstance, ctx: ApiContext, readTarget: ReadQuoteTarget): void {
  app.get<{
    Params: { securityId: number };
    Querystring: { from: string; to?: string; segment?: string; limit?: number; format?: OutputFormat };
  }>(
    '/v1/instruments/:securityId/depth',
    {
      schema: routeDoc({
        operationId: 'getDepthHistory',
        tags,
        summary: 'Depth history: every polled quote of an instrument in a range, five levels a side',
        description: 'Ordered by poll time; `polled_at` in [from, to).',
        params: SECURITY_ID_PARAMS,
        querystring: rangeQuerystring({
          segment: SEGMENT,
          limit: {
            type: 'integer',
            minimum: 1,
            maximum: MAX_DEPTH_ROWS,
            default: 10_000,
            description: 'quotes in one answer at most',
          },
          ...FORMAT_PROPERTY,
        }),
        responses: { 200: tabularResponse('DepthHistory', HISTORY_COLUMNS) },
        errors: [406],
      }),
    },
    async (request, reply) => {
      const q = request.query;
      const range = parseRange(q.from, q.to, ctx.now());
      const { securityId, segment, format } = await readTarget(request);
      return streamedTabular(
        ctx,
        reply,
        {
          sql: DEPTH_HISTORY_SQL,
          params: {
            sid: securityId,
            seg: segment,
            fromMs: range.fromMs,
            toMs: range.toMs,
            limit: q.limit ?? 10_000,
          },
          format,
        },
        `depth-${securityId}`,
      );
    },
  );
}
