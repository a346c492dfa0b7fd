/**
 * Stale instruments, for the ledger of gaps: a subscription that is live while the market is open
 * but brings no trade for `staleAfterMs` is a `stale` gap of that instrument, from its last trade
 * (or from when it could first have traded: the connection live, the market open) to its next
 * trade. It is recorded when it ends: at that trade, or when the connection stops being live (its
 * own gap takes over from there), the market closes (no trade is due) or the ingestor stops.
 *
 * Which instruments traded comes from the decode workers (TradeMemory.lastTradeAt). "Market open"
 * is the feed's own Market Status (readiness.ts); before the first one nothing is judged stale,
 * since a closed market and a quiet instrument cannot be told apart. Checked every `checkEveryMs`.
 */
import type { GapInterval } from './gap-tracker.js';

export interface StaleWatcherOptions {
  /** No trade for this long while live and open is stale; > 0. */
  staleAfterMs: number;
  /** How often instruments are checked. Default a quarter of `staleAfterMs`, within 100..5 000 ms. */
  checkEveryMs?: number;
  /** When the instrument last traded (epoch ms), undefined before its first trade. */
  lastTradeAt: (securityId: number) => number | undefined;
  /** The trade instruments a connection holds now. */
  instrumentsOf: (connection: number) => ReadonlySet<string>;
  /** When a trade instrument was subscribed (epoch ms): it cannot have been quiet for longer. */
  subscribedAt?: (securityId: string) => number | undefined;
  /** A closed stale interval, for the ledger (one instrument, `only`). */
  record: (interval: GapInterval) => void;
  now?: () => number;
}

interface StaleGap {
  connection: number;
  startedAtMs: number;
}

const NONE: ReadonlySet<string> = new Set();

export class StaleWatcher {
  readonly #o: StaleWatcherOptions;
  /** Live connections and since when (epoch ms). */
  readonly #liveSince = new Map<number, number>();
  /** Open stale gaps by security id. */
  readonly #stale = new Map<number, StaleGap>();
  #marketOpenSince: number | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: StaleWatcherOptions) {
    if (!(options.staleAfterMs > 0)) throw new RangeError('staleAfterMs must be > 0');
    this.#o = options;
  }

  start(): void {
    const every =
      this.#o.checkEveryMs ?? Math.min(5_000, Math.max(100, Math.floor(this.#o.staleAfterMs / 4)));
    this.#timer = setInterval(() => this.check(), every);
    this.#timer.unref();
  }

  /** Shutdown: every open stale gap ends at `atMs`. */
  stop(atMs: number): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    for (const [id, gap] of [...this.#stale]) this.#end(id, gap, atMs);
  }

  /** A connection's subscriptions became live, or stopped being live, at `atMs`. */
  link(connection: number, live: boolean, atMs: number): void {
    if (live) {
      this.#liveSince.set(connection, atMs);
      return;
    }
    this.#liveSince.delete(connection);
    for (const [id, gap] of [...this.#stale]) if (gap.connection === connection) this.#end(id, gap, atMs);
  }

  /** The market opened or closed (the feed's Market Status) at `atMs`. */
  market(open: boolean, atMs: number): void {
    if (open) {
      this.#marketOpenSince ??= atMs;
      return;
    }
    this.#marketOpenSince = undefined;
    for (const [id, gap] of [...this.#stale]) this.#end(id, gap, atMs);
  }

  /** Open stale gaps: security id and since when. */
  openGaps(): Array<{ securityId: number; connection: number; startedAtMs: number }> {
    return [...this.#stale].map(([securityId, g]) => ({ securityId, ...g }));
  }

  /** One pass over the live connections' instruments (the timer's work; public for tests). */
  check(): void {
    const openSince = this.#marketOpenSince;
    if (openSince === undefined) return;
    const now = (this.#o.now ?? Date.now)();
    for (const [connection, liveSince] of this.#liveSince) {
      for (const id of this.#o.instrumentsOf(connection)) {
        const securityId = Number(id);
        const last = this.#o.lastTradeAt(securityId);
        const open = this.#stale.get(securityId);
        if (open) {
          if (last !== undefined && last > open.startedAtMs) this.#end(securityId, open, last);
          continue;
        }
        const quietFrom = Math.max(last ?? 0, liveSince, openSince, this.#o.subscribedAt?.(id) ?? 0);
        if (now - quietFrom > this.#o.staleAfterMs)
          this.#stale.set(securityId, { connection, startedAtMs: quietFrom });
      }
    }
    // An instrument unsubscribed while stale: its gap ends now.
    for (const [id, gap] of [...this.#stale])
      if (!this.#o.instrumentsOf(gap.connection).has(String(id))) this.#end(id, gap, now);
  }

  #end(securityId: number, gap: StaleGap, atMs: number): void {
    this.#stale.delete(securityId);
    this.#o.record({
      connection: gap.connection,
      cause: 'stale',
      startedAtMs: gap.startedAtMs,
      endedAtMs: Math.max(atMs, gap.startedAtMs),
      only: { trade: new Set([String(securityId)]), ohlc: NONE },
    });
  }
}
