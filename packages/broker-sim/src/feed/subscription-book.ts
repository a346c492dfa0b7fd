/**
 * Who is subscribed to what, indexed by instrument so a trade is generated once and fanned out to
 * every subscriber. `active` lists the instruments with at least one subscriber, in a stable order
 * (insertion, swap-remove), which the generators walk: live mode tick by tick, load mode round-robin.
 */
import type { FeedConnection } from './connection.js';

export type SubscriptionKind = 'trade' | 'ohlc';

export interface InstrumentSubscribers {
  readonly index: number;
  readonly trade: FeedConnection[];
  readonly ohlc: FeedConnection[];
  /** Position in `SubscriptionBook.active`. */
  slot: number;
}

export class SubscriptionBook {
  readonly active: InstrumentSubscribers[] = [];
  private readonly byIndex = new Map<number, InstrumentSubscribers>();

  /** Adds the subscription; returns false if the connection already had it. */
  add(connection: FeedConnection, index: number, kind: SubscriptionKind): boolean {
    const own = kind === 'trade' ? connection.tradeSubs : connection.ohlcSubs;
    if (own.has(index)) return false;
    own.add(index);
    let entry = this.byIndex.get(index);
    if (entry === undefined) {
      entry = { index, trade: [], ohlc: [], slot: this.active.length };
      this.byIndex.set(index, entry);
      this.active.push(entry);
    }
    entry[kind].push(connection);
    return true;
  }

  /** Removes the subscription; returns false if the connection did not have it. */
  remove(connection: FeedConnection, index: number, kind: SubscriptionKind): boolean {
    const own = kind === 'trade' ? connection.tradeSubs : connection.ohlcSubs;
    if (!own.delete(index)) return false;
    if (kind === 'trade') connection.pendingReference.delete(index);
    const entry = this.byIndex.get(index);
    if (entry === undefined) return true;
    const list = entry[kind];
    const at = list.indexOf(connection);
    if (at >= 0) list.splice(at, 1);
    if (entry.trade.length === 0 && entry.ohlc.length === 0) this.drop(entry);
    return true;
  }

  removeConnection(connection: FeedConnection): void {
    for (const index of [...connection.tradeSubs]) this.remove(connection, index, 'trade');
    for (const index of [...connection.ohlcSubs]) this.remove(connection, index, 'ohlc');
  }

  /** The instrument's subscribers, undefined when it has none. */
  entryOf(index: number): InstrumentSubscribers | undefined {
    return this.byIndex.get(index);
  }

  get instrumentCount(): number {
    return this.active.length;
  }

  private drop(entry: InstrumentSubscribers): void {
    this.byIndex.delete(entry.index);
    const last = this.active.pop();
    if (last !== undefined && last !== entry) {
      last.slot = entry.slot;
      this.active[entry.slot] = last;
    }
  }
}
