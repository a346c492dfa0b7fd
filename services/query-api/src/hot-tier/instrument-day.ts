/**
 * The trades of one instrument on one UTC day (of trade time), as columns in the order BARS_SQL
 * reads them: by receive time, then Kafka offset. Typed arrays, no object per trade.
 *
 * Why trades and not pre-aggregated bars: a bar's VWAP is ClickHouse's sequential Float64 sum of
 * price x quantity over the bar's trades in receive order, and a trade's quantity is its
 * cumulative day volume minus that of the trade received just before it. Partial sums of 1-second
 * buckets merged into a minute round differently from the sequential sum, and a late trade changes
 * its successor's quantity; so the answer is only byte-for-byte BARS_SQL's when it is summed
 * from the trades themselves, in their order, at request time (a day of ~2,000 trades is a few
 * microseconds of work).
 *
 * Memory: BYTES_PER_TRADE a trade; the loaded days are trimmed to their trades, a day growing
 * from the feed has up to as much again of spare capacity (the arrays double).
 */
import { resized } from './typed-columns.js';

/** ltt (4) + ltp (4) + volume (4) + received_at in µs (8) + Kafka offset (8). */
export const BYTES_PER_TRADE = 28;
const INITIAL_CAPACITY = 64;

export class InstrumentDay {
  /** Trade time, epoch seconds. */
  ltt: Uint32Array;
  ltp: Float32Array;
  /** Cumulative day volume as the feed sends it. */
  volume: Int32Array;
  /** Receive time, epoch microseconds (exact below 2^53). */
  receivedAt: Float64Array;
  offset: Float64Array;
  length = 0;

  constructor(capacity = INITIAL_CAPACITY) {
    this.ltt = new Uint32Array(capacity);
    this.ltp = new Float32Array(capacity);
    this.volume = new Int32Array(capacity);
    this.receivedAt = new Float64Array(capacity);
    this.offset = new Float64Array(capacity);
  }

  /** Bytes the columns hold (capacity, not just the trades). */
  get bytes(): number {
    return this.ltt.length * BYTES_PER_TRADE;
  }

  /**
   * Adds a trade at its place in (receivedAt, offset) order: at the end in the usual case, else
   * after the last trade that sorts before it (a copy of the columns' tail, rare). A trade with
   * the same (receivedAt, offset) as one held is a repeat and is not added. Returns the index the
   * trade took (length - 1 when it is the latest), or -1 for a repeat.
   */
  add(ltt: number, ltp: number, volume: number, receivedAt: number, offset: number): number {
    let at = this.length;
    while (at > 0) {
      const r = this.receivedAt[at - 1] as number;
      const o = this.offset[at - 1] as number;
      if (r < receivedAt || (r === receivedAt && o < offset)) break;
      if (r === receivedAt && o === offset) return -1;
      at--;
    }
    if (this.length === this.ltt.length) this.#grow();
    if (at < this.length) {
      this.ltt.copyWithin(at + 1, at, this.length);
      this.ltp.copyWithin(at + 1, at, this.length);
      this.volume.copyWithin(at + 1, at, this.length);
      this.receivedAt.copyWithin(at + 1, at, this.length);
      this.offset.copyWithin(at + 1, at, this.length);
    }
    this.ltt[at] = ltt;
    this.ltp[at] = ltp;
    this.volume[at] = volume;
    this.receivedAt[at] = receivedAt;
    this.offset[at] = offset;
    this.length++;
    return at;
  }

  /** Drops the spare capacity (after the load: the loaded days mostly stop growing). */
  trim(): void {
    if (this.length === this.ltt.length) return;
    this.ltt = this.ltt.slice(0, this.length);
    this.ltp = this.ltp.slice(0, this.length);
    this.volume = this.volume.slice(0, this.length);
    this.receivedAt = this.receivedAt.slice(0, this.length);
    this.offset = this.offset.slice(0, this.length);
  }

  #grow(): void {
    const capacity = Math.max(INITIAL_CAPACITY, this.ltt.length * 2);
    this.ltt = resized(this.ltt, capacity, this.length);
    this.ltp = resized(this.ltp, capacity, this.length);
    this.volume = resized(this.volume, capacity, this.length);
    this.receivedAt = resized(this.receivedAt, capacity, this.length);
    this.offset = resized(this.offset, capacity, this.length);
  }
}
