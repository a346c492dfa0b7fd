/**
 * The instrument master and snapshot quotes (packages/store/migrations/011_instruments_quotes.sql):
 * market.instruments written by the history loader's instrument-master load, market.quotes by its
 * quote poller. test/tables.test.ts holds these columns equal to the migration's.
 */
import { table } from './table.js';

export const REFERENCE_TABLES = Object.freeze({
  instruments: table('market.instruments', [
    'exchange_segment',
    'security_id',
    'valid_from',
    'valid_to',
    'exchange',
    'instrument_type',
    'trading_symbol',
    'custom_symbol',
    'symbol_name',
    'series',
    'lot_size',
    'tick_size',
    'expiry_code',
    'expiry_date',
    'strike_price',
    'option_type',
    'expiry_flag',
    'underlying_security_id',
    'underlying_symbol',
    'loaded_at',
  ]),
  quotes: table('market.quotes', [
    'security_id',
    'exchange_segment',
    'polled_at',
    'last_price',
    'last_quantity',
    'last_trade_time',
    'average_price',
    'volume',
    'buy_quantity',
    'sell_quantity',
    'open',
    'high',
    'low',
    'close',
    'net_change',
    'upper_circuit_limit',
    'lower_circuit_limit',
    'oi',
    'oi_day_high',
    'oi_day_low',
    'bid_price',
    'bid_quantity',
    'bid_orders',
    'ask_price',
    'ask_quantity',
    'ask_orders',
  ]),
});
