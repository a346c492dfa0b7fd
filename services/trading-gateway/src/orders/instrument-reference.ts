/**
 * What the pre-trade checks ask about an instrument: is it known to this desk (seen in the live
 * feed or in loaded history, or in the configured static list), and what did it last trade at (for
 * the notional of a market order). Orders are few, so each answer is one point query over tables
 * ordered by security_id first, not a scan of the whole universe. A known instrument stays known
 * for `knownTtlMs`; an unknown one is asked again after `unknownTtlMs`, so a new listing is found
 * soon and a flood of bad ids is not a flood of queries. The cache is bounded.
 */
import type { StoreLane } from '@feedpipe/store';

export interface ReferenceInstrument {
  securityId: number;
  /** Exchange segment, e.g. NSE_EQ; informational. */
  segment?: string;
  symbol?: string;
  /** Reference price for notional checks of market orders when no tick is stored. */
  lastPrice?: number;
}

export interface InstrumentReferenceOptions {
  /** How long a known instrument stays known. Default 600,000 ms. */
  knownTtlMs?: number;
  /** How long an unknown instrument stays unknown before it is asked again. Default 1,000 ms. */
  unknownTtlMs?: number;
  now?: () => number;
}

/** Tables whose rows name an instrument the feed or the history loader has seen. */
const KNOWN_SQL = `
SELECT
  (SELECT count() FROM (SELECT 1 FROM market.ticks WHERE security_id = {sid:UInt32} LIMIT 1))
  + (SELECT count() FROM (SELECT 1 FROM market.reference_updates WHERE security_id = {sid:UInt32} LIMIT 1))
  + (SELECT count() FROM (SELECT 1 FROM market.candles_daily WHERE security_id = {sid:UInt32} LIMIT 1))
  + (SELECT count() FROM (SELECT 1 FROM market.candles_intraday WHERE security_id = {sid:UInt32} LIMIT 1))
  AS seen`;

/** The newest tick's price, else the newest daily close. */
const LAST_PRICE_SQL = `SELECT coalesce(
  (SELECT argMax(ltp, received_at) FROM market.ticks WHERE security_id = {sid:UInt32} HAVING count() > 0),
  (SELECT argMax(close, ts) FROM market.candles_daily WHERE security_id = {sid:UInt32} HAVING count() > 0)
) AS price`;

const MAX_CACHED = 100_000;

export class InstrumentReference {
  readonly #store: StoreLane;
  readonly #static = new Map<number, ReferenceInstrument>();
  readonly #knownTtlMs: number;
  readonly #unknownTtlMs: number;
  readonly #now: () => number;
  readonly #known = new Map<number, { known: boolean; until: number }>();

  constructor(
    store: StoreLane,
    staticList: readonly ReferenceInstrument[],
    options: InstrumentReferenceOptions = {},
  ) {
    this.#store = store;
    for (const i of staticList) this.#static.set(i.securityId, i);
    this.#knownTtlMs = options.knownTtlMs ?? 600_000;
    this.#unknownTtlMs = options.unknownTtlMs ?? 1_000;
    this.#now = options.now ?? Date.now;
  }

  async has(securityId: number): Promise<boolean> {
    if (this.#static.has(securityId)) return true;
    const now = this.#now();
    const cached = this.#known.get(securityId);
    if (cached && cached.until > now) return cached.known;
    const rows = await this.#rows<{ seen: number | string }>(KNOWN_SQL, securityId);
    const known = Number(rows[0]?.seen ?? 0) > 0;
    if (this.#known.size >= MAX_CACHED) this.#known.clear();
    this.#known.set(securityId, { known, until: now + (known ? this.#knownTtlMs : this.#unknownTtlMs) });
    return known;
  }

  /**
   * Latest traded price: the newest tick, else the newest daily close, else the static list's.
   * Read from the store on every call, on purpose: it prices a market order's notional against the
   * limit, and a cached price would let an order pass on a price the market has left. It is the
   * one store statement left on a new market order's path (limit orders are priced by their body).
   */
  async lastPrice(securityId: number): Promise<number | undefined> {
    const rows = await this.#rows<{ price: number | null }>(LAST_PRICE_SQL, securityId);
    const price = rows[0]?.price;
    if (typeof price === 'number' && price > 0) return price;
    return this.#static.get(securityId)?.lastPrice;
  }

  #rows<T>(query: string, securityId: number): Promise<T[]> {
    return this.#store.rows<T>(query, { sid: securityId });
  }
}
