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
