/**
 * The ClickHouse side of order events (table created by packages/store migration 005): the row
 * layout the pipeline inserts, and the reads that use FINAL so a duplicate that reached the table
 * is seen once. The table keeps the service's update time as its text (`update_time`, IST without
 * a zone, part of the transition's identity) beside `event_time` (UTC); readers get the Kafka
 * record's shape, times as UTC epoch numbers.
 */
import { ORDER_UPDATE_KINDS, type OrderUpdateRecord, SERVICE_TABLES } from '@feedpipe/contracts';
import type { QueryParam, StoreLane } from '@feedpipe/store';
import { type OrderEvent, parseIstTime } from './order-event.js';

/** Columns in the order `toRow` writes them: the table's, as the contracts package names them. */
export const ORDER_EVENT_COLUMNS = SERVICE_TABLES.orderEvents.columns;

/** `YYYY-MM-DD HH:MM:SS.fff` (UTC) from epoch ms: the text form DateTime64 parses everywhere. */
function utcText(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

function utcMicrosText(us: number): string {
  const ms = Math.floor(us / 1000);
  return `${utcText(ms)}${String(Math.trunc(us - ms * 1000)).padStart(3, '0')}`;
}

export function toRow(e: OrderEvent, seq: number): unknown[] {
  return [
    e.orderId,
    e.eventKey,
    e.kind,
    e.clientId,
    e.status,
    e.securityId,
    e.exchangeSegment,
    e.transactionType,
    e.correlationId,
    e.legName,
    e.quantity,
    e.filledQty,
    e.remainingQty,
    e.price,
    e.triggerPrice,
    e.averagePrice,
    e.omsErrorCode,
    e.omsErrorDescription,
    e.updateTimeIst,
    utcText(e.eventTimeMs),
    e.phase,
    e.source,
    utcMicrosText(e.receivedAtUs),
    seq,
    JSON.stringify(e.payload),
  ];
}

/** The order of one order's transitions (see the migration). */
export const EVENT_ORDER = 'event_time, filled_qty, phase, received_at, seq';

/** A recorded order update: the same record as the `orders.updates` value and the stream's data. */
export type StoredOrderEvent = OrderUpdateRecord;

interface RawRow {
  order_id: string;
  event_key: string;
  kind: string;
  client_id: string;
  status: string;
  security_id: string;
  exchange_segment: string;
  filled_qty: number | string;
  remaining_qty: number | string;
  quantity: number | string;
  price: number | string;
  average_price: number | string;
  update_time: string;
  source: string;
  seq: number | string;
  received_at_us: number | string;
  payload: string;
}

function kindOf(text: string): OrderUpdateRecord['kind'] {
  return (ORDER_UPDATE_KINDS as readonly string[]).includes(text)
    ? (text as OrderUpdateRecord['kind'])
    : 'order';
}

function toStored(r: RawRow): StoredOrderEvent {
  return {
    orderId: r.order_id,
    kind: kindOf(r.kind),
    status: r.status,
    clientId: r.client_id,
    securityId: r.security_id,
    exchangeSegment: r.exchange_segment,
    filledQty: Number(r.filled_qty),
    remainingQty: Number(r.remaining_qty),
    quantity: Number(r.quantity),
    price: Number(r.price),
    averagePrice: Number(r.average_price),
    updateTime: parseIstTime(r.update_time) ?? null,
    updateTimeIst: r.update_time,
    eventKey: r.event_key,
    source: r.source === 'reconcile' ? 'reconcile' : 'postback',
    seq: Number(r.seq),
    receivedAt: Number(r.received_at_us),
    payload: JSON.parse(r.payload) as Record<string, unknown>,
  };
}

export interface EventQuery {
  orderId?: string | undefined;
  securityId?: string | undefined;
  clientId?: string | undefined;
  /** Default 1000. */
  limit?: number | undefined;
}

/** Recorded events, order by order id, each order's in transition order. */
export async function readOrderEvents(
  store: StoreLane,
  table: string,
  query: EventQuery = {},
): Promise<StoredOrderEvent[]> {
  const where: string[] = [];
  const params: Record<string, QueryParam> = { limit: query.limit ?? 1000 };
  if (query.orderId !== undefined) {
    where.push('order_id = {orderId:String}');
    params.orderId = query.orderId;
  }
  if (query.securityId !== undefined) {
    where.push('security_id = {securityId:String}');
    params.securityId = query.securityId;
  }
  if (query.clientId !== undefined) {
    where.push('client_id = {clientId:String}');
    params.clientId = query.clientId;
  }
  const rows = await store.rows<RawRow>(
    `SELECT order_id, event_key, kind, client_id, status, security_id, exchange_segment, filled_qty,
        remaining_qty, quantity, price, average_price, update_time, source, seq,
        toUnixTimestamp64Micro(received_at) AS received_at_us, payload
      FROM ${table} FINAL
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY order_id, ${EVENT_ORDER}
      LIMIT {limit:UInt32}`,
    params,
  );
  return rows.map(toStored);
}

/** Keys accepted lately, newest first: seeds the receiver's duplicate check after a restart. */
export async function recentEventKeys(store: StoreLane, table: string, limit: number): Promise<string[]> {
  const rows = await store.rows<{ event_key: string }>(
    `SELECT event_key FROM ${table}
      WHERE received_at > now64(6) - INTERVAL 3 DAY
      ORDER BY received_at DESC LIMIT {limit:UInt32}`,
    { limit },
  );
  return rows.map((r) => r.event_key);
}

/** Status and fill of every recorded transition of these orders, and their keys. */
export async function recordedTransitions(
  store: StoreLane,
  table: string,
  orderIds: readonly string[],
): Promise<
  Array<{ orderId: string; status: string; filledQty: number; updateTimeIst: string; eventKey: string }>
> {
  if (orderIds.length === 0) return [];
  const rows = await store.rows<{
    order_id: string;
    status: string;
    filled_qty: number | string;
    update_time: string;
    event_key: string;
  }>(
    `SELECT order_id, status, filled_qty, update_time, event_key FROM ${table} FINAL
      WHERE order_id IN {ids:Array(String)}`,
    { ids: orderIds },
  );
  return rows.map((r) => ({
    orderId: r.order_id,
    status: r.status,
    filledQty: Number(r.filled_qty),
    updateTimeIst: r.update_time,
    eventKey: r.event_key,
  }));
}

/**
 * Which of these transitions the table holds already (any copy, merged or not): the pipeline's
 * check before an insert, so a replayed batch adds no row twice. Reads by the sorting key.
 */
export async function storedEventKeys(
  store: StoreLane,
  table: string,
  events: ReadonlyArray<{ orderId: string; eventKey: string }>,
): Promise<Set<string>> {
  if (events.length === 0) return new Set();
  const rows = await store.rows<{ event_key: string }>(
    `SELECT DISTINCT event_key FROM ${table}
      WHERE order_id IN {ids:Array(String)} AND event_key IN {keys:Array(String)}`,
    {
      ids: [...new Set(events.map((e) => e.orderId))],
      keys: events.map((e) => e.eventKey),
    },
  );
  return new Set(rows.map((r) => r.event_key));
}
