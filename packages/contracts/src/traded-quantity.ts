/**
 * A trade's traded quantity, the one rule of it (issue #30): every writer of the quantity (the
 * ingestor's decode workers, which publish it on the trade record, and the sink, which stores it in
 * market.ticks) reckons it here, so the published and the stored number cannot drift apart.
 *
 * The feed sends a trade's cumulative volume of the session, not what the trade itself traded. A
 * session is the UTC day of the trade time (`tradeDayOf`). The quantity is the step of the
 * cumulative volume from the instrument's previous trade on the same day, never below 0 (a volume
 * that steps back, a correction, trades nothing; the lower level is the one the next step starts
 * from); the day's first trade counts its whole volume. A repeat of the previous trade (same
 * volume) counts 0.
 *
 * What a reckoner holds per instrument is its base: the trade day and cumulative volume of its last
 * trade of the newest day it has seen. A trade of a later day starts that day; a trade of an earlier
 * day (a late trade) does not move the base, and its own day's predecessor is another trade than
 * the base: `quantityAfter` says undefined, and the caller finds it elsewhere (the sink keeps older
 * days) or does not know it (the ingestor publishes null).
 */

const DAY_SECONDS = 86_400;

/** The trade day of a trade time (epoch seconds): the UTC day its cumulative volume belongs to. */
export function tradeDayOf(ltt: number): number {
  return Math.floor(ltt / DAY_SECONDS);
}

/**
 * The quantity of a trade of cumulative day volume `volume` whose instrument's previous trade on
 * the same trade day had `previousVolume` (undefined: the trade is its day's first).
 */
export function tradedQuantity(previousVolume: number | undefined, volume: number): number {
  return Math.max(volume - (previousVolume ?? 0), 0);
}

/** An instrument's base: the trade day and cumulative volume of its last trade of its newest day. */
export interface QuantityBase {
  readonly day: number;
  readonly volume: number;
}

/**
 * The quantity of a trade (`day`, `volume`) of an instrument whose base is `base`: the step from
 * the base on its day, the whole volume on a later day, undefined on an earlier day (a late trade,
 * whose day's predecessor is not the base).
 */
export function quantityAfter(base: QuantityBase, day: number, volume: number): number | undefined {
  if (day === base.day) return tradedQuantity(base.volume, volume);
  return day > base.day ? tradedQuantity(undefined, volume) : undefined;
}

/** Whether a trade of `day` becomes its instrument's base (a late trade leaves the base as it is). */
export function movesBase(base: QuantityBase | undefined, day: number): boolean {
  return base === undefined || day >= base.day;
}
