/**
 * A full snapshot quote as the service answers it (beyond-the-spec.md, "Market snapshot") into the
 * quote record of the contracts (published on the quotes topic) and the row of market.quotes.
 */
import type { FullQuote } from '@feedpipe/broker-api';
import { type DepthLevel, type QuoteRecord, REFERENCE_TABLES } from '@feedpipe/contracts';

const IST_OFFSET_S = 19_800;
const TRADE_TIME = /^(\d{2})\/(\d{2})\/(\d{4}) (\d{2}):(\d{2}):(\d{2})$/;
/** An untraded instrument shows 01/01/1980 00:00:00: no trade yet. */
const FIRST_REAL_YEAR = 1990;

/** `dd/MM/yyyy HH:mm:ss` in IST to epoch seconds; null for the untraded placeholder or a bad text. */
export function tradeTimeOf(text: string): number | null {
  const m = TRADE_TIME.exec(text);
  if (!m || Number(m[3]) < FIRST_REAL_YEAR) return null;
  const utc = Date.UTC(
    Number(m[3]),
    Number(m[2]) - 1,
    Number(m[1]),
    Number(m[4]),
    Number(m[5]),
    Number(m[6]),
  );
  return Number.isNaN(utc) ? null : utc / 1000 - IST_OFFSET_S;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const count = (v: unknown): number => Math.max(0, Math.round(num(v)));

function levels(side: unknown): DepthLevel[] {
  if (!Array.isArray(side)) return [];
  return side.slice(0, 5).map((l: { price?: unknown; quantity?: unknown; orders?: unknown }) => ({
    price: num(l?.price),
    quantity: count(l?.quantity),
    orders: count(l?.orders),
  }));
}

export function quoteRecord(
  segment: string,
  securityId: number,
  q: FullQuote,
  polledAt: number,
): QuoteRecord {
  return {
    securityId,
    exchangeSegment: segment,
    polledAt,
    lastPrice: num(q.last_price),
    lastQuantity: count(q.last_quantity),
    lastTradeTime: typeof q.last_trade_time === 'string' ? tradeTimeOf(q.last_trade_time) : null,
    averagePrice: num(q.average_price),
    volume: count(q.volume),
    buyQuantity: count(q.buy_quantity),
    sellQuantity: count(q.sell_quantity),
    open: num(q.ohlc?.open),
    high: num(q.ohlc?.high),
    low: num(q.ohlc?.low),
    close: num(q.ohlc?.close),
    netChange: num(q.net_change),
    upperCircuitLimit: num(q.upper_circuit_limit),
    lowerCircuitLimit: num(q.lower_circuit_limit),
    oi: count(q.oi),
    oiDayHigh: count(q.oi_day_high),
    oiDayLow: count(q.oi_day_low),
    bids: levels(q.depth?.buy),
    asks: levels(q.depth?.sell),
  };
}

/** `YYYY-MM-DD HH:MM:SS.mmm` (UTC) for a DateTime64(3, 'UTC') column. */
const utcText = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

/** The row of market.quotes, in REFERENCE_TABLES.quotes column order. */
export function quoteRow(r: QuoteRecord): unknown[] {
  const values: Record<(typeof REFERENCE_TABLES.quotes.columns)[number], unknown> = {
    security_id: r.securityId,
    exchange_segment: r.exchangeSegment,
    polled_at: utcText(r.polledAt),
    last_price: r.lastPrice,
    last_quantity: r.lastQuantity,
    // A DateTime column takes epoch seconds as a number, whatever its time zone.
    last_trade_time: r.lastTradeTime,
    average_price: r.averagePrice,
    volume: r.volume,
    buy_quantity: r.buyQuantity,
    sell_quantity: r.sellQuantity,
    open: r.open,
    high: r.high,
    low: r.low,
    close: r.close,
    net_change: r.netChange,
    upper_circuit_limit: r.upperCircuitLimit,
    lower_circuit_limit: r.lowerCircuitLimit,
    oi: r.oi,
    oi_day_high: r.oiDayHigh,
    oi_day_low: r.oiDayLow,
    bid_price: r.bids.map((l) => l.price),
    bid_quantity: r.bids.map((l) => l.quantity),
    bid_orders: r.bids.map((l) => l.orders),
    ask_price: r.asks.map((l) => l.price),
    ask_quantity: r.asks.map((l) => l.quantity),
    ask_orders: r.asks.map((l) => l.orders),
  };
  return REFERENCE_TABLES.quotes.columns.map((c) => values[c]);
}
