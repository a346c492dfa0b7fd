/**
 * What the feed queued for sending, per instrument (by universe index) and in total, so a test or a
 * benchmark can check downstream that nothing was lost. A packet is counted when it is queued on a
 * connection's socket; each subscriber's copy counts once.
 */
export interface InstrumentSent {
  /** Trade packets: the snapshot one and live ones. */
  trade: number;
  /**
   * Distinct trades among them: a packet repeating the trade queued just before it for this
   * instrument (the snapshot of a repeated or renewed subscription, another subscriber's copy)
   * is not counted again. What a downstream store should hold once each.
   */
  distinctTrade: number;
  ohlc: number;
  /** Previous Close, Circuit Limit and 52-Week packets carrying the instrument's id. */
  reference: number;
}

export class FeedCounters {
  readonly trade: Float64Array;
  readonly distinctTrade: Float64Array;
  /** The cumulative volume and trade time of the last trade queued per instrument (-1: none yet). */
  readonly #lastVolume: Float64Array;
  readonly #lastTradeTime: Float64Array;
  readonly ohlc: Float64Array;
  readonly reference: Float64Array;
  /** Trades the model generated for the feed (one per instrument step, however many subscribers). */
  generatedTrades = 0;
  /** Load-mode visits that generated nothing because every subscriber was over its buffer bound. */
  deferred = 0;
  /** Zero-filled reference packets (security id 0) queued. */
  zeroFilled = 0;
  /** Market Status packets queued. */
  marketStatus = 0;
  /** Requested security ids that are not INX_EQ instruments of the universe (ignored). */
  unknownInstruments = 0;
  /** Requests refused (malformed, over a limit). */
  refusedRequests = 0;

  constructor(universeSize: number) {
    this.trade = new Float64Array(universeSize);
    this.distinctTrade = new Float64Array(universeSize);
    this.#lastVolume = new Float64Array(universeSize).fill(-1);
    this.#lastTradeTime = new Float64Array(universeSize).fill(-1);
    this.ohlc = new Float64Array(universeSize);
    this.reference = new Float64Array(universeSize);
  }

  at(index: number): InstrumentSent {
    return {
      trade: this.trade[index] ?? 0,
      distinctTrade: this.distinctTrade[index] ?? 0,
      ohlc: this.ohlc[index] ?? 0,
      reference: this.reference[index] ?? 0,
    };
  }

  /**
   * One trade packet of instrument `index` queued. A day's cumulative volume grows with every trade,
   * so the same volume and trade time is the same trade again.
   */
  countTrade(index: number, volume: number, tradeTime: number): void {
    this.trade[index] = (this.trade[index] ?? 0) + 1;
    if (this.#lastVolume[index] === volume && this.#lastTradeTime[index] === tradeTime) return;
    this.#lastVolume[index] = volume;
    this.#lastTradeTime[index] = tradeTime;
    this.distinctTrade[index] = (this.distinctTrade[index] ?? 0) + 1;
  }
}
