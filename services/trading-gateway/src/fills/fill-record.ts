/**
 * One fill as the gateway stores it, built from a record of the service's trade book (the day's
 * trades, trade history, or the US trades). The identity (`fillKey`) is what makes a fill read
 * twice, from two different calls, the same row: the exchange's trade id with its segment (trade
 * ids are the exchange's, unique within a segment). US trades carry no trade id; a US fill is its
 * order id and its place among that order's fills in the book, which lists a day's fills in the
 * order they happened.
 */
import type { GlobalTrade, Trade, TradeHistoryRecord } from '@feedpipe/broker-api';
import { parseIstTime } from '../postbacks/order-event.js';

/** What made the gateway read the trade book: a postback's fill, a reconciliation, a missed day. */
export type FillSource = 'postback' | 'reconcile' | 'history';
export type FillKind = 'order' | 'us_order';

export interface FillRecord {
  readonly fillKey: string;
  readonly kind: FillKind;
  readonly clientId: string;
  readonly orderId: string;
  readonly exchangeOrderId: string;
  readonly exchangeTradeId: string;
  /** Trading day (IST), YYYY-MM-DD. */
  readonly tradeDate: string;
  /** Epoch ms of the fill (the service's IST time read as such). */
  readonly tradeTimeMs: number;
  readonly securityId: string;
  readonly exchangeSegment: string;
  readonly transactionType: string;
  readonly productType: string;
  readonly tradedQty: number;
  readonly tradedPrice: number;
  /** The service's record as read: what the routes answer, with the SDK's field names. */
  readonly payload: Readonly<Record<string, unknown>>;
}

const IST_OFFSET_MS = 19_800_000;

/** The IST calendar day of an epoch ms, YYYY-MM-DD. */
export function istDate(ms: number): string {
  return new Date(ms + IST_OFFSET_MS).toISOString().slice(0, 10);
}

const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const number = (v: unknown): number => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : 0;
};

/** The fill's time: the exchange's, else the service's update or create time, else `fallbackMs`. */
function timeOf(record: Record<string, unknown>, fallbackMs: number): number {
  for (const field of ['exchangeTime', 'updateTime', 'createTime']) {
    const ms = parseIstTime(text(record[field]));
    if (ms !== undefined) return ms;
  }
  return fallbackMs;
}

function common(record: Record<string, unknown>, fallbackMs: number) {
  const tradeTimeMs = timeOf(record, fallbackMs);
  return {
    clientId: text(record.svcClientId),
    orderId: text(record.orderId ?? record['order-id']),
    exchangeOrderId: text(record.exchangeOrderId),
    tradeTimeMs,
    tradeDate: istDate(tradeTimeMs),
    securityId: text(record.securityId),
    exchangeSegment: text(record.exchangeSegment),
    transactionType: text(record.transactionType),
    productType: text(record.productType),
    tradedQty: number(record.tradedQuantity),
    tradedPrice: number(record.tradedPrice),
    payload: record,
  };
}

/**
 * A fill of an Indian segment (trade book or trade history record). Undefined when the record has
 * no trade id: such a record cannot be told apart from another fill of the same order.
 */
export function fromTrade(record: Trade | TradeHistoryRecord, fallbackMs: number): FillRecord | undefined {
  const r = record as unknown as Record<string, unknown>;
  const exchangeTradeId = text(r.exchangeTradeId);
  const base = common(r, fallbackMs);
  if (exchangeTradeId === '' || base.orderId === '') return undefined;
  return {
    ...base,
    kind: 'order',
    fillKey: `${base.exchangeSegment}:${exchangeTradeId}`,
    exchangeTradeId,
  };
}

/** The fills of the US book, numbered per order in book order (the book has no trade ids). */
export function fromUsTrades(records: readonly GlobalTrade[], fallbackMs: number): FillRecord[] {
  const seen = new Map<string, number>();
  const out: FillRecord[] = [];
  for (const record of records) {
    const r = record as unknown as Record<string, unknown>;
    const base = common(r, fallbackMs);
    if (base.orderId === '') continue;
    const n = (seen.get(base.orderId) ?? 0) + 1;
    seen.set(base.orderId, n);
    // The US book states the trading day itself; it wins over the IST day of the time.
    const tradeDate = /^\d{4}-\d{2}-\d{2}$/.test(text(r.tradeDate)) ? text(r.tradeDate) : base.tradeDate;
    out.push({
      ...base,
      tradeDate,
      exchangeSegment: base.exchangeSegment || 'INX_EQ',
      kind: 'us_order',
      fillKey: `INX_EQ:${base.orderId}#${n}`,
      exchangeTradeId: '',
    });
  }
  return out;
}
