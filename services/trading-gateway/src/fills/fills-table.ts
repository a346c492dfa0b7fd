/**
 * The ClickHouse side of fills (packages/store migration 012): the row layout, the check of which
 * fills are stored already (by the table's sorting key, before every insert), and the reads the
 * routes answer from. Reads use FINAL, so a row two writers raced to add is seen once.
 */
import { SERVICE_TABLES } from '@feedpipe/contracts';
import type { QueryParam, StoreLane } from '@feedpipe/store';
import type { FillRecord, FillSource } from './fill-record.js';

export const FILLS_TABLE = SERVICE_TABLES.fills.name;
const FILL_COLUMNS = SERVICE_TABLES.fills.columns;

/** `YYYY-MM-DD HH:MM:SS.fff` (UTC): the text DateTime64 parses everywhere. */
const utcText = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

function toRow(f: FillRecord, source: FillSource, recordedAtMs: number): unknown[] {
  return [
    f.fillKey,
    f.kind,
    f.clientId,
    f.orderId,
    f.exchangeOrderId,
    f.exchangeTradeId,
    f.tradeDate,
    utcText(f.tradeTimeMs),
    f.securityId,
    f.exchangeSegment,
    f.transactionType,
    f.productType,
    f.tradedQty,
    f.tradedPrice,
    source,
    utcText(recordedAtMs),
    JSON.stringify(f.payload),
  ];
}

/** Which of these fills the table holds (any copy, merged or not). */
export async function storedFillKeys(store: StoreLane, fills: readonly FillRecord[]): Promise<Set<string>> {
  if (fills.length === 0) return new Set();
  const rows = await store.rows<{ fill_key: string }>(
    `SELECT DISTINCT fill_key FROM ${FILLS_TABLE}
      WHERE trade_date IN {dates:Array(Date)} AND fill_key IN {keys:Array(String)}`,
    { dates: [...new Set(fills.map((f) => f.tradeDate))], keys: fills.map((f) => f.fillKey) },
  );
  return new Set(rows.map((r) => r.fill_key));
}

export function insertFills(
  store: StoreLane,
  fills: readonly FillRecord[],
  source: FillSource,
  recordedAtMs: number,
): Promise<void> {
  return store.insertRows(
    FILLS_TABLE,
    FILL_COLUMNS,
    fills.map((f) => toRow(f, source, recordedAtMs)),
  );
}

/** The newest trading day with a stored fill of the account, or undefined. */
export async function lastFillDate(store: StoreLane, clientId: string): Promise<string | undefined> {
  const rows = await store.rows<{ d: string | null }>(
    `SELECT toString(max(trade_date)) AS d FROM ${FILLS_TABLE} WHERE client_id = {clientId:String} HAVING count() > 0`,
    { clientId },
  );
  return rows[0]?.d ?? undefined;
}

/** What a read of stored fills selects; `ownedBy` keeps the fills of orders the key placed. */
export interface FillQuery {
  /** Trading days, inclusive, YYYY-MM-DD (default: no bound). */
  fromDate?: string | undefined;
  toDate?: string | undefined;
  orderId?: string | undefined;
  /** A condition on `order_id` (the caller's own orders), with its parameters. */
  ownedBy?: { sql: string; params: Record<string, QueryParam> } | undefined;
  limit: number;
  offset: number;
}

/** Stored fills, oldest first, each as the service's record. */
export async function readFills(store: StoreLane, query: FillQuery): Promise<Record<string, unknown>[]> {
  const where = ['1'];
  const params: Record<string, QueryParam> = { limit: query.limit, offset: query.offset };
  if (query.fromDate !== undefined) {
    where.push('trade_date >= {fromDate:Date}');
    params.fromDate = query.fromDate;
  }
  if (query.toDate !== undefined) {
    where.push('trade_date <= {toDate:Date}');
    params.toDate = query.toDate;
  }
  if (query.orderId !== undefined) {
    where.push('order_id = {orderId:String}');
    params.orderId = query.orderId;
  }
  if (query.ownedBy) {
    where.push(`order_id IN (${query.ownedBy.sql})`);
    Object.assign(params, query.ownedBy.params);
  }
  const rows = await store.rows<{ payload: string }>(
    `SELECT payload FROM ${FILLS_TABLE} FINAL
      WHERE ${where.join(' AND ')}
      ORDER BY trade_time, fill_key
      LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
    params,
  );
  return rows.map((r) => JSON.parse(r.payload) as Record<string, unknown>);
}
