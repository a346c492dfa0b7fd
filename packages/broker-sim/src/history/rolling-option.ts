/**
 * Expired options data (/charts/rollingoption): for every bar of the underlying between two dates,
 * the contract at a strike relative to that bar's spot (ATM, ATM+n, ATM-n) of the near/next/far
 * weekly or monthly expiry as of that day, priced like the live chain. Only the arrays
 * `requiredData` names are produced.
 */
import type { SimInstrument } from '../rest/market-source.js';
import { monthlyExpiries, strikeStep, weeklyExpiries } from './expiries.js';
import type { OptionPricer } from './option-chain.js';
import type { PriceHistory } from './series.js';

export const ROLLING_FIELDS = [
  'open',
  'high',
  'low',
  'close',
  'iv',
  'volume',
  'strike',
  'oi',
  'spot',
] as const;
export type RollingField = (typeof ROLLING_FIELDS)[number];

export interface RollingRequest {
  readonly underlying: SimInstrument;
  readonly fromDay: number;
  /** Exclusive. */
  readonly toDay: number;
  readonly interval: number;
  readonly expiryFlag: 'WEEK' | 'MONTH';
  readonly expiryCode: 1 | 2 | 3;
  /** Strike offset in steps from ATM, -10..10. */
  readonly offset: number;
  readonly call: boolean;
  readonly fields: readonly RollingField[];
}

export function rollingOption(
  history: PriceHistory,
  pricer: OptionPricer,
  req: RollingRequest,
): Record<string, number[]> {
  const cols: Record<string, number[]> = { timestamp: [] };
  for (const f of req.fields) cols[f] = [];
  for (let day = req.fromDay; day < req.toDay; day++) {
    const bars = history.intradayBars(req.underlying, day, req.interval);
    if (!bars) continue;
    const expiries = req.expiryFlag === 'WEEK' ? weeklyExpiries(day, 3) : monthlyExpiries(day, 3);
    const expiry = expiries[req.expiryCode - 1]!;
    for (let i = 0; i < bars.open.length; i++) {
      const ts = bars.timestamp[i]!;
      const spot = bars.close[i]!;
      const step = strikeStep(spot);
      const strike = Math.round(spot / step) * step + req.offset * step;
      if (strike <= 0) continue;
      const t = pricer.yearsTo(expiry, ts + 60 * req.interval);
      const at = (s: number) => pricer.value(req.underlying, strike, req.call, s, t);
      const close = at(spot);
      // A call is dearest at the spot's high, a put at its low.
      const hiSpot = req.call ? bars.high[i]! : bars.low[i]!;
      const loSpot = req.call ? bars.low[i]! : bars.high[i]!;
      const oi = pricer.oi(req.underlying, expiry, strike, req.call, req.offset, day);
      const open = at(bars.open[i]!).price;
      const values: Record<RollingField, number> = {
        open,
        high: Math.max(at(hiSpot).price, close.price, open),
        low: Math.min(at(loSpot).price, close.price, open),
        close: close.price,
        iv: Math.round(close.iv * 10_000) / 100,
        volume: Math.round((oi * (bars.close[i]! % 7)) / 20 + 1) * req.underlying.lotSize,
        strike,
        oi,
        spot,
      };
      cols.timestamp!.push(ts);
      for (const f of req.fields) cols[f]!.push(values[f]);
    }
  }
  return cols;
}
