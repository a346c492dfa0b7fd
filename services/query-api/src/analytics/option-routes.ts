/**
 * Option chains (snapshots by the history loader) and expired-options series. The "latest" chain
 * of an expiry is its newest snapshot slot; without an expiry the nearest one on or after the
 * latest snapshot's day is used. Reads use FINAL (see history-routes.ts).
 */
import { HISTORY_TABLES } from '@feedpipe/contracts';
import { asIsSerializer, routeDoc } from '@feedpipe/service-http';
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.js';
import { notFound } from '../errors.js';
import { FORMAT_PROPERTY, UNDERLYING_PARAMS } from '../http/schemas.js';
import { tabularResponse } from '../http/tabular-doc.js';
import type { OutputFormat } from '../query/formats.js';
import { outputFormatOf } from '../query/negotiation.js';
import { parseRange, rangeQuerystring } from '../query/time.js';
import { FINAL_SETTINGS } from './history-routes.js';
import { cachedTabular, ttlFor } from './tabular-reply.js';

const DATE_SCHEMA = {
  type: 'string',
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
  // ajv's `date` format checks the calendar: 2024-02-30 is a 400, not an empty answer.
  format: 'date',
  description: 'YYYY-MM-DD',
} as const;

const EXPIRY = {
  ...DATE_SCHEMA,
  description: 'expiry date (YYYY-MM-DD); default: the nearest expiry on or after the newest snapshot',
} as const;

/** The expiry asked for, or the nearest expiry on or after the day of the newest snapshot. */
const EXPIRY_EXPR = `if({expiry:String} != '', toDateOrZero({expiry:String}),
  (SELECT min(expiry) FROM ${HISTORY_TABLES.optionChainSnapshots.name}
   WHERE underlying_id = {uid:UInt32} AND expiry >= (SELECT toDate(max(slot)) FROM ${HISTORY_TABLES.optionChainSnapshots.name} WHERE underlying_id = {uid:UInt32})))`;

const LATEST_SLOT = `(SELECT max(slot) FROM ${HISTORY_TABLES.optionChainSnapshots.name}
  WHERE underlying_id = {uid:UInt32} AND expiry = ${EXPIRY_EXPR})`;

const CHAIN_COLUMNS = `expiry, toDateTime64(slot, 0, 'UTC') AS slot_time, snapshot_at, strike, side, underlying_price, option_security_id, last_price,
  average_price, previous_close_price, implied_volatility, delta, theta, gamma, vega, oi, previous_oi,
  volume, previous_volume, top_bid_price, top_bid_quantity, top_ask_price, top_ask_quantity`;

const LATEST_WHERE = `underlying_id = {uid:UInt32} AND expiry = ${EXPIRY_EXPR} AND slot = ${LATEST_SLOT}`;

const VIEWS = {
  chain: {
    operationId: 'getOptionChain',
    row: 'OptionChain',
    columns: {
      expiry: 'Date',
      slot_time: "DateTime64(0, 'UTC')",
      snapshot_at: "DateTime64(3, 'UTC')",
      strike: 'Float64',
      side: "Enum8('CE' = 1, 'PE' = 2)",
      underlying_price: 'Float64',
      option_security_id: 'UInt32',
      last_price: 'Float64',
      average_price: 'Float64',
      previous_close_price: 'Float64',
      implied_volatility: 'Float64',
      delta: 'Float64',
      theta: 'Float64',
      gamma: 'Float64',
      vega: 'Float64',
      oi: 'Int64',
      previous_oi: 'Int64',
      volume: 'Int64',
      previous_volume: 'Int64',
      top_bid_price: 'Float64',
      top_bid_quantity: 'Int64',
      top_ask_price: 'Float64',
      top_ask_quantity: 'Int64',
    },
    summary: 'Latest option chain of an underlying for one expiry (every strike, calls and puts)',
    sql: `SELECT ${CHAIN_COLUMNS} FROM ${HISTORY_TABLES.optionChainSnapshots.name} FINAL WHERE ${LATEST_WHERE} ORDER BY strike, side`,
  },
  smile: {
    operationId: 'getOptionSmile',
    row: 'OptionSmile',
    columns: {
      expiry: 'Date',
      slot: "DateTime('UTC')",
      strike: 'Float64',
      call_iv: 'Float64',
      put_iv: 'Float64',
      underlying_price: 'Float64',
    },
    summary: 'IV smile of the latest snapshot: implied volatility by strike for calls and puts',
    sql: `SELECT expiry, slot, strike, anyIf(implied_volatility, side = 'CE') AS call_iv,
            anyIf(implied_volatility, side = 'PE') AS put_iv, any(underlying_price) AS underlying_price
          FROM ${HISTORY_TABLES.optionChainSnapshots.name} FINAL WHERE ${LATEST_WHERE}
          GROUP BY expiry, slot, strike ORDER BY strike`,
  },
  oi: {
    operationId: 'getOptionOpenInterest',
    row: 'OptionOpenInterest',
    columns: {
      expiry: 'Date',
      slot: "DateTime('UTC')",
      strike: 'Float64',
      call_oi: 'Int64',
      put_oi: 'Int64',
      call_oi_change: 'Int64',
      put_oi_change: 'Int64',
    },
    summary: 'Open interest by strike of the latest snapshot, with the change from the previous day',
    sql: `SELECT expiry, slot, strike, sumIf(oi, side = 'CE') AS call_oi, sumIf(oi, side = 'PE') AS put_oi,
            sumIf(oi - previous_oi, side = 'CE') AS call_oi_change, sumIf(oi - previous_oi, side = 'PE') AS put_oi_change
          FROM ${HISTORY_TABLES.optionChainSnapshots.name} FINAL WHERE ${LATEST_WHERE}
          GROUP BY expiry, slot, strike ORDER BY strike`,
  },
} as const;

const HISTORY_COLUMNS = {
  expiry: 'Date',
  slot_time: "DateTime64(0, 'UTC')",
  spot: 'Float64',
  put_oi: 'Int64',
  call_oi: 'Int64',
  pcr_oi: 'Nullable(Float64)',
  put_volume: 'Int64',
  call_volume: 'Int64',
  pcr_volume: 'Nullable(Float64)',
  atm_iv: 'Float64',
} as const;

const EXPIRED_COLUMNS = {
  time: "DateTime64(0, 'UTC')",
  exchange_segment: 'LowCardinality(String)',
  instrument: 'LowCardinality(String)',
  expiry_flag: "Enum8('WEEK' = 1, 'MONTH' = 2)",
  expiry_code: 'UInt8',
  option_type: "Enum8('CALL' = 1, 'PUT' = 2)",
  strike_offset: 'Int8',
  interval: 'UInt8',
  open: 'Float64',
  high: 'Float64',
  low: 'Float64',
  close: 'Float64',
  iv: 'Float64',
  volume: 'Int64',
  oi: 'Int64',
  strike: 'Float64',
  spot: 'Float64',
} as const;

const EXPIRY_LIST = {
  title: 'ExpiryList',
  type: 'object',
  required: ['underlyingId', 'asOf', 'expiries'],
  properties: {
    underlyingId: { type: 'integer', description: 'security id of the underlying' },
    asOf: { type: 'string', format: 'date', description: 'day the expiry list was loaded for' },
    expiries: {
      type: 'array',
      items: { type: 'string', format: 'date' },
      description: 'YYYY-MM-DD, ascending',
    },
  },
} as const;

/** The filters of the expired-options series. */
const EXPIRED_QUERY = rangeQuerystring({
  instrument: {
    type: 'string',
    enum: ['OPTIDX', 'OPTSTK'],
    description: 'index (OPTIDX) or stock (OPTSTK) options; default: both',
  },
  expiryFlag: {
    type: 'string',
    enum: ['WEEK', 'MONTH'],
    description: 'weekly or monthly expiries; default: both',
  },
  expiryCode: {
    type: 'integer',
    enum: [1, 2, 3],
    description: 'near (1), next (2) or far (3) expiry; default: all',
  },
  optionType: {
    type: 'string',
    enum: ['CALL', 'PUT'],
    description: 'calls or puts; default: both',
  },
  strikeOffset: {
    type: 'integer',
    minimum: -10,
    maximum: 10,
    description: 'strikes from ATM (0 = ATM); default: all',
  },
  interval: {
    type: 'integer',
    enum: [1, 5, 15, 30, 60],
    description: 'bar length in minutes; default: all',
  },
  ...FORMAT_PROPERTY,
});

interface ChainQuery {
  expiry?: string;
  format?: OutputFormat;
}

const tags = ['options'];
const params = UNDERLYING_PARAMS;

/** Answers 404 unless an option chain of the underlying was loaded. */
function underlyingCheck(ctx: ApiContext): (uid: number) => Promise<void> {
  return async function requireUnderlying(uid: number): Promise<void> {
    const rows = await ctx.runner.rows(
      `SELECT 1 FROM ${HISTORY_TABLES.optionChainSnapshots.name} WHERE underlying_id = {uid:UInt32} LIMIT 1`,
      {
        uid,
      },
    );
    if (rows.length === 0) throw notFound(`no option chain loaded for underlying ${uid}`);
  };
}

export function registerOptionRoutes(app: FastifyInstance, ctx: ApiContext): void {
  registerChainRoutes(app, ctx);
  registerExpiryRoutes(app, ctx);
  registerExpiredOptionRoutes(app, ctx);
}

/** The option-chain views and their history. */
function registerChainRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const requireUnderlying = underlyingCheck(ctx);
  for (const [name, view] of Object.entries(VIEWS)) {
    const path =
      name === 'chain' ? '/v1/option-chains/:underlyingId' : `/v1/option-chains/:underlyingId/${name}`;
    app.get<{ Params: { underlyingId: number }; Querystring: ChainQuery }>(
      path,
      {
        schema: routeDoc({
          operationId: view.operationId,
          tags,
          summary: view.summary,
          params,
          querystring: {
            type: 'object',
            additionalProperties: false,
            properties: { expiry: EXPIRY, ...FORMAT_PROPERTY },
          },
          responses: { 200: tabularResponse(view.row, view.columns) },
          errors: [406],
        }),
      },
      async (request, reply) => {
        const uid = request.params.underlyingId;
        const format = outputFormatOf(request);
        await requireUnderlying(uid);
        const expiry = request.query.expiry ?? '';
        return cachedTabular(
          ctx,
          reply,
          `oc-${name}|${uid}|${expiry}`,
          ctx.config.cache.liveTtlMs,
          { sql: view.sql, params: { uid, expiry }, format, settings: FINAL_SETTINGS },
          `${name}-${uid}`,
        );
      },
    );
  }

  app.get<{ Params: { underlyingId: number }; Querystring: ChainQuery & { from: string; to?: string } }>(
    '/v1/option-chains/:underlyingId/history',
    {
      schema: routeDoc({
        operationId: 'getOptionChainHistory',
        tags,
        summary: 'Option-chain history: put-call ratio (OI and volume) and ATM IV per snapshot',
        params,
        querystring: rangeQuerystring({
          expiry: { ...DATE_SCHEMA, description: 'only this expiry (YYYY-MM-DD); default: every expiry' },
          ...FORMAT_PROPERTY,
        }),
        responses: { 200: tabularResponse('OptionChainHistory', HISTORY_COLUMNS) },
        errors: [406],
      }),
    },
    async (request, reply) => {
      const uid = request.params.underlyingId;
      const q = request.query;
      const format = outputFormatOf(request);
      const range = parseRange(q.from, q.to, ctx.now());
      await requireUnderlying(uid);
      const fromSec = Math.floor(range.fromMs / 1000);
      const toSec = Math.ceil(range.toMs / 1000);
      return cachedTabular(
        ctx,
        reply,
        `oc-history|${uid}|${q.expiry ?? ''}|${fromSec}|${toSec}`,
        ttlFor(ctx, range.toMs),
        {
          sql: `SELECT expiry, toDateTime64(slot, 0, 'UTC') AS slot_time, any(underlying_price) AS spot,
                  sumIf(oi, side = 'PE') AS put_oi, sumIf(oi, side = 'CE') AS call_oi,
                  if(call_oi > 0, put_oi / call_oi, NULL) AS pcr_oi,
                  sumIf(volume, side = 'PE') AS put_volume, sumIf(volume, side = 'CE') AS call_volume,
                  if(call_volume > 0, put_volume / call_volume, NULL) AS pcr_volume,
                  argMin(implied_volatility, abs(strike - underlying_price)) AS atm_iv
                FROM ${HISTORY_TABLES.optionChainSnapshots.name} FINAL
                WHERE underlying_id = {uid:UInt32} AND ({expiry:String} = '' OR expiry = toDateOrZero({expiry:String}))
                  AND slot >= toDateTime({fromSec:UInt32}, 'UTC') AND slot < toDateTime({toSec:UInt32}, 'UTC')
                GROUP BY expiry, slot ORDER BY slot, expiry`,
          params: { uid, expiry: q.expiry ?? '', fromSec, toSec },
          format,
          settings: FINAL_SETTINGS,
        },
        `option-history-${uid}`,
      );
    },
  );
}

/** Expiry dates of an underlying. */
function registerExpiryRoutes(app: FastifyInstance, ctx: ApiContext): void {
  app.get<{ Params: { underlyingId: number } }>(
    '/v1/option-chains/:underlyingId/expiries',
    {
      serializerCompiler: asIsSerializer,
      schema: routeDoc({
        operationId: 'getExpiries',
        tags,
        summary: 'Expiry dates of an underlying, from the newest expiry list loaded',
        params,
        responses: { 200: EXPIRY_LIST },
      }),
    },
    async (request) => {
      const uid = request.params.underlyingId;
      const rows = await ctx.runner.rows<{ as_of_day: string; expiry_day: string }>(
        `SELECT toString(as_of) AS as_of_day, toString(expiry) AS expiry_day FROM ${HISTORY_TABLES.expiryLists.name} FINAL
         WHERE underlying_id = {uid:UInt32}
           AND as_of = (SELECT max(as_of) FROM ${HISTORY_TABLES.expiryLists.name} WHERE underlying_id = {uid:UInt32})
         ORDER BY expiry_day`,
        { uid },
      );
      if (rows.length === 0) throw notFound(`no expiry list loaded for underlying ${uid}`);
      return { underlyingId: uid, asOf: rows[0]?.as_of_day, expiries: rows.map((r) => r.expiry_day) };
    },
  );
}

/** Bars of expired option contracts. */
function registerExpiredOptionRoutes(app: FastifyInstance, ctx: ApiContext): void {
  app.get<{
    Params: { underlyingId: number };
    Querystring: {
      from: string;
      to?: string;
      instrument?: string;
      expiryFlag?: string;
      expiryCode?: number;
      optionType?: string;
      strikeOffset?: number;
      interval?: number;
      format?: OutputFormat;
    };
  }>(
    '/v1/expired-options/:underlyingId',
    {
      schema: routeDoc({
        operationId: 'getExpiredOptions',
        tags,
        summary: 'Expired-options series (per-minute bars relative to ATM) loaded from rolling-option data',
        params,
        querystring: EXPIRED_QUERY,
        responses: { 200: tabularResponse('ExpiredOption', EXPIRED_COLUMNS) },
        errors: [406],
      }),
    },
    async (request, reply) => {
      const uid = request.params.underlyingId;
      const q = request.query;
      const format = outputFormatOf(request);
      const range = parseRange(q.from, q.to, ctx.now());
      const exists = await ctx.runner.rows(
        `SELECT 1 FROM ${HISTORY_TABLES.expiredOptions.name} WHERE underlying_id = {uid:UInt32} LIMIT 1`,
        { uid },
      );
      if (exists.length === 0) throw notFound(`no expired-options data loaded for underlying ${uid}`);
      const fromSec = Math.floor(range.fromMs / 1000);
      const toSec = Math.ceil(range.toMs / 1000);
      const p = {
        uid,
        instrument: q.instrument ?? '',
        expiryFlag: q.expiryFlag ?? '',
        expiryCode: q.expiryCode ?? 0,
        optionType: q.optionType ?? '',
        strikeOffset: q.strikeOffset ?? 0,
        anyOffset: q.strikeOffset === undefined ? 1 : 0,
        interval: q.interval ?? 0,
        fromSec,
        toSec,
      };
      return cachedTabular(
        ctx,
        reply,
        `expired|${JSON.stringify(p)}`,
        ttlFor(ctx, range.toMs),
        {
          sql: `SELECT toDateTime64(ts, 0, 'UTC') AS time, exchange_segment, instrument, expiry_flag, expiry_code, option_type, strike_offset,
                  interval, open, high, low, close, iv, volume, oi, strike, spot
                FROM ${HISTORY_TABLES.expiredOptions.name} FINAL
                WHERE underlying_id = {uid:UInt32}
                  AND ({instrument:String} = '' OR instrument = {instrument:String})
                  AND ({expiryFlag:String} = '' OR toString(expiry_flag) = {expiryFlag:String})
                  AND ({expiryCode:UInt8} = 0 OR expiry_code = {expiryCode:UInt8})
                  AND ({optionType:String} = '' OR toString(option_type) = {optionType:String})
                  AND ({anyOffset:UInt8} = 1 OR strike_offset = {strikeOffset:Int8})
                  AND ({interval:UInt8} = 0 OR interval = {interval:UInt8})
                  AND ts >= toDateTime({fromSec:UInt32}, 'UTC') AND ts < toDateTime({toSec:UInt32}, 'UTC')
                ORDER BY ts, instrument, expiry_flag, expiry_code, option_type, strike_offset, interval`,
          params: p,
          format,
          settings: FINAL_SETTINGS,
        },
        `expired-options-${uid}`,
      );
    },
  );
}
