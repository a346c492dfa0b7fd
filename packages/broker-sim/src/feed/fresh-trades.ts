/**
 * Trades of just-subscribed instruments (FeedServerOptions.freshTrades): some services stream to an
 * instrument the moment its subscribe request lands, snapshot first, then trades at a high rate,
 * while the client is still sending its other requests. A client has to take that in whatever state
 * its connection is in right after (re)subscribing, so the simulator can stream that way too.
 *
 * Each subscribed instrument is remembered once (by universe index) until `forMs` after its latest
 * subscription; every tick it is owed `perSecond` x elapsed trades (fractions carried over). Bounded:
 * at most one entry per subscribed instrument, and a tick publishes at most MAX_PER_TICK trades per
 * instrument however long the tick was (after a stall the rate recovers, it does not burst).
 */
import type { FreshTradeOptions } from './options.js';
import type { InstrumentSubscribers, SubscriptionBook } from './subscription-book.js';

const MAX_PER_TICK = 50;

interface Fresh {
  index: number;
  untilMs: number;
  /** Trades owed, fractions included. */
  owed: number;
}

export class FreshTrades {
  readonly #options: Required<FreshTradeOptions>;
  readonly #book: SubscriptionBook;
  readonly #fresh = new Map<number, Fresh>();

  constructor(options: Required<FreshTradeOptions>, book: SubscriptionBook) {
    this.#options = options;
    this.#book = book;
  }

  /** The instrument was just subscribed (trade) at `nowMs`: it is fresh until `forMs` later. */
  subscribed(index: number, nowMs: number): void {
    if (this.#options.forMs === 0 || this.#options.perSecond === 0) return;
    const fresh = this.#fresh.get(index);
    if (fresh) fresh.untilMs = nowMs + this.#options.forMs;
    else this.#fresh.set(index, { index, untilMs: nowMs + this.#options.forMs, owed: 0 });
  }

  /** Calls `publish` for each trade the fresh instruments are owed after `elapsedMs`; returns packets. */
  tick(elapsedMs: number, nowMs: number, publish: (entry: InstrumentSubscribers) => number): number {
    let packets = 0;
    for (const fresh of this.#fresh.values()) {
      const entry = this.#book.entryOf(fresh.index);
      if (nowMs >= fresh.untilMs || entry === undefined || entry.trade.length === 0) {
        this.#fresh.delete(fresh.index);
        continue;
      }
      fresh.owed = Math.min(MAX_PER_TICK, fresh.owed + (this.#options.perSecond * elapsedMs) / 1000);
      const trades = Math.floor(fresh.owed);
      fresh.owed -= trades;
      for (let i = 0; i < trades; i++) packets += publish(entry);
    }
    return packets;
  }

  /** Instruments fresh now. */
  get size(): number {
    return this.#fresh.size;
  }
}
