/**
 * What the feed queued for sending, per instrument (by universe index) and in total, so a test or a
 * benchmark can check downstream that nothing was lost. A packet is counted when it is queued on a
 * connection's socket; each subscriber's copy counts once.
 */
export interface InstrumentSent {
  /** Trade packets: the snapshot one and live ones. */
  trade: number;
  ohlc: number;
  /** Previous Close, Circuit Limit and 52-Week packets carrying the instrument's id. */
  reference: number;
}

export class FeedCounters {
  readonly trade: Float64Array;
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
    this.ohlc = new Float64Array(universeSize);
    this.reference = new Float64Array(universeSize);
  }

  at(index: number): InstrumentSent {
    return {
      trade: this.trade[index] ?? 0,
      ohlc: this.ohlc[index] ?? 0,
      reference: this.reference[index] ?? 0,
    };
  }
}
