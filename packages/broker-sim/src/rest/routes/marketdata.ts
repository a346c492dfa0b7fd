/**
 * Market snapshots: /marketfeed/ltp, /ohlc, /quote. Body: `{ "<segment>": [ids...] }` with at
 * most 1000 instruments in all (804 beyond). Response: `{ data: { <segment>: { <id>: {...} } },
 * status: "success" }`. Option contracts (NSE_FNO) are those an option chain has listed.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { formatIstDmyHms, istDay } from '../../history/calendar.js';
import { toTick } from '../../history/day-bars.js';
import { hashKeys } from '../../history/random.js';
import type { SimContext } from '../context.js';
import { dataError } from '../errors.js';
import { asFields, optArray } from '../input.js';
import { asDataInput, dataAccount } from './data-common.js';

/** Spec: up to 1000 instruments per snapshot request. */
export const MAX_SNAPSHOT_INSTRUMENTS = 1000;
const SEGMENTS = ['NSE_EQ', 'NSE_FNO', 'BSE_EQ', 'IDX_I'] as const;
/**
 * Identity fields a client sends in every body (the official SDK adds `svcClientId` to each one):
 * not segments. The token decides the account, as on every other endpoint.
 */
const IDENTITY_FIELDS: readonly string[] = ['svcClientId'];

interface Snap {
  ltp: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  ltt: number;
  tick: number;
  upper: number;
  lower: number;
  oi: number;
}

/** An option contract's snapshot, priced from its underlying's quote (NSE_FNO). */
function optionSnap(ctx: SimContext, id: number): Snap | undefined {
  const c = ctx.history.options.contract(id);
  if (!c) return undefined;
  const spot = ctx.market.quote(c.underlying.securityId);
  if (!spot) return undefined;
  const nowS = ctx.now() / 1000;
  const t = ctx.history.options.yearsTo(c.expiryDay, nowS);
  const at = (s: number) => ctx.history.options.value(c.underlying, c.strike, c.call, s, t).price;
  const ltp = at(spot.ltp);
  const a = at(spot.open);
  const b = at(spot.high);
  const d = at(spot.low);
  const oi = ctx.history.options.oi(c.underlying, c.expiryDay, c.strike, c.call, 0, istDay(nowS));
  return {
    ltp,
    open: a,
    high: Math.max(a, b, d, ltp),
    low: Math.min(a, b, d, ltp),
    close: at(spot.prevClose),
    volume: Math.round(oi * 0.7),
    ltt: spot.lastTradeTime,
    tick: 0.05,
    upper: 0,
    lower: 0,
    oi,
  };
}

/** The snapshot of an instrument in `segment`; undefined when there is no such instrument there. */
function snapOf(ctx: SimContext, segment: string, id: number): Snap | undefined {
  if (segment === 'NSE_FNO') return optionSnap(ctx, id);
  const inst = ctx.market.instrument(id);
  if (!inst || inst.exchangeSegment !== segment) return undefined;
  const q = ctx.market.quote(id);
  if (!q) return undefined;
  return {
    ltp: q.ltp,
    open: q.open,
    high: q.high,
    low: q.low,
    close: q.prevClose,
    volume: q.volume,
    ltt: q.lastTradeTime,
    tick: inst.tickSize,
    upper: q.upperCircuit,
    lower: q.lowerCircuit,
    oi: 0,
  };
}

/** The request body as (segment, ids) pairs, with the spec's data error codes for what is wrong. */
function readInstruments(body: unknown): Array<[string, number[]]> {
  return asDataInput(() => {
    const f = asFields(body);
    const out: Array<[string, number[]]> = [];
    let total = 0;
    for (const seg of Object.keys(f)) {
      if (IDENTITY_FIELDS.includes(seg)) continue;
      if (!(SEGMENTS as readonly string[]).includes(seg))
        throw dataError('814', `Unsupported segment ${seg}`);
      const ids = asDataInput(() => optArray(f, seg));
      if (ids === undefined) throw dataError('814', `${seg} must be an array of security ids`);
      total += ids.length;
      if (total > MAX_SNAPSHOT_INSTRUMENTS) {
        throw dataError('804', `Too many instruments: at most ${MAX_SNAPSHOT_INSTRUMENTS} per request`);
      }
      const nums = ids.map((x) => Number(x));
      if (nums.some((n) => !Number.isInteger(n) || n <= 0))
        throw dataError('813', `Invalid security id in ${seg}`);
      out.push([seg, nums]);
    }
    if (total === 0) throw dataError('814', 'No instruments requested');
    return out;
  });
}

type Shape = (s: Snap, seg: string, id: number) => Record<string, unknown>;

/** A snapshot route: every requested instrument's snapshot in the route's shape. */
function snapshotHandler(ctx: SimContext, shape: Shape) {
  return async (request: FastifyRequest) => {
    dataAccount(request);
    const data: Record<string, Record<string, Record<string, unknown>>> = {};
    for (const [seg, ids] of readInstruments(request.body)) {
      const segOut: Record<string, Record<string, unknown>> = {};
      for (const id of ids) {
        const s = snapOf(ctx, seg, id);
        if (!s) throw dataError('813', `Invalid security id ${id} for ${seg}`);
        segOut[String(id)] = shape(s, seg, id);
      }
      data[seg] = segOut;
    }
    return { data, status: 'success' };
  };
}

const ohlcOf = (s: Snap) => ({ open: s.open, close: s.close, high: s.high, low: s.low });

/** The full quote: five levels of depth, derived from the seed and the minute so repeats agree. */
function quoteOf(ctx: SimContext, s: Snap, id: number): Record<string, unknown> {
  const minute = Math.floor(ctx.now() / 60_000);
  const level = (side: number, k: number) => ({
    quantity: 1 + (hashKeys(ctx.market.seed, id, minute, side, k) % 5000),
    orders: 1 + (hashKeys(ctx.market.seed, id, minute, side, k, 1) % 40),
    price: toTick(s.ltp + (side === 0 ? -(k + 1) : k + 1) * s.tick, s.tick),
  });
  const buy = [0, 1, 2, 3, 4].map((k) => level(0, k));
  const sell = [0, 1, 2, 3, 4].map((k) => level(1, k));
  const sum = (xs: Array<{ quantity: number }>) => xs.reduce((a, x) => a + x.quantity, 0);
  return {
    average_price: toTick((s.open + s.high + s.low + s.ltp) / 4, s.tick),
    buy_quantity: sum(buy) * 10,
    sell_quantity: sum(sell) * 10,
    depth: { buy, sell },
    last_price: s.ltp,
    last_quantity: 1 + (hashKeys(ctx.market.seed, id, minute) % 500),
    last_trade_time: s.ltt > 0 ? formatIstDmyHms(s.ltt * 1000) : '01/01/1980 00:00:00',
    lower_circuit_limit: s.lower,
    upper_circuit_limit: s.upper,
    net_change: Math.round((s.ltp - s.close) * 100) / 100,
    ohlc: ohlcOf(s),
    oi: s.oi,
    oi_day_high: s.oi,
    oi_day_low: s.oi,
    volume: s.volume,
  };
}

export function registerMarketDataRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.post(
    '/marketfeed/ltp',
    snapshotHandler(ctx, (s) => ({ last_price: s.ltp })),
  );
  app.post(
    '/marketfeed/ohlc',
    snapshotHandler(ctx, (s) => ({ last_price: s.ltp, ohlc: ohlcOf(s) })),
  );
  app.post(
    '/marketfeed/quote',
    snapshotHandler(ctx, (s, _seg, id) => quoteOf(ctx, s, id)),
  );
}
