/**
 * Which instruments the API knows: every security id seen in the live feed (ticks, reference
 * data) or in loaded history (daily and intraday candles), every current row of the instrument
 * master (market.instruments, loaded daily by the history loader: symbols and segments), and a
 * configured static list that overrides the master's symbol and segment of an id. The set is held in
 * memory and refreshed in the background of requests (at most one refresh at a time, at most one
 * per `minRefreshMs` when an unknown id is asked for), so a lookup is a hash probe.
 */
import { FEED_TABLES, HISTORY_TABLES, REFERENCE_TABLES } from '@feedpipe/contracts';
import type { QueryRunner } from '../query/query-runner.js';

export interface StaticInstrument {
  securityId: number;
  /** Exchange segment, e.g. NSE_EQ; informational. */
  segment?: string;
  symbol?: string;
}

/** One answer of `search`: how the query matched decides the order (exact, then prefix, then substring). */
export interface InstrumentMatch {
  securityId: number;
  symbol: string | null;
  segment: string | null;
  /** The query is this instrument's id or symbol, whole (case-insensitive). */
  exact: boolean;
  /** Seen in the stored data (live ticks, reference data or loaded history), not only listed. */
  stored: boolean;
}

/** Longest query `search` looks at: a symbol or an id is far shorter. */
export const MAX_SEARCH_QUERY = 64;

/**
 * One row per id: `listed_only` 1 for an id only the master lists (0 when data is stored), with
 * the master's current symbol and segment. Where an id is listed on several segments (ids are
 * unique per segment), the feed's segment INX_EQ wins, as the stored ticks carry that segment.
 */
const KNOWN_SQL = `
SELECT security_id, min(listed) AS listed_only,
       argMax(sym, (sym != '', seg = 'INX_EQ')) AS symbol,
       argMax(seg, (sym != '', seg = 'INX_EQ')) AS segment
FROM (
  SELECT security_id, 0 AS listed, '' AS sym, '' AS seg FROM ${FEED_TABLES.ticks.name} GROUP BY security_id
  UNION ALL SELECT security_id, 0, '', '' FROM ${FEED_TABLES.referenceUpdates.name} WHERE security_id != 0 GROUP BY security_id
  UNION ALL SELECT security_id, 0, '', '' FROM ${HISTORY_TABLES.candlesDaily.name} GROUP BY security_id
  UNION ALL SELECT security_id, 0, '', '' FROM ${HISTORY_TABLES.candlesIntraday.name} GROUP BY security_id
  UNION ALL SELECT security_id, 1, trading_symbol, toString(exchange_segment)
    FROM ${REFERENCE_TABLES.instruments.name} FINAL WHERE valid_to IS NULL
)
GROUP BY security_id`;

interface KnownRow {
  security_id: number;
  /** Absent reads as 0: data is stored. */
  listed_only?: number;
  symbol?: string;
  segment?: string;
}

/** What the catalog holds per id: symbol and segment (static list over master), upper-cased symbol. */
interface Listing {
  symbol: string | null;
  segment: string | null;
  upper: string | null;
}

export class InstrumentCatalog {
  readonly #runner: QueryRunner;
  readonly #static = new Map<number, Listing>();
  readonly #refreshMs: number;
  readonly #minRefreshMs: number;
  readonly #now: () => number;
  /** Ids with stored data. */
  #stored = new Set<number>();
  /** Every id known: stored, listed by the master, or in the static list (which wins). */
  #listings = new Map<number, Listing>();
  #loadedAt = Number.NEGATIVE_INFINITY;
  #refreshing: Promise<void> | undefined;

  constructor(
    runner: QueryRunner,
    staticList: readonly StaticInstrument[],
    options: { refreshMs?: number; minRefreshMs?: number; now?: () => number } = {},
  ) {
    this.#runner = runner;
    for (const i of staticList) this.#static.set(i.securityId, listing(i.symbol ?? null, i.segment ?? null));
    this.#listings = new Map(this.#static);
    this.#refreshMs = options.refreshMs ?? 30_000;
    this.#minRefreshMs = options.minRefreshMs ?? 1_000;
    this.#now = options.now ?? Date.now;
  }

  async has(securityId: number): Promise<boolean> {
    if (this.#static.has(securityId)) return true;
    const age = this.#now() - this.#loadedAt;
    if (this.#listings.has(securityId)) {
      // A failed background refresh is tried again by a later lookup; nothing awaits it here.
      if (age > this.#refreshMs) this.refresh().catch(() => undefined);
      return true;
    }
    if (age > this.#minRefreshMs) await this.refresh();
    return this.#listings.has(securityId);
  }

  /**
   * Instruments whose symbol or id matches `query` (case-insensitive): whole matches first, then
   * prefixes, then substrings of a symbol; stored instruments before listed-only ones at each rank.
   * A linear scan of the known ids: tens of thousands of entries with their symbols upper-cased
   * once per refresh, a few milliseconds, cheaper than keeping an index fresh across refreshes.
   */
  async search(query: string, limit: number): Promise<InstrumentMatch[]> {
    if (this.#now() - this.#loadedAt > this.#refreshMs) await this.refresh();
    const q = query.trim().toUpperCase().slice(0, MAX_SEARCH_QUERY);
    if (q === '') return [];
    const ranked: Array<{ rank: number; match: InstrumentMatch }> = [];
    for (const [securityId, listed] of this.#listings) {
      const rank = Math.min(
        rankOf(String(securityId), q, false),
        listed.upper ? rankOf(listed.upper, q, true) : 9,
      );
      if (rank === 9) continue;
      const stored = this.#stored.has(securityId);
      const match = { securityId, symbol: listed.symbol, segment: listed.segment, exact: rank === 0, stored };
      ranked.push({ rank: rank * 2 + (stored ? 0 : 1), match });
    }
    return ranked
      .sort((a, b) => a.rank - b.rank || a.match.securityId - b.match.securityId)
      .slice(0, limit)
      .map((r) => r.match);
  }

  refresh(): Promise<void> {
    this.#refreshing ??= (async () => {
      try {
        const rows = await this.#runner.rows<KnownRow>(KNOWN_SQL);
        const stored = new Set<number>();
        const listings = new Map<number, Listing>();
        for (const r of rows) {
          const id = Number(r.security_id);
          if (Number(r.listed_only ?? 0) === 0) stored.add(id);
          // The static list overrides what it names; the master fills in what it leaves out.
          const own = this.#static.get(id);
          listings.set(id, listing(own?.symbol ?? (r.symbol || null), own?.segment ?? (r.segment || null)));
        }
        for (const [id, own] of this.#static) if (!listings.has(id)) listings.set(id, own);
        this.#stored = stored;
        this.#listings = listings;
        this.#loadedAt = this.#now();
      } finally {
        this.#refreshing = undefined;
      }
    })();
    return this.#refreshing;
  }
}

function listing(symbol: string | null, segment: string | null): Listing {
  return { symbol, segment, upper: symbol ? symbol.toUpperCase() : null };
}

/** 0 whole match, 1 prefix, 2 substring (symbols only: an id's middle digits mean nothing), 9 none. */
function rankOf(text: string, query: string, substring: boolean): number {
  if (text === query) return 0;
  if (text.startsWith(query)) return 1;
  if (substring && text.includes(query)) return 2;
  return 9;
}
