/**
 * What a `read` key may read through SQL: market data, and nothing about accounts, keys, orders or
 * the server. An allow-list, so a table added later (a dead-letter table, a new audit table) stays
 * closed until someone decides it is market data and names it here.
 *
 * Left out on purpose: market.api_keys (salts and hashes), market.order_audit and
 * market.order_events (orders and their answers), market.load_units and market.loader_requests
 * (the loader's bookkeeping, with the client id), market.bars_1m_mv (the view; read market.bars_1m),
 * and every system table except system.one, which ClickHouse itself reads for `SELECT 1`.
 */
export const MARKET_DATA_TABLES: readonly string[] = [
  'market.ticks',
  'market.ohlc_updates',
  'market.reference_updates',
  'market.feed_status',
  'market.bars_1m',
  'market.candles_daily',
  'market.candles_intraday',
  'market.option_chain_snapshots',
  'market.expiry_lists',
  'market.expired_options',
];

/** Readable by SQL: the market-data tables and the one-row table of FROM-less SELECTs. */
export const SQL_READABLE_TABLES: ReadonlySet<string> = new Set([...MARKET_DATA_TABLES, 'system.one']);

/** The database of the market-data tables (what SHOW TABLES lists). */
export const MARKET_DATABASE = 'market';
