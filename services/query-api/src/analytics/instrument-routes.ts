/**
 * Instruments and their latest state, ticks (paged by a keyset cursor) and bars resampled from
 * ticks. Every value goes in as a ClickHouse query parameter.
 */
import { FEED_TABLES } from '@feedpipe/contracts';
import { asIsSerializer, routeDoc } from '@feedpipe/service-http';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteGenericInterface } from 'fastify';
import type { ApiContext } from '../context.js';
import { badRequest, notFound } from '../errors.js';
import { hotBars, tierFor } from '../hot-tier/hot-bars.js';
import { bytesFirstResponse, registerDownloads } from '../http/binary-downloads.js';
import { FORMAT_PROPERTY, SECURITY_ID_PARAMS } from '../http/schemas.js';
import { rowSchema, tabularResponse } from '../http/tabular-doc.js';
import type { OutputFormat } from '../query/formats.js';
import { outputFormatOf } from '../query/negotiation.js';
import { isRowTextFormat } from '../query/text-bodies.js';
import { DURATION_SCHEMA, parseDurationSec, parseRange, rangeQuerystring } from '../query/time.js';
import { BAR_COLUMNS, BARS_SQL } from './bars-sql.js';
import { cachedTabular, streamedTabular, ttlFor } from './tabular-reply.js';

const LATEST_STATE_SQL = `
WITH
  trades AS (
    SELECT security_id, any(segment) AS segment, argMax(ltp, received_at) AS last_price,
           argMax(volume, received_at) AS volume, argMax(ltt, received_at) AS last_trade_time,
           max(received_at) AS last_received_at
    FROM ${FEED_TABLES.ticks.name} WHERE {filter:UInt8} = 0 OR security_id = {sid:UInt32} GROUP BY security_id),
  refs AS (
    SELECT security_id,
           if(countIf(kind = 'prev_close') > 0, argMaxIf(value1, received_at, kind = 'prev_close'), NULL) AS prev_close,
           if(countIf(kind = 'circuit_limit') > 0, argMaxIf(value1, received_at, kind = 'circuit_limit'), NULL) AS upper_circuit,
           if(countIf(kind = 'circuit_limit') > 0, argMaxIf(value2, received_at, kind = 'circuit_limit'), NULL) AS lower_circuit,
           if(countIf(kind = 'week52') > 0, argMaxIf(value1, received_at, kind = 'week52'), NULL) AS week52_high,
           if(countIf(kind = 'week52') > 0, argMaxIf(value2, received_at, kind = 'week52'), NULL) AS week52_low
    FROM ${FEED_TABLES.referenceUpdates.name}
    WHERE security_id != 0 AND ({filter:UInt8} = 0 OR security_id = {sid:UInt32}) GROUP BY security_id)
SELECT
  if(t.security_id != 0, t.security_id, r.security_id) AS security_id,
  if(t.security_id != 0, t.segment, NULL) AS segment,
  if(t.security_id != 0, t.last_price, NULL) AS last_price,
  if(t.security_id != 0, t.volume, NULL) AS volume,
  if(t.security_id != 0, t.last_trade_time, NULL) AS last_trade_time,
  if(t.security_id != 0, t.last_received_at, NULL) AS last_received_at,
  r.prev_close AS prev_close,
  if(r.prev_close > 0 AND t.security_id != 0, (t.last_price - r.prev_close) / r.prev_close * 100, NULL) AS change_pct,
  r.upper_circuit AS upper_circuit, r.lower_circuit AS lower_circuit,
  r.week52_high AS week52_high, r.week52_low AS week52_low
FROM trades AS t FULL OUTER JOIN refs AS r ON t.security_id = r.security_id
ORDER BY security_id
LIMIT {limit:UInt32} OFFSET {offset:UInt32}`;

const MARKET_STATUS_SQL = `
SELECT segment, argMax(market_type, received_at) AS market_type, argMax(status, received_at) AS status,
       max(received_at) AS last_received_at
FROM ${FEED_TABLES.feedStatus.name} WHERE type = 'market_status' GROUP BY segment ORDER BY segment`;

const TICKS_WHERE = `security_id = {sid:UInt32}
  AND received_at >= fromUnixTimestamp64Milli({fromMs:Int64}, 'UTC')
  AND received_at < fromUnixTimestamp64Milli({toMs:Int64}, 'UTC')
  AND received_at >= fromUnixTimestamp64Micro({cT:Int64}, 'UTC')
  AND (toUnixTimestamp64Micro(received_at), kafka_partition, kafka_offset) >= ({cT:Int64}, {cP:UInt16}, {cO:UInt64})`;

/** The columns of LATEST_STATE_SQL. */
const LATEST_STATE_COLUMNS = {
  security_id: 'UInt32',
  segment: 'Nullable(UInt8)',
  last_price: 'Nullable(Float32)',
  volume: 'Nullable(Int32)',
  last_trade_time: "Nullable(DateTime('UTC'))",
  last_received_at: "Nullable(DateTime64(6, 'UTC'))",
  prev_close: 'Nullable(Float32)',
  change_pct: 'Nullable(Float64)',
  upper_circuit: 'Nullable(Float32)',
  lower_circuit: 'Nullable(Float32)',
  week52_high: 'Nullable(Float32)',
  week52_low: 'Nullable(Float32)',
} as const;

/** The columns of MARKET_STATUS_SQL. */
const MARKET_STATUS_COLUMNS = {
  segment: 'UInt8',
  market_type: 'Array(UInt8)',
  status: 'UInt8',
  last_received_at: "DateTime64(6, 'UTC')",
} as const;

const MARKET_STATUS_ROW = rowSchema('MarketStatus', MARKET_STATUS_COLUMNS);

const STATE_ROW = rowSchema('InstrumentState', LATEST_STATE_COLUMNS);
/** GET /v1/instruments/:id: the instrument's row of the list, with the market status. */
const INSTRUMENT_STATE = {
  ...STATE_ROW,
  title: 'Instrument',
  required: [...Object.keys(LATEST_STATE_COLUMNS), 'market_status'],
  properties: {
    ...(STATE_ROW.properties as Record<string, unknown>),
    market_status: { type: 'array', items: MARKET_STATUS_ROW, description: 'latest status per segment' },
  },
};

const TICK_COLUMNS = {
  received_at: "DateTime64(6, 'UTC')",
  ltt: "DateTime64(0, 'UTC')",
  lut: "DateTime64(0, 'UTC')",
  ltp: 'Float32',
  volume: 'Int32',
  segment: 'UInt8',
  quantity: 'UInt32',
} as const;

/** The ticks answer: the table, and the cursor of the next page in headers. */
const TICKS_RESPONSE = {
  ...tabularResponse('Tick', TICK_COLUMNS),
  headers: {
    'x-next-cursor': { type: 'string', description: 'cursor of the next page, when more ticks follow' },
    link: { type: 'string', description: 'the next page as <url>; rel="next", when more ticks follow' },
  },
};

const CURSOR = /^([0-9]{1,19})-([0-9]{1,5})-([0-9]{1,20})$/;

interface IdParams {
  securityId: number;
}

export function registerInstrumentRoutes(app: FastifyInstance, ctx: ApiContext): void {
  registerInstrumentStateRoutes(app, ctx);
  registerTickRoutes(app, ctx);
  registerBarRoutes(app, ctx);
}

/** Instruments seen by the feed, one instrument's state, the market status. */
function registerInstrumentStateRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const tags = ['instruments'];
  const listLimit = {
    type: 'integer',
    minimum: 1,
    maximum: ctx.config.query.maxListRows,
    default: 1_000,
    description: 'instruments in one answer',
  } as const;

  app.get<{ Querystring: { limit: number; offset: number; format?: OutputFormat } }>(
    '/v1/instruments',
    {
      schema: routeDoc({
        operationId: 'listInstruments',
        tags,
        summary: 'Instruments seen by the feed with their latest state',
        description:
          'Last trade, previous close, change, circuit limits and 52-week range of every instrument in the live tables.',
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            limit: listLimit,
            offset: {
              type: 'integer',
              minimum: 0,
              maximum: 100_000_000,
              default: 0,
              description: 'instruments to skip (by security id order)',
            },
            ...FORMAT_PROPERTY,
          },
        },
        responses: { 200: tabularResponse('InstrumentState', LATEST_STATE_COLUMNS) },
        errors: [406],
      }),
    },
    async (request, reply) => {
      const { limit, offset } = request.query;
      const format = outputFormatOf(request);
      return cachedTabular(
        ctx,
        reply,
        `instruments|${limit}|${offset}`,
        ctx.config.cache.liveTtlMs,
        { sql: LATEST_STATE_SQL, params: { filter: 0, sid: 0, limit, offset }, format },
        'instruments',
      );
    },
  );

  app.get<{ Params: IdParams }>(
    '/v1/instruments/:securityId',
    {
      // The schema documents ClickHouse's rows; they leave as ClickHouse wrote them.
      serializerCompiler: asIsSerializer,
      schema: routeDoc({
        operationId: 'getInstrument',
        tags,
        summary: 'One instrument: last trade, previous close, circuit limits, 52-week range, market status',
        params: SECURITY_ID_PARAMS,
        responses: { 200: INSTRUMENT_STATE },
      }),
    },
    async (request) => {
      const { securityId } = request.params;
      const [rows, status] = [
        await ctx.runner.rows<Record<string, unknown>>(LATEST_STATE_SQL, {
          filter: 1,
          sid: securityId,
          limit: 1,
          offset: 0,
        }),
        await ctx.runner.rows<Record<string, unknown>>(MARKET_STATUS_SQL),
      ];
      const row = rows[0];
      if (!row) throw notFound(`instrument ${securityId} has no ticks or reference data`);
      return { ...row, market_status: status };
    },
  );

  app.get(
    '/v1/market-status',
    {
      serializerCompiler: asIsSerializer,
      schema: routeDoc({
        operationId: 'getMarketStatus',
        tags,
        summary: 'Latest market status packet per segment',
        responses: {
          200: {
            title: 'MarketStatusList',
            type: 'object',
            required: ['segments'],
            properties: { segments: { type: 'array', items: MARKET_STATUS_ROW } },
          },
        },
      }),
    },
    async () => ({ segments: await ctx.runner.rows(MARKET_STATUS_SQL) }),
  );
}

/** Ticks of an instrument, paged. */
function registerTickRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const tags = ['instruments'];
  app.get<{
    Params: IdParams;
    Querystring: { from: string; to?: string; limit?: number; cursor?: string; format?: OutputFormat };
  }>(
    '/v1/instruments/:securityId/ticks',
    {
      schema: routeDoc({
        operationId: 'getTicks',
        tags,
        summary: 'Ticks of an instrument in a receive-time range, paged',
        description:
          'Ordered by receive time. When more rows follow, the x-next-cursor header (and a Link rel="next") gives the cursor of the next page.',
        params: SECURITY_ID_PARAMS,
        responses: { 200: TICKS_RESPONSE },
        errors: [406],
        querystring: rangeQuerystring({
          limit: {
            type: 'integer',
            minimum: 1,
            maximum: ctx.config.query.maxTickPage,
            description: `ticks in one page (default ${ctx.config.query.defaultTickPage})`,
          },
          cursor: {
            type: 'string',
            pattern: CURSOR.source,
            description: 'from x-next-cursor of the previous page',
          },
          ...FORMAT_PROPERTY,
        }),
      }),
    },
    async (request, reply) => {
      const { securityId } = request.params;
      const q = request.query;
      const format = outputFormatOf(request);
      const range = parseRange(q.from, q.to, ctx.now());
      const limit = q.limit ?? ctx.config.query.defaultTickPage;
      const cursor = q.cursor === undefined ? undefined : CURSOR.exec(q.cursor);
      const params = {
        sid: securityId,
        fromMs: range.fromMs,
        toMs: range.toMs,
        cT: cursor ? cursor[1] : '0',
        cP: cursor ? Number(cursor[2]) : 0,
        cO: cursor ? cursor[3] : '0',
        limit,
      };
      if (!(await ctx.instruments.has(securityId))) throw notFound(`instrument ${securityId} is not known`);
      const next = await ctx.runner.rows<{ t: number | string; p: number; o: number | string }>(
        `SELECT toUnixTimestamp64Micro(received_at) AS t, kafka_partition AS p, kafka_offset AS o
         FROM ${FEED_TABLES.ticks.name} WHERE ${TICKS_WHERE}
         ORDER BY received_at, kafka_partition, kafka_offset LIMIT 1 OFFSET {limit:UInt32}`,
        params,
      );
      const first = next[0];
      if (first) {
        const token = `${first.t}-${first.p}-${first.o}`;
        reply.header('x-next-cursor', token);
        const url = new URL(request.url, 'http://local');
        url.searchParams.set('cursor', token);
        reply.header('link', `<${url.pathname}${url.search}>; rel="next"`);
      }
      return streamedTabular(
        ctx,
        reply,
        {
          // quantity last: a reader of the columns before it (by position too) reads them as before.
          sql: `SELECT received_at, toDateTime64(ltt, 0, 'UTC') AS ltt, toDateTime64(lut, 0, 'UTC') AS lut, ltp, volume, segment, quantity FROM ${FEED_TABLES.ticks.name} WHERE ${TICKS_WHERE}
                ORDER BY received_at, kafka_partition, kafka_offset LIMIT {limit:UInt32}`,
          params,
          format,
        },
        `ticks-${securityId}`,
      );
    },
  );
}

/** The query of the bars routes. */
interface BarsRoute extends RouteGenericInterface {
  Params: IdParams;
  Querystring: { from: string; to?: string; interval: string; format?: OutputFormat };
}

const BARS_QUERYSTRING = rangeQuerystring({
  interval: {
    ...DURATION_SCHEMA,
    default: '1m',
    description: `bar length: ${DURATION_SCHEMA.description}, 1s to 1d`,
  },
  ...FORMAT_PROPERTY,
});

/** OHLCV bars resampled from ticks; also as Parquet and Arrow downloads (http/binary-downloads.ts). */
function registerBarRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const tags = ['instruments'];
  const summary = 'OHLCV bars with VWAP and trade count, resampled from ticks (1 s to 1 day)';
  const handler = barsHandler(ctx);
  app.get<BarsRoute>(
    '/v1/instruments/:securityId/bars',
    {
      schema: routeDoc({
        operationId: 'getBars',
        tags,
        summary,
        description:
          "Bars by trade time. volume is the traded quantity in the bar (from the cumulative day volume: a trade's quantity is its volume minus that of the instrument's trade received before it on the same UTC day, in the range or not), vwap is null for a bar without traded quantity. json, ndjson and csv answers of requests that arrive together may come from one statement: json's statistics then hold that statement's elapsed time only. Declared bytes first, so generated clients return the answer's bytes in every format (pandas reads format=parquet; json.loads reads json); getBarsParquet and getBarsArrow answer one binary format each.",
        params: SECURITY_ID_PARAMS,
        querystring: BARS_QUERYSTRING,
        responses: { 200: bytesFirstResponse(tabularResponse('Bar', BAR_COLUMNS)) },
        errors: [406],
      }),
    },
    handler,
  );
  registerDownloads<BarsRoute>(
    app,
    {
      path: '/v1/instruments/:securityId/bars',
      operationId: 'getBars',
      summary,
      tags,
      params: SECURITY_ID_PARAMS,
      querystring: BARS_QUERYSTRING,
    },
    handler,
  );
}

function barsHandler(ctx: ApiContext) {
  return async (request: FastifyRequest<BarsRoute>, reply: FastifyReply): Promise<FastifyReply> => {
    const { securityId } = request.params;
    const q = request.query;
    const format = outputFormatOf(request);
    const step = parseDurationSec('interval', q.interval, 1, 86_400);
    const range = parseRange(q.from, q.to, ctx.now());
    const fromSec = Math.floor(range.fromMs / 1000);
    const toSec = Math.ceil(range.toMs / 1000);
    if ((toSec - fromSec) / step > ctx.config.query.maxBars) {
      throw badRequest(
        'interval',
        `asks for more than ${ctx.config.query.maxBars} bars: use a longer interval or a shorter range`,
      );
    }
    if (!(await ctx.instruments.has(securityId))) throw notFound(`instrument ${securityId} is not known`);
    const query = { sql: BARS_SQL, params: { sid: securityId, step, fromSec, toSec }, format };
    const asked = { securityId, step, fromSec, toSec };
    // Inside the hot window, memory answers (hot-tier/hot-bars.ts); the answer is the same bytes.
    // Outside it, text answers are folded with other requests waiting for the engine (bars-folding.ts).
    const tier = ctx.hot.tier;
    const hot = tierFor(tier, asked);
    ctx.hot.metrics.answers.inc({ tier: hot ?? 'clickhouse' });
    const answer =
      tier !== undefined && hot !== undefined
        ? () => hotBars(tier, ctx.runner, asked, hot, format)
        : isRowTextFormat(format)
          ? () => ctx.bars.answer(asked, format)
          : () => ctx.runner.buffer(query);
    return cachedTabular(
      ctx,
      reply,
      `bars|${securityId}|${step}|${fromSec}|${toSec}`,
      ttlFor(ctx, range.toMs),
      query,
      `bars-${securityId}-${q.interval}`,
      answer,
    );
  };
}
