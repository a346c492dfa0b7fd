/**
 * Rows of the reference tables as the history loader writes them (the instrument master and the
 * quote poller), for the tests that read them through the API.
 */
import { REFERENCE_TABLES } from '@feedpipe/contracts';
import type { Store } from '@feedpipe/store';
import { DAY, HIST, LIVE_A, LIVE_B } from './helpers.js';

/** Versions as the loader writes them: ACME renamed from ACMEOLD on the fixture's day. */
export async function seedInstruments(store: Store): Promise<void> {
  const columns = REFERENCE_TABLES.instruments.columns;
  const row = (segment: string, id: number, from: string, to: string | null, symbol: string, extra = {}) => {
    const values: Record<string, unknown> = {
      exchange_segment: segment,
      security_id: id,
      valid_from: from,
      valid_to: to,
      exchange: segment === 'INX_EQ' ? 'US' : 'NSE',
      instrument_type: 'EQUITY',
      trading_symbol: symbol,
      custom_symbol: symbol,
      symbol_name: symbol,
      series: '',
      lot_size: 1,
      tick_size: 0.01,
      expiry_code: 0,
      expiry_date: null,
      strike_price: null,
      option_type: 'XX',
      expiry_flag: '',
      underlying_security_id: null,
      underlying_symbol: '',
      loaded_at: '2024-03-04 02:00:00.000',
      ...extra,
    };
    return columns.map((c) => values[c]);
  };
  await store.internal.insertRows(REFERENCE_TABLES.instruments.name, columns, [
    row('INX_EQ', LIVE_A, '2024-01-02', DAY, 'ACMEOLD'),
    row('INX_EQ', LIVE_A, DAY, null, 'ACME'),
    row('INX_EQ', LIVE_B, '2024-01-02', null, 'BOLT'),
    row('NSE_EQ', HIST, '2024-01-02', null, 'RELIANCE'),
    row('NSE_FNO', 40_000_123, '2024-01-02', null, 'NIFTY-Mar2024-22000-CE', {
      instrument_type: 'OPTIDX',
      expiry_date: '2024-03-07 15:30:00',
      strike_price: 22_000,
      option_type: 'CE',
      expiry_flag: 'W',
      lot_size: 75,
      underlying_security_id: 13,
      underlying_symbol: 'NIFTY',
    }),
  ]);
}

/** Three polls of HIST (RELIANCE, NSE_EQ) five seconds apart, as the poller stores them. */
export async function seedQuotes(store: Store): Promise<void> {
  const columns = REFERENCE_TABLES.quotes.columns;
  const rows = [0, 1, 2].map((k) => {
    const ltp = 2500 + k;
    const values: Record<string, unknown> = {
      security_id: HIST,
      exchange_segment: 'NSE_EQ',
      polled_at: `2024-03-04 04:00:${String(k * 5).padStart(2, '0')}.000`,
      last_price: ltp,
      last_quantity: 5,
      last_trade_time: 1709524790 + k * 5,
      average_price: 2499.5,
      volume: 1000 * (k + 1),
      buy_quantity: 500,
      sell_quantity: 400,
      open: 2490,
      high: 2510,
      low: 2480,
      close: 2475,
      net_change: ltp - 2475,
      upper_circuit_limit: 2722.5,
      lower_circuit_limit: 2227.5,
      oi: 0,
      oi_day_high: 0,
      oi_day_low: 0,
      bid_price: [1, 2, 3, 4, 5].map((l) => ltp - l * 0.05),
      bid_quantity: [10, 20, 30, 40, 50],
      bid_orders: [1, 2, 3, 4, 5],
      ask_price: [1, 2, 3, 4, 5].map((l) => ltp + l * 0.05),
      ask_quantity: [11, 21, 31, 41, 51],
      ask_orders: [1, 1, 1, 1, 1],
    };
    return columns.map((c) => values[c]);
  });
  await store.internal.insertRows(REFERENCE_TABLES.quotes.name, columns, rows);
}
