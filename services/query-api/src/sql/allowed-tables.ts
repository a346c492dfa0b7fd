import { FEED_TABLES, HISTORY_TABLES, REFERENCE_TABLES } from '@feedpipe/contracts';
/**
 * What a `read` key may read through SQL: market data, and nothing about accounts, keys, orders or
 * the server. An allow-list, so a table added later (a dead-letter table, a new audit table) stays
 * closed until someone decides it is market data and names it here.
 *
 * Left out on purpose: market.api_keys (salts and hashes), market.order_audit and
 * market.order_events (orders and their answers), market.fills and market.account_snapshots (the
 * account's fills and its positions, holdings, funds and ledger: read through the trading gateway
 * with a trade key), market.load_units and market.loader_requests
 * (the loader's bookkeeping, with the client id), market.bars_1m_mv (the view; read market.bars_1m),
 * and every system table except system.one, which ClickHouse itself reads for `SELECT 1`.
 */
export const MARKET_DATA_TABLES: readonly string[] = [
  FEED_TABLES.ticks.name,
  FEED_TABLES.ohlcUpdates.name,
  FEED_TABLES.referenceUpdates.name,
  FEED_TABLES.feedStatus.name,
  FEED_TABLES.feedGaps.name,
  FEED_TABLES.bars1m.name,
  HISTORY_TABLES.candlesDaily.name,
  HISTORY_TABLES.candlesIntraday.name,
  HISTORY_TABLES.optionChainSnapshots.name,
  HISTORY_TABLES.expiryLists.name,
  HISTORY_TABLES.expiredOptions.name,
  REFERENCE_TABLES.instruments.name,
  REFERENCE_TABLES.quotes.name,
];

/** The database of the API's catalogue views (sql/catalog-views.ts). */
export const CATALOG_DATABASE = 'feedpipe_catalog';

/** The system tables SQL tools browse, each answered by the API's view of the same name. */
export const CATALOG_TABLES = ['databases', 'tables', 'columns'] as const;

/**
 * The catalogue views (`feedpipe_catalog.tables`, ...): the API's own, over the system tables
 * filtered to the market database and MARKET_DATA_TABLES, so reading them shows nothing else.
 */
export const CATALOG_VIEWS: readonly string[] = CATALOG_TABLES.map((t) => `${CATALOG_DATABASE}.${t}`);

/**
 * Readable by SQL: the market-data tables, the one-row table of FROM-less SELECTs and the catalogue
 * views (the names `system.tables`, `system.columns`, `system.databases` are renamed to them).
 */
export const SQL_READABLE_TABLES: ReadonlySet<string> = new Set([
  ...MARKET_DATA_TABLES,
  'system.one',
  ...CATALOG_VIEWS,
]);

/** The database of the market-data tables (what SHOW TABLES lists). */
export const MARKET_DATABASE = 'market';
