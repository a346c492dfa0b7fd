/**
 * Which instruments the API knows: every security id seen in the live feed (ticks, reference
 * data) or in loaded history (daily and intraday candles), plus a configured static list. The set is
 * held in memory and refreshed in the background of requests (at most one refresh at a time, at
 * most one per `minRefreshMs` when an unknown id is asked for), so a lookup is a hash probe.
 */
import { FEED_TABLES, HISTORY_TABLES } from '@feedpipe/contracts';
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

const KNOWN_SQL = `
SELECT DISTINCT security_id FROM (
  SELECT security_id FROM ${FEED_TABLES.ticks.name} GROUP BY security_id
  UNION ALL SELECT security_id FROM ${FEED_TABLES.referenceUpdates.name} WHERE security_id != 0 GROUP BY security_id
  UNION ALL SELECT security_id FROM ${HISTORY_TABLES.candlesDaily.name} GROUP BY security_id
  UNION ALL SELECT security_id FROM ${HISTORY_TABLES.candlesIntraday.name} GROUP BY security_id
)`;

export class InstrumentCatalog {
  readonly #runner: QueryRunner;
  readonly #static = new Map<number, StaticInstrument>();
  readonly #refreshMs: number;
  readonly #minRefreshMs: number;
  readonly #now: () => number;
  #known = new Set<number>();
  #loadedAt = Number.NEGATIVE_INFINITY;
  #refreshing: Promise<void> | undefined;

  constructor(
    runner: QueryRunner,
    staticList: readonly StaticInstrument[],
    options: { refreshMs?: number; minRefreshMs?: number; now?: () => number } = {},
  ) {
    this.#runner = runner;
    for (const i of staticList) this.#static.set(i.securityId, i);
    this.#refreshMs = options.refreshMs ?? 30_000;
    this.#minRefreshMs = options.minRefreshMs ?? 1_000;
    this.#now = options.now ?? Date.now;
  }

  async has(securityId: number): Promise<boolean> {
    if (this.#static.has(securityId)) return true;
    const age = this.#now() - this.#loadedAt;
    if (this.#known.has(securityId)) {
      // A failed background refresh is tried again by a later lookup; nothing awaits it here.
      if (age > this.#refreshMs) this.refresh().catch(() => undefined);
      return true;
    }
    if (age > this.#minRefreshMs) await this.refresh();
    return this.#known.has(securityId);
  }

  /**
   * Instruments whose symbol or id matches `query` (case-insensitive): whole matches first, then
   * prefixes, then substrings of a symbol; stored instruments before listed-only ones at each rank.
   * A linear scan of the known ids and the static list: tens of thousands of entries, well under a
   * millisecond, cheaper than keeping an index fresh across refreshes.
   */
  async search(query: string, limit: number): Promise<InstrumentMatch[]> {
    if (this.#now() - this.#loadedAt > this.#refreshMs) await this.refresh();
    const q = query.trim().toUpperCase().slice(0, MAX_SEARCH_QUERY);
    if (q === '') return [];
    const ranked = new Map<number, { rank: number; match: InstrumentMatch }>();
    const consider = (securityId: number): void => {
      if (ranked.has(securityId)) return;
      const listed = this.#static.get(securityId);
      const symbol = listed?.symbol ?? null;
      const rank = Math.min(
        rankOf(String(securityId), q, false),
        symbol ? rankOf(symbol.toUpperCase(), q, true) : 9,
      );
      if (rank === 9) return;
      const stored = this.#known.has(securityId);
      const match = { securityId, symbol, segment: listed?.segment ?? null, exact: rank === 0, stored };
      ranked.set(securityId, { rank: rank * 2 + (stored ? 0 : 1), match });
    };
    for (const id of this.#known) consider(id);
    for (const id of this.#static.keys()) consider(id);
    return [...ranked.values()]
      .sort((a, b) => a.rank - b.rank || a.match.securityId - b.match.securityId)
      .slice(0, limit)
      .map((r) => r.match);
  }

  refresh(): Promise<void> {
    this.#refreshing ??= (async () => {
      try {
        const rows = await this.#runner.rows<{ security_id: number }>(KNOWN_SQL);
        this.#known = new Set(rows.map((r) => Number(r.security_id)));
        this.#loadedAt = this.#now();
      } finally {
        this.#refreshing = undefined;
      }
    })();
    return this.#refreshing;
  }
}

/** 0 whole match, 1 prefix, 2 substring (symbols only: an id's middle digits mean nothing), 9 none. */
function rankOf(text: string, query: string, substring: boolean): number {
  if (text === query) return 0;
  if (text.startsWith(query)) return 1;
  if (substring && text.includes(query)) return 2;
  return 9;
}
