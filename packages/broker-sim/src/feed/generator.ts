/**
 * Turns model trades into packets for subscribers. Two drivers:
 * - live mode: each tick, every subscribed instrument trades with a fixed probability;
 * - load mode: a packet budget per tick, spent round-robin over subscribed instruments; every trade
 *   adds exactly one lot, so per instrument the volume is a sequence number (gaps and duplicates show).
 * Either way a trade is generated once per instrument and fanned out to every subscriber, and each
 * connection's output of one tick leaves corked, in messages of up to `maxPacketsPerMessage` packets.
 *
 * Backpressure: a subscriber over its buffered-bytes bound gets nothing (counted as `skipped` on the
 * connection); an instrument none of whose subscribers can take data is not traded at all (counted
 * as `deferred`), so a slow client costs neither memory nor sequence gaps where it is the only reader.
 */
import { SEGMENT_INX_EQ } from '@feedpipe/codec';
import type { MarketModel } from '../market/model.js';
import { unit3 } from '../market/prng.js';
import { MARKET_STATUS_CODE, MARKET_TYPE_REGULAR } from '../market/sessions.js';
import type { MarketSession } from '../market/types.js';
import type { FeedConnection } from './connection.js';
import type { FeedCounters } from './feed-counters.js';
import type { FreshTrades } from './fresh-trades.js';
import { appendOhlc, appendReference, appendTrade } from './packets.js';
import type { InstrumentSubscribers, SubscriptionBook } from './subscription-book.js';

/** Salt range of the per-tick trade draws, apart from the model's attribute salts. */
const TICK_SALT_BASE = 0x4000_0000;

export class FeedGenerator {
  private readonly batch: FeedConnection[] = [];
  private cursor = 0;
  private liveTicks = 0;
  /** Counts every tick (live and load), the key of each connection's per-tick writability. */
  private tick = 0;

  constructor(
    private readonly model: MarketModel,
    private readonly book: SubscriptionBook,
    private readonly counters: FeedCounters,
    /** Trades of just-subscribed instruments (options.freshTrades); undefined when off. */
    private readonly fresh?: FreshTrades,
    /** Every trade one lot (load mode: per instrument the volume is a sequence number). */
    private readonly singleLot = false,
  ) {}

  /**
   * A Subscribe Trade request just added `index` (its snapshot is queued): with fresh trades on, it
   * trades now, right after the snapshot, and keeps trading at the fresh rate for a while.
   */
  subscribedTrade(index: number, nowMs: number): number {
    const fresh = this.fresh;
    const entry = this.book.entryOf(index);
    if (fresh === undefined || entry === undefined) return 0;
    // Live trading happens only while the market is open; load mode trades regardless.
    if (!this.singleLot && this.model.session() !== 'OPEN') return 0;
    fresh.subscribed(index, nowMs);
    return this.publishTrade(entry, Math.floor(nowMs / 1000), this.singleLot);
  }

  /** The trades fresh instruments are owed after `elapsedMs`; sent with the tick's other output. */
  freshTick(elapsedMs: number, nowMs: number): number {
    const fresh = this.fresh;
    if (fresh === undefined) return 0;
    const nowSec = Math.floor(nowMs / 1000);
    this.tick++;
    return fresh.tick(elapsedMs, nowMs, (entry) => this.publishTrade(entry, nowSec, this.singleLot));
  }

  /** Puts the connection in this tick's corked batch (once). */
  touch(c: FeedConnection): void {
    if (!c.inBatch) {
      c.beginBatch();
      this.batch.push(c);
    }
  }

  /** Sends and uncorks everything the tick queued. */
  finish(): void {
    for (const c of this.batch) c.endBatch();
    this.batch.length = 0;
  }

  /**
   * One live tick at epoch second `nowSec`: each subscribed instrument trades with probability
   * `probability`, decided by a hash of (seed, security id, tick number) so the choice does not
   * disturb the instrument's own price stream.
   */
  liveTick(nowSec: number, probability: number): number {
    this.tick++;
    const salt = TICK_SALT_BASE + (this.liveTicks++ % TICK_SALT_BASE);
    const seed = this.model.seed;
    let packets = 0;
    for (const entry of this.book.active) {
      if (unit3(seed, this.model.securityIdAt(entry.index), salt) < probability) {
        packets += this.publishTrade(entry, nowSec, false);
      }
    }
    this.finish();
    return packets;
  }

  /** Spends up to about `budget` packets (a trade's fan-out may overshoot by a few). Returns packets queued. */
  loadTick(budget: number, nowSec: number): number {
    const active = this.book.active;
    const tick = ++this.tick;
    let packets = 0;
    let idle = 0;
    while (packets < budget && idle < active.length) {
      if (this.cursor >= active.length) this.cursor = 0;
      const entry = active[this.cursor++] as InstrumentSubscribers;
      if (!hasWritableSubscriber(entry, tick)) {
        idle++;
        this.counters.deferred++;
        continue;
      }
      idle = 0;
      packets += this.publishTrade(entry, nowSec, true);
    }
    this.finish();
    return packets;
  }

  /** Market Status to every connection that can receive, at a session change. */
  broadcastSession(connections: Iterable<FeedConnection>, session: MarketSession): void {
    for (const c of connections) {
      if (c.closing || c.stalled) continue;
      this.touch(c);
      c.reserve(1);
      c.builder.marketStatus(SEGMENT_INX_EQ, 0, MARKET_TYPE_REGULAR, MARKET_STATUS_CODE[session]);
      this.counters.marketStatus++;
    }
  }

  private publishTrade(entry: InstrumentSubscribers, nowSec: number, singleLot: boolean): number {
    const model = this.model;
    const counters = this.counters;
    const i = entry.index;
    model.trade(i, nowSec, singleLot);
    counters.generatedTrades++;
    const tick = this.tick;
    let packets = 0;
    for (const c of entry.trade) {
      if (!c.writableIn(tick)) {
        c.counters.skipped++;
        continue;
      }
      this.touch(c);
      c.reserve(1);
      appendTrade(c, model, counters, i);
      packets++;
      if (c.pendingReference.size !== 0 && c.pendingReference.has(i) && model.hasReference(i)) {
        c.reserve(2);
        appendReference(c, model, counters, i);
        c.pendingReference.delete(i);
        packets += 2;
      }
    }
    for (const c of entry.ohlc) {
      if (!c.writableIn(tick)) {
        c.counters.skipped++;
        continue;
      }
      this.touch(c);
      c.reserve(1);
      appendOhlc(c, model, counters, i);
      packets++;
    }
    return packets;
  }
}

function hasWritableSubscriber(entry: InstrumentSubscribers, tick: number): boolean {
  for (const c of entry.trade) if (c.writableIn(tick)) return true;
  for (const c of entry.ohlc) if (c.writableIn(tick)) return true;
  return false;
}
