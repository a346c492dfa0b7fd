/**
 * The history tables (packages/store/migrations/003_history_tables.sql, which says how to read
 * them: FINAL or argMax by loaded_at), written by services/history-loader. test/tables.test.ts holds
 * these columns equal to the migration's.
 */
import { table } from './table.js';

/** A candle's values, the same columns in the daily and the intraday table. */
const CANDLE_VALUES = ['open', 'high', 'low', 'close', 'volume', 'open_interest'] as const;

export const HISTORY_TABLES = Object.freeze({
  candlesDaily: table('market.candles_daily', [
    'security_id',
    'segment',
    'ts',
    ...CANDLE_VALUES,
    'loaded_at',
  ]),
  candlesIntraday: table('market.candles_intraday', [
    'security_id',
    'segment',
    'interval',
    'ts',
    ...CANDLE_VALUES,
    'loaded_at',
  ]),
  optionChainSnapshots: table('market.option_chain_snapshots', [
    'underlying_id',
    'underlying_segment',
    'expiry',
    'slot',
    'strike',
    'side',
    'snapshot_at',
    'underlying_price',
    'option_security_id',
    'last_price',
    'average_price',
    'previous_close_price',
    'implied_volatility',
    'delta',
    'theta',
    'gamma',
    'vega',
    'oi',
    'previous_oi',
    'volume',
    'previous_volume',
    'top_bid_price',
    'top_bid_quantity',
    'top_ask_price',
    'top_ask_quantity',
    'loaded_at',
  ]),
  expiryLists: table('market.expiry_lists', [
    'underlying_id',
    'underlying_segment',
    'as_of',
    'expiry',
    'loaded_at',
  ]),
  expiredOptions: table('market.expired_options', [
    'underlying_id',
    'exchange_segment',
    'instrument',
    'expiry_flag',
    'expiry_code',
    'option_type',
    'strike_offset',
    'interval',
    'ts',
    'open',
    'high',
    'low',
    'close',
    'iv',
    'volume',
    'oi',
    'strike',
    'spot',
    'loaded_at',
  ]),
  /** The loader's checkpoints: one row per unit of work, version updated_at. */
  loadUnits: table('market.load_units', [
    'kind',
    'security_id',
    'segment',
    'interval',
    'variant',
    'window_from',
    'window_to',
    'status',
    'rows',
    'attempts',
    'requests',
    'error',
    'run_id',
    'updated_at',
  ]),
  /** Requests sent per loader flush (the day's budget after a restart). */
  loaderRequests: table('market.loader_requests', ['client_id', 'at', 'requests']),
});
