/**
 * Fills and end-of-day snapshots, read from the store (market.fills, market.account_snapshots)
 * with a trading key: the day's trades, the trades of one order, paged trade history over a date
 * range (the service's paths, under /v1), a read of the trade book now, and the snapshots.
 * A key sees the fills of its own orders (a supervisor every fill); snapshots are the account's.
 */

import type { StoreLane } from '@feedpipe/store';
import { TradingGatewayError } from '../errors.js';
import { ACCOUNT_SNAPSHOTS, FILL_LIST, FILL_SYNC, SNAPSHOT_TAKEN } from '../orders/response-schemas.js';
import { readOrderSpec, readSpec } from '../orders/route-specs.js';
import type { RouteSpec, TradeCall } from '../orders/trade-route.js';
import { type AccountSnapshots, SNAPSHOT_KINDS, type SnapshotKind } from './account-snapshots.js';
import { istDate } from './fill-record.js';
import type { FillRecorder } from './fill-recorder.js';
import { type FillQuery, readFills } from './fills-table.js';

export interface FillRouteDeps {
  store: StoreLane;
  recorder: FillRecorder | undefined;
  snapshots: AccountSnapshots | undefined;
  now: () => number;
}

/** A real calendar day (strict-validation.ts checks `date`): 2026-02-30 is a 400. */
const DATE = { type: 'string', format: 'date', description: 'YYYY-MM-DD (IST trading day)' };
/** Most fills one answer holds: a day's book of one account stays far below. */
const MAX_FILLS = 10_000;
const HISTORY_PARAMS = {
  type: 'object',
  properties: {
    fromDate: { ...DATE, description: 'first trading day, YYYY-MM-DD (inclusive)' },
    toDate: { ...DATE, description: 'last trading day, YYYY-MM-DD (inclusive)' },
    page: { type: 'integer', minimum: 0, maximum: 100_000, description: 'page number, from 0' },
  },
  required: ['fromDate', 'toDate', 'page'],
} as const;
const PAGE_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    pageSize: { type: 'integer', minimum: 1, maximum: 1000, default: 100, description: 'fills per page' },
  },
} as const;
const SNAPSHOT_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    date: { ...DATE, description: 'trading day, YYYY-MM-DD (default: today, IST)' },
    kind: { type: 'string', enum: [...SNAPSHOT_KINDS], description: 'one kind (default: every kind)' },
  },
} as const;

/** Reads fills the caller may see; a store that cannot answer is 503 STORE_UNAVAILABLE. */
async function fillsOf(deps: FillRouteDeps, call: TradeCall, query: Omit<FillQuery, 'ownedBy'>) {
  const ownedBy = call.caller.supervisor ? undefined : call.desk.owners.ownedOrderIds(call.caller.keyId);
  try {
    return await readFills(deps.store, { ...query, ownedBy });
  } catch (error) {
    throw new TradingGatewayError('STORE_UNAVAILABLE', 'fills cannot be read right now', {
      cause: error,
      retryable: true,
    });
  }
}

function need<T>(value: T | undefined): T {
  if (value === undefined) {
    throw new TradingGatewayError(
      'TRADING_DISABLED',
      'fills are disabled: this gateway runs without a broker client',
    );
  }
  return value;
}

/** A spec whose route can also answer other errors (a date range the wrong way round is 400). */
function withErrors(spec: RouteSpec, errors: RouteSpec['doc']['errors']): RouteSpec {
  return { ...spec, doc: { ...spec.doc, errors } };
}

/** The fill and snapshot routes, a table like the order and account routes. */
export function fillRoutes(deps: FillRouteDeps): readonly RouteSpec[] {
  const tags = ['trades'];
  const aTags = ['account'];
  const page = (call: TradeCall) => {
    const p = call.request.params as { fromDate: string; toDate: string; page: number };
    const { pageSize } = call.request.query as { pageSize: number };
    if (p.fromDate > p.toDate) {
      throw new TradingGatewayError('BAD_REQUEST', 'fromDate must not be after toDate', {
        field: 'fromDate',
      });
    }
    return { fromDate: p.fromDate, toDate: p.toDate, limit: pageSize, offset: p.page * pageSize };
  };
  return [
    readSpec(
      '/v1/trades',
      {
        tags,
        operationId: 'listTrades',
        summary: "The day's fills (IST): the key's own orders' (a supervisor's: all)",
        response: FILL_LIST,
      },
      (call) => {
        const today = istDate(deps.now());
        return fillsOf(deps, call, { fromDate: today, toDate: today, limit: MAX_FILLS, offset: 0 });
      },
    ),
    readOrderSpec(
      '/v1/trades/:orderId',
      {
        tags,
        operationId: 'listTradesOfOrder',
        summary: 'The stored fills of one order of the key',
        response: FILL_LIST,
      },
      (_broker, orderId, call) => fillsOf(deps, call, { orderId, limit: MAX_FILLS, offset: 0 }),
    ),
    withErrors(
      readSpec(
        '/v1/trades/:fromDate/:toDate/:page',
        {
          tags,
          operationId: 'listTradeHistory',
          summary:
            "Trade history: one page of the stored fills between two trading days, oldest first (the key's own orders', a supervisor's all)",
          response: FILL_LIST,
          params: HISTORY_PARAMS,
          querystring: PAGE_QUERY,
        },
        (call) => fillsOf(deps, call, page(call)),
      ),
      [400, 503],
    ),
    readSpec(
      '/v1/trades/sync',
      {
        tags,
        operationId: 'syncTrades',
        summary: "Read the day's trade book now and store the fills not stored yet",
        response: FILL_SYNC,
      },
      () => need(deps.recorder).sync('reconcile'),
      'POST',
    ),
    readSpec(
      '/v1/account/snapshots',
      {
        tags: aTags,
        operationId: 'listAccountSnapshots',
        summary: 'End-of-day snapshots of positions, holdings, funds and the ledger (one day)',
        response: ACCOUNT_SNAPSHOTS,
        querystring: SNAPSHOT_QUERY,
      },
      async (call) => {
        const q = call.request.query as { date?: string; kind?: SnapshotKind };
        const snapshotDate = q.date ?? istDate(deps.now());
        return { snapshotDate, snapshots: await need(deps.snapshots).read(snapshotDate, q.kind) };
      },
    ),
    readSpec(
      '/v1/account/snapshots',
      {
        tags: aTags,
        operationId: 'takeAccountSnapshot',
        summary: "Snapshot the account now (today's row of each kind is replaced)",
        response: SNAPSHOT_TAKEN,
      },
      () => need(deps.snapshots).take(),
      'POST',
    ),
  ];
}
