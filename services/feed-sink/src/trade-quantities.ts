/**
 * Each trade's traded quantity, stored beside it in market.ticks (`quantity`): the trade's
 * cumulative day volume minus that of the instrument's previous trade stored on the same UTC day
 * (by trade time), at least 0; the day's first stored trade counts its whole volume. This is the
 * value bars used to compute per request with a window function over the ticks.
 *
 * Why the sink, not the ingestor's decode workers:
 * - the quantity is a fact about what is STORED (the predecessor a bar's query would see), and the
 *   sink is the one place that sees every stored trade of an instrument in order: an instrument's
 *   records share a partition, a partition is read in offset order by one member, and copies
 *   (source identity) and replays (stored offsets) are dropped here before a trade counts;
 * - its memory can always be rebuilt exactly from the store (`load`), at a start or when partitions
 *   move between members. The ingestor's cannot: after a restart or a crash its first packet of an
 *   instrument is the resubscription snapshot, whose predecessor the previous run produced (and the
 *   write-ahead log replays only what Kafka had not acknowledged, not the trades before it);
 * - repeats the decode workers drop never reach Kafka; one that does (a snapshot repeating a trade
 *   across an ingestor restart) has the volume of the trade before it and counts 0, as the window did.
 *
 * State: the last cumulative volume per (instrument, UTC day of the trade time), bounded: loaded
 * for the days from the one before the load's day on, and pruned to the two newest days seen when
 * it outgrows its bound. A trade of an older day whose day is not held counts as the day's first
 * (a trade two days late: the one case where the stored quantity can differ from the window's).
 */
import { FEED_TABLES } from '@feedpipe/contracts';
import type { StoreLane } from '@feedpipe/store';

const DAY_SECONDS = 86_400;
/** Keys are day * 2^32 + security id: below 2^53 for every day a DateTime holds. */
const ID_SPAN = 0x1_0000_0000;
/** Entries held before pruning: a few days of the 25,000 instruments one ingestor serves, with room. */
const MAX_ENTRIES = 1_000_000;

/** The last stored trade of each (instrument, day), as the window function ordered them. */
const LAST_VOLUMES_SQL = `SELECT security_id AS sid, toUInt32(toDate(ltt)) AS day,
    argMax(volume, (received_at, kafka_offset)) AS volume
FROM ${FEED_TABLES.ticks.name}
WHERE ltt >= toDateTime({since:UInt32}, 'UTC')
GROUP BY sid, day`;

export class TradeQuantities {
  readonly #last = new Map<number, number>();
  #newestDay = 0;

  /**
   * The quantity of the next trade of `securityId` (unsigned) at trade time `ltt` (epoch seconds,
   * not negative) with cumulative day volume `volume`; it becomes the predecessor of the next one.
   */
  next(securityId: number, ltt: number, volume: number): number {
    const day = Math.floor(ltt / DAY_SECONDS);
    const key = day * ID_SPAN + securityId;
    const previous = this.#last.get(key);
    if (previous === undefined && this.#last.size >= MAX_ENTRIES) this.#prune();
    this.#last.set(key, volume);
    if (day > this.#newestDay) this.#newestDay = day;
    return Math.max(volume - (previous ?? 0), 0);
  }

  /**
   * Replaces the state with the store's: the last stored trade of every instrument on each day
   * from the one before `nowSec`'s on. Call it with nothing buffered that the store does not hold
   * (at a start, or after a flush when partitions were assigned).
   */
  async load(lane: StoreLane, nowSec: number): Promise<number> {
    const since = (Math.floor(nowSec / DAY_SECONDS) - 1) * DAY_SECONDS;
    const rows = await lane.rows<{ sid: number | string; day: number | string; volume: number | string }>(
      LAST_VOLUMES_SQL,
      { since },
    );
    this.#last.clear();
    this.#newestDay = 0;
    for (const row of rows) {
      const day = Number(row.day);
      this.#last.set(day * ID_SPAN + Number(row.sid), Number(row.volume));
      if (day > this.#newestDay) this.#newestDay = day;
    }
    return rows.length;
  }

  /** Instrument-days held. */
  get size(): number {
    return this.#last.size;
  }

  /** Keeps the two newest days; all of it goes when they alone fill the bound (ids of no instrument). */
  #prune(): void {
    const keepFrom = (this.#newestDay - 1) * ID_SPAN;
    for (const key of this.#last.keys()) if (key < keepFrom) this.#last.delete(key);
    if (this.#last.size >= MAX_ENTRIES) this.#last.clear();
  }
}
