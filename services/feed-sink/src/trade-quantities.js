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
 * The ingestor publishes the same quantity on the trade record (feed.trades@2) where it knows the
 * instrument's previous trade, by the same rule (@feedpipe/contracts, traded-quantity.ts). The sink
 * does not take it; it reckons every stored trade itself and counts a published number that
 * differs (sink_trade_quantity_disagreements_total, 0 while the two agree):
 * - it must reckon anyway: records of feed.trades@1, records with null (the ingestor's first trade
 *   of an instrument after a cold start, crash or failover), a replay's records without the field;
 *   and every trade, those included, is the predecessor of the next, so its memory must see them all;
 * - what is stored must be what a reader of market.ticks sees before the trade: copies the sink
 *   drops and late trades of days the ingestor does not keep are known here only;
 * - one writer of the column: its meaning does not change with the ingestor's version, and a
 *   disagreement (a broken assumption on either side) shows as a count, not as a stored number.
 *
 * State: the last cumulative volume per (instrument, UTC day of the trade time), loaded from the
 * store's recent trades (`load`); an instrument keeps its newest day and the one before. A trade
 * whose predecessor is older than that counts as its day's first (a trade two days late, or one
 * whose predecessor was received two days before the store's newest trade of the partition
 * furthest behind: where the stored quantity can differ from the window's). Bounded by
 * MAX_INSTRUMENTS.
 */
import { FEED_TABLES, quantityAfter, tradeDayOf, tradedQuantity } from '@feedpipe/contracts';

const DAY_SECONDS = 86_400;
/** Instruments held before pruning: 40 times the 25,000 instruments one ingestor serves. */
const MAX_INSTRUMENTS = 1_000_000;
/** Newest receive time stored per partition of this Kafka cluster (epoch seconds). */
const NEWEST_SQL = `SELECT kafka_partition AS p, toUInt32(max(received_at)) AS t FROM ${FEED_TABLES.ticks.name}
WHERE kafka_cluster = {cluster:String} GROUP BY kafka_partition`;
/** Newest receive time stored at all (epoch seconds; 0 when the table is empty). */
const NEWEST_ANY_SQL = `SELECT toUInt32(max(received_at)) AS t FROM ${FEED_TABLES.ticks.name}`;
/**
 * The cumulative volume of the last stored trade of each (instrument, day) among the trades
 * received since `since`, in the window function's order. Receive time leads the sorting key after
 * the instrument, so the engine reads only the recent granules.
 */
const LAST_VOLUMES_SQL = `SELECT security_id AS sid, toUInt32(toDate(ltt)) AS day,
    argMax(volume, (received_at, kafka_offset)) AS volume
FROM ${FEED_TABLES.ticks.name}
WHERE received_at >= toDateTime64({since:UInt32}, 6, 'UTC')
GROUP BY sid, day`;
/**
 * How far back before the store's newest trade a trade still to come can find its predecessor: a
 * trading day lasts less than a day, and a late trade arrives within hours of its day.
 */
const LOOKBACK_SECONDS = 2 * DAY_SECONDS;
export class TradeQuantities {
  #byInstrument = new Map();
  #disagreed;
  /** `disagreed`: told of each trade whose published quantity differs from the one reckoned here. */
  constructor(disagreed = () => undefined) {
    this.#disagreed = disagreed;
  }
  /**
   * The quantity of the next trade of `securityId` (unsigned) at trade time `ltt` (epoch seconds,
   * not negative) with cumulative day volume `volume`; it becomes the predecessor of the next one.
   * `published`: the quantity its record carries, if any (checked, not taken).
   */
  next(securityId, ltt, volume, published) {
    const day = tradeDayOf(ltt);
    const held = this.#byInstrument.get(securityId);
    const quantity =
      held === undefined
        ? tradedQuantity(undefined, volume)
        : (quantityAfter(held, day, volume) ?? tradedQuantity(held.older?.get(day), volume));
    this.#remember(securityId, day, volume);
    if (published !== undefined && published !== quantity) this.#disagreed();
    return quantity;
  }
  /**
   * Replaces the state with the store's: the last stored trade of every instrument on each day,
   * among the trades received from LOOKBACK_SECONDS before the newest stored trade of the partition
   * that is furthest behind (this Kafka cluster's; of any, when it has none). Relative to the data,
   * not the clock, so a sink that resumes after days away, or replays a restored store's tail,
   * finds the predecessors of what it reads next. Call it with nothing buffered that the store
   * does not hold (at a start, or after a flush when partitions were assigned).
   */
  async load(lane, clusterId) {
    const newest = await lane.rows(NEWEST_SQL, { cluster: clusterId });
    const behind =
      newest.length > 0
        ? Math.min(...newest.map((r) => Number(r.t)))
        : Number((await lane.rows(NEWEST_ANY_SQL))[0]?.t ?? 0);
    this.#byInstrument.clear();
    if (behind === 0) return 0;
    const rows = await lane.rows(LAST_VOLUMES_SQL, { since: Math.max(0, behind - LOOKBACK_SECONDS) });
    for (const row of rows) this.#remember(Number(row.sid), Number(row.day), Number(row.volume));
    return rows.length;
  }
  /** Instruments held. */
  get size() {
    return this.#byInstrument.size;
  }
  /** Sets the last volume of (securityId, day). */
  #remember(securityId, day, volume) {
    const held = this.#byInstrument.get(securityId);
    if (held === undefined) {
      // Ids of no instrument could grow the map without end: all of it goes at the bound.
      if (this.#byInstrument.size >= MAX_INSTRUMENTS) this.#byInstrument.clear();
      this.#byInstrument.set(securityId, { day, volume, older: undefined });
    } else if (day === held.day) {
      held.volume = volume;
    } else if (day > held.day) {
      // A new day: the newest one so far moves to the older days, of which the day before is kept.
      const older = held.older ?? new Map();
      older.set(held.day, held.volume);
      for (const kept of older.keys()) if (kept < day - 1) older.delete(kept);
      held.older = older.size > 0 ? older : undefined;
      held.day = day;
      held.volume = volume;
    } else {
      const older = held.older ?? new Map();
      held.older = older;
      older.set(day, volume);
    }
  }
}
//# sourceMappingURL=trade-quantities.js.map
