/**
 * Cross-instrument views over a window, read from market.bars_1m (one row per instrument and
 * minute, so a window of an hour reads 60 rows per instrument instead of every tick). Change is
 * last price against the window's first; volume per day is max(vol_max) - min(vol_min) of the
 * day's bars in the window (the cumulative volume resets daily), which leaves out the quantity of
 * the window's first trade of each day. Sort keys come from allow-lists, never from the request.
 */
import { FEED_TABLES } from '@feedpipe/contracts';
import { routeDoc } from '@feedpipe/service-http';
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.js';
import { FORMAT_PROPERTY } from '../http/schemas.js';
import { tabularResponse } from '../http/tabular-doc.js';
import type { OutputFormat } from '../query/formats.js';
import { outputFormatOf } from '../query/negotiation.js';
import { DURATION_SCHEMA, parseDurationSec, parseInstant, TIME_SCHEMA } from '../query/time.js';
import { cachedTabular, ttlFor } from './tabular-reply.js';

const WINDOW_SQL = `
SELECT security_id, first_price, last_price,
       (last_price - first_price) / first_price * 100 AS change_pct,
       trades, volume
FROM (
  SELECT security_id, argMin(first_p, day) AS first_price, argMax(last_p, day) AS last_price,
         sum(day_trades) AS trades, sum(day_volume) AS volume
  FROM (
    SELECT security_id, toDate(minute) AS day, argMinMerge(open) AS first_p, argMaxMerge(close) AS last_p,
           sum(trades) AS day_trades, toInt64(max(vol_max)) - toInt64(min(vol_min)) AS day_volume
    FROM ${FEED_TABLES.bars1m.name}
    WHERE minute >= toDateTime({fromSec:UInt32}, 'UTC') AND minute < toDateTime({toSec:UInt32}, 'UTC')
    GROUP BY security_id, day)
  GROUP BY security_id)
WHERE first_price > 0`;

/** The columns of WINDOW_SQL. */
const WINDOW_COLUMNS = {
  security_id: 'UInt32',
  first_price: 'Float32',
  last_price: 'Float32',
  change_pct: 'Float64',
  trades: 'UInt64',
  volume: 'Int64',
} as const;

const MOVER_ORDER = { gainers: 'change_pct DESC', losers: 'change_pct ASC' } as const;
const ACTIVE_ORDER = { trades: 'trades DESC', volume: 'volume DESC' } as const;

/** The two rankings: route, document, the query parameter that picks the order, its orders. */
const RANKINGS = [
  {
    path: '/v1/movers',
    doc: {
      operationId: 'getMovers',
      summary: 'Top movers: largest price change over a window',
      row: 'Mover',
      paramDescription: 'gainers (largest rise first) or losers (largest fall first)',
    },
    param: 'direction',
    orders: MOVER_ORDER,
    defaultOrder: 'gainers',
    name: 'movers',
  },
  {
    path: '/v1/most-active',
    doc: {
      operationId: 'getMostActive',
      summary: 'Most active instruments by trade count or traded volume over a window',
      row: 'MostActive',
      paramDescription: 'rank by trade count (trades) or traded quantity (volume)',
    },
    param: 'by',
    orders: ACTIVE_ORDER,
    defaultOrder: 'trades',
    name: 'most-active',
  },
] as const;

interface WindowQuery {
  window: string;
  to?: string;
  limit: number;
  format?: OutputFormat;
}

export function registerMarketRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const tags = ['market'];
  const common = {
    window: {
      ...DURATION_SCHEMA,
      default: '1d',
      description: 'length of the window ending at `to` (1m to 31d)',
    },
    to: { ...TIME_SCHEMA, description: `${TIME_SCHEMA.description}; default now` },
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: ctx.config.query.maxListRows,
      default: 20,
      description: 'instruments in the ranking',
    },
    ...FORMAT_PROPERTY,
  } as const;

  function windowOf(q: WindowQuery): { fromSec: number; toSec: number; toMs: number } {
    const seconds = parseDurationSec('window', q.window, 60, 31 * 86_400);
    const toMs = q.to === undefined ? ctx.now() : parseInstant('to', q.to);
    const toSec = Math.ceil(toMs / 1000);
    return { fromSec: Math.max(0, toSec - seconds), toSec, toMs };
  }

  /**
   * A ranking of instruments over the window: the route takes the order from `orders` by the query
   * parameter `param`; `name` names the cache entries and the download.
   */
  function rankedRoute(
    path: string,
    doc: { operationId: string; summary: string; row: string; paramDescription: string },
    param: string,
    orders: Readonly<Record<string, string>>,
    defaultOrder: string,
    name: string,
  ): void {
    app.get<{ Querystring: WindowQuery & Record<string, string> }>(
      path,
      {
        schema: routeDoc({
          operationId: doc.operationId,
          tags,
          summary: doc.summary,
          querystring: {
            type: 'object',
            additionalProperties: false,
            properties: {
              ...common,
              [param]: {
                type: 'string',
                enum: Object.keys(orders),
                default: defaultOrder,
                description: doc.paramDescription,
              },
            },
          },
          responses: { 200: tabularResponse(doc.row, WINDOW_COLUMNS) },
          errors: [406],
        }),
      },
      async (request, reply) => {
        const q = request.query;
        const format = outputFormatOf(request);
        const choice = q[param] as string;
        const w = windowOf(q);
        return cachedTabular(
          ctx,
          reply,
          `${name}|${choice}|${w.fromSec}|${w.toSec}|${q.limit}`,
          ttlFor(ctx, w.toMs),
          {
            sql: `${WINDOW_SQL} ORDER BY ${orders[choice]}, security_id LIMIT {limit:UInt32}`,
            params: { fromSec: w.fromSec, toSec: w.toSec, limit: q.limit },
            format,
          },
          `${name}-${choice}`,
        );
      },
    );
  }

  for (const r of RANKINGS) rankedRoute(r.path, r.doc, r.param, r.orders, r.defaultOrder, r.name);
}
