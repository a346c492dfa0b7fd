/** The history side of the simulator: candles, option chains, expiries and expired options. */
import type { MarketSource } from '../rest/market-source.js';
import { OptionPricer } from './option-chain.js';
import { PriceHistory } from './series.js';

export class HistoryService {
  readonly prices: PriceHistory;
  readonly options: OptionPricer;
  constructor(
    readonly market: MarketSource,
    readonly now: () => number,
  ) {
    this.prices = new PriceHistory(market, now);
    this.options = new OptionPricer(market.seed);
  }
}
