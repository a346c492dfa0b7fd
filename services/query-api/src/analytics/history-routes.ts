/**
 * Candles loaded by the history loader (migration 003). Those tables are ReplacingMergeTrees that
 * may hold a second copy of a reloaded row until a merge, so every read uses FINAL (partitions are
 * functions of the key, so do_not_merge_across_partitions_select_final keeps FINAL cheap).
 */
import { HISTORY_TABLES } from '@feedpipe/contracts';
import { routeDoc } from '@feedpipe/service-http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiContext } from '../context.js';
import { notFound } from '../errors.js';
import { FORMAT_PROPERTY, SECURITY_ID_PARAMS } from '../http/schemas.js';
import { tabularResponse } from '../http/tabular-doc.js';
import type { OutputFormat } from '../query/formats.js';
import { outputFormatOf } from '../query/negotiation.js';
import { parseRange, rangeQuerystring } from '../query/time.js';
import { cachedTabular, ttlFor } from './tabular-reply.js';

/** The exchanges' calendar: a trading day is an IST (UTC+05:30) day. */
const EXCHANGE_TIME_ZONE = 'Asia/Kolkata';

export const FINAL_SETTINGS = { do_not_merge_across_partitions_select_final: 1 } as const;

const SEGMENT_SCHEMA = {
  type: 'string',
  pattern: '^[A-Z_]{2,16}$',
  description: 'exchange segment (NSE_EQ, NSE_FNO, BSE_EQ, IDX_I, ...); default: any',
} as const;

interface CandleQuery {
  from: string;
  to?: string;
  segment?: string;
  format?: OutputFormat;
}

const tags = ['history'];
const params = SECURITY_ID_PARAMS;

const CANDLE_COLUMNS = {
  time: "DateTime64(0, 'UTC')",
  segment: 'LowCardinality(String)',
  open: 'Float64',
  high: 'Float64',
  low: 'Float64',
  close: 'Float64',
  volume: 'Int64',
  open_interest: 'Int64',
} as const;

/** Daily candles also carry the trading day (`date`, in exchange time) after `time`. */
const { time: CANDLE_TIME, ...CANDLE_VALUES } = CANDLE_COLUMNS;
const DAILY_CANDLE_COLUMNS = { time: CANDLE_TIME, date: 'Date', ...CANDLE_VALUES } as const;

type CandleRequest = FastifyRequest<{ Params: { securityId: number }; Querystring: CandleQuery }>;

/** What both candle routes read first: the instrument, its segment, the range in whole seconds and the format. */
interface CandleWindow {
  securityId: number;
  segment: string;
  fromSec: number;
  toSec: number;
  /** How long the answer may be cached (a range reaching today changes). */
  ttlMs: number;
  format: OutputFormat;
}

/** Reads a candle route's request; 404 unless candles of the instrument were loaded into `table`. */
async function candleWindow(ctx: ApiContext, request: CandleRequest, table: string): Promise<CandleWindow> {
  const { securityId } = request.params;
  const q = request.query;
  const format = outputFormatOf(request);
  const range = parseRange(q.from, q.to, ctx.now());
  const rows = await ctx.runner.rows(`SELECT 1 FROM ${table} WHERE security_id = {sid:UInt32} LIMIT 1`, {
    sid: securityId,
  });
  if (rows.length === 0) throw notFound(`no candles loaded for instrument ${securityId}`);
  return {
    securityId,
    segment: q.segment ?? '',
    fromSec: Math.floor(range.fromMs / 1000),
    toSec: Math.ceil(range.toMs / 1000),
    ttlMs: ttlFor(ctx, range.toMs),
    format,
  };
}

export function registerHistoryRoutes(app: FastifyInstance, ctx: ApiContext): void {
  registerDailyCandleRoute(app, ctx);
  registerIntradayCandleRoute(app, ctx);
}

/**
 * Daily candles: the service stamps a day's candle at midnight exchange time (IST, 18:30 UTC the
 * evening before), so `time` alone puts it on the wrong UTC calendar day. `date` is the trading
 * day itself, and the range selects by it: a candle is in when its date (as midnight UTC) is in
 * [from's date, to). `from=2024-03-04` therefore starts with the candle of 4 March, stamped
 * 2024-03-03T18:30:00Z. The `ts` bounds a day wider on each side keep the primary key in use.
 */
export const DAILY_CANDLES_SQL = `
SELECT toDateTime64(ts, 0, 'UTC') AS time, toDate(ts, '${EXCHANGE_TIME_ZONE}') AS date, segment, open, high, low, close,
       volume, open_interest
FROM ${HISTORY_TABLES.candlesDaily.name} FINAL
WHERE security_id = {sid:UInt32} AND ({seg:String} = '' OR segment = {seg:String})
  AND ts >= toDateTime({fromSec:UInt32}, 'UTC') - INTERVAL 1 DAY AND ts < toDateTime({toSec:UInt32}, 'UTC') + INTERVAL 1 DAY
  AND date >= toDate(toDateTime({fromSec:UInt32}, 'UTC'), 'UTC')
  AND toDateTime(date, 'UTC') < toDateTime({toSec:UInt32}, 'UTC')
ORDER BY ts, segment`;

/** Daily candles of an instrument, from the loaded history. */
function registerDailyCandleRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.get<{ Params: { securityId: number }; Querystring: CandleQuery }>(
    '/v1/instruments/:securityId/candles/daily',
    {
      schema: routeDoc({
        operationId: 'getDailyCandles',
        tags,
        summary: 'Daily candles from history (one per trading day)',
        description:
          'One row per trading day: `date` is the trading day, `time` the instant the service stamps it with (midnight IST, i.e. 18:30 UTC of the day before). A candle is returned when its date, as midnight UTC, lies in [date of from, to).',
        params,
        querystring: rangeQuerystring({ segment: SEGMENT_SCHEMA, ...FORMAT_PROPERTY }),
        responses: { 200: tabularResponse('DailyCandle', DAILY_CANDLE_COLUMNS) },
        errors: [406],
      }),
    },
    async (request, reply) => {
      const { securityId, segment, fromSec, toSec, ttlMs, format } = await candleWindow(
        ctx,
        request,
        HISTORY_TABLES.candlesDaily.name,
      );
      return cachedTabular(
        ctx,
        reply,
        `daily|${securityId}|${segment}|${fromSec}|${toSec}`,
        ttlMs,
        {
          sql: DAILY_CANDLES_SQL,
          params: { sid: securityId, seg: segment, fromSec, toSec },
          format,
          settings: FINAL_SETTINGS,
        },
        `daily-${securityId}`,
      );
    },
  );
}

/** Intraday candles of an instrument, from the loaded history. */
function registerIntradayCandleRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.get<{ Params: { securityId: number }; Querystring: CandleQuery & { interval: number } }>(
    '/v1/instruments/:securityId/candles/intraday',
    {
      schema: routeDoc({
        operationId: 'getIntradayCandles',
        tags,
        summary: 'Intraday candles from history (1, 5, 15, 30 or 60 minutes)',
        params,
        querystring: rangeQuerystring({
          interval: {
            type: 'integer',
            enum: [1, 5, 15, 30, 60],
            default: 1,
            description: 'candle length in minutes',
          },
          segment: SEGMENT_SCHEMA,
          ...FORMAT_PROPERTY,
        }),
        responses: { 200: tabularResponse('IntradayCandle', CANDLE_COLUMNS) },
        errors: [406],
      }),
    },
    async (request, reply) => {
      const { interval } = request.query;
      const { securityId, segment, fromSec, toSec, ttlMs, format } = await candleWindow(
        ctx,
        request,
        HISTORY_TABLES.candlesIntraday.name,
      );
      return cachedTabular(
        ctx,
        reply,
        `intraday|${securityId}|${segment}|${interval}|${fromSec}|${toSec}`,
        ttlMs,
        {
          sql: `SELECT toDateTime64(ts, 0, 'UTC') AS time, segment, open, high, low, close, volume, open_interest
                FROM ${HISTORY_TABLES.candlesIntraday.name} FINAL
                WHERE security_id = {sid:UInt32} AND interval = {interval:UInt8}
                  AND ({seg:String} = '' OR segment = {seg:String})
                  AND ts >= toDateTime({fromSec:UInt32}, 'UTC') AND ts < toDateTime({toSec:UInt32}, 'UTC')
                ORDER BY ts, segment`,
          params: { sid: securityId, seg: segment, interval, fromSec, toSec },
          format,
          settings: FINAL_SETTINGS,
        },
        `intraday-${securityId}-${interval}m`,
      );
    },
  );
}
