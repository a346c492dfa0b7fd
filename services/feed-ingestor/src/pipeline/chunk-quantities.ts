/**
 * Each trade's traded quantity within one chunk of a connection (the rule: @feedpipe/contracts,
 * traded-quantity.ts), reckoned in the decode worker from the connection's bases: for each
 * instrument whose previous trade the ingestor knows, the trade day and cumulative volume of its
 * last trade of its newest day, as they stood after the connection's previous chunk
 * (quantity-bases.ts ships them with every chunk; one chunk of a connection is in flight at a time,
 * so they are complete when it goes).
 *
 * Unknown (NaN, published null) where the ingestor cannot know the predecessor the sink will
 * store: an instrument without a base (its first trade after a cold start, a crash, a failover, a
 * move between connections), and a late trade (a day earlier than its base's: its own day's
 * predecessor is not the base).
 *
 * A base started by a trade of unknown quantity reckons its successors of the same day exactly
 * (the sink reckons them from the same trade, whatever it held before). A later day's first trade
 * is that day's first for the sink too only if the sink holds no later day of the instrument from
 * before the base started; the feed does not promise that trade times never go back a day, but no
 * trade the sink stored before the base's first was received later than it, and a trade time is
 * not a day ahead of its receipt. So a base is trusted for a later day from its `firmFrom` day on:
 * two days after the receive day of the trade that started it (one for the feed's clock running
 * ahead near midnight); a later day's first trade before that stays unknown. A handover's cut and a
 * clean stop's state file carry `firmFrom` with the base. A trade time near 1970 is the feed's "not
 * populated": such a trade starts nothing.
 *
 * Bases travel as one Float64Array sorted by security id, BASE_STRIDE values each
 * ([securityId, day, volume, firmFrom]...): a binary search per instrument of the chunk instead
 * of a Map built per chunk from 5,000 entries; only the bases the chunk moved go back.
 */
import { movesBase, quantityAfter, tradeDayOf } from '@feedpipe/contracts';

/** Values per instrument in a connection's bases: security id, trade day, cumulative volume, firmFrom. */
export const BASE_STRIDE = 4;

/** Trade times before this (2000-01-01 UTC, epoch seconds) are the feed's "not populated". */
const POPULATED_FROM = 946_684_800;
/** Days from the receipt of a base's first trade to its firmFrom day. */
const FIRM_AFTER_DAYS = 2;

/** The index of `id` in sorted `bases` (in instruments), or -1. */
function findBase(bases: Float64Array, id: number): number {
  let low = 0;
  let high = bases.length / BASE_STRIDE - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const at = bases[mid * BASE_STRIDE] as number;
    if (at === id) return mid;
    if (at < id) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}

/** An instrument's base while the chunk moves it (a QuantityBase one can write). */
interface MovedBase {
  day: number;
  volume: number;
  /** The first trade day a later-day trade is reckoned from the base. */
  firmFrom: number;
  /** Started or moved by the chunk. */
  changed: boolean;
}

export class ChunkQuantities {
  readonly #given: Float64Array;
  /** The chunk's instruments: their base now, or null while none is known. */
  readonly #moved = new Map<number, MovedBase | null>();
  /** Trades whose quantity is unknown. */
  unknown = 0;

  /** `bases`: the connection's, sorted by id (none: nothing is known, e.g. a write-ahead log's replay). */
  constructor(bases: Float64Array | undefined) {
    this.#given = bases ?? new Float64Array(0);
  }

  /**
   * The quantity of the chunk's next produced trade of `securityId` (trade time `ltt`, cumulative
   * day volume `volume`, received at `receivedAtMicros`), NaN when unknown; the trade becomes the
   * instrument's base where the rule says so.
   */
  next(securityId: number, ltt: number, volume: number, receivedAtMicros: number): number {
    const base = this.#baseOf(securityId);
    const day = tradeDayOf(ltt);
    let quantity: number | undefined;
    if (base === null) {
      if (ltt >= POPULATED_FROM) {
        const firmFrom = tradeDayOf(receivedAtMicros / 1e6) + FIRM_AFTER_DAYS;
        this.#moved.set(securityId, { day, volume, firmFrom, changed: true });
      }
    } else {
      if (day === base.day || day >= base.firmFrom) quantity = quantityAfter(base, day, volume);
      if (movesBase(base, day)) {
        base.day = day;
        base.volume = volume;
        base.changed = true;
      }
    }
    if (quantity === undefined) {
      this.unknown += 1;
      return Number.NaN;
    }
    return quantity;
  }

  /**
   * The bases the chunk started or moved, sorted by id (BASE_STRIDE values each): what the
   * connection's bases take over (quantity-bases.ts). Only these go back to the main thread: a few
   * hundred instruments of a chunk, not the connection's thousands.
   */
  moved(): Float64Array {
    const ids: number[] = [];
    for (const [id, base] of this.#moved) if (base?.changed) ids.push(id);
    ids.sort((a, b) => a - b);
    const out = new Float64Array(ids.length * BASE_STRIDE);
    ids.forEach((id, i) => {
      const base = this.#moved.get(id) as MovedBase;
      out.set([id, base.day, base.volume, base.firmFrom], i * BASE_STRIDE);
    });
    return out;
  }

  /** The instrument's base, looked up in the given bases on its first trade of the chunk. */
  #baseOf(securityId: number): MovedBase | null {
    const moved = this.#moved.get(securityId);
    if (moved !== undefined) return moved;
    const at = findBase(this.#given, securityId) * BASE_STRIDE;
    const given = this.#given;
    const base =
      at < 0
        ? null
        : {
            day: given[at + 1] as number,
            volume: given[at + 2] as number,
            firmFrom: given[at + 3] as number,
            changed: false,
          };
    this.#moved.set(securityId, base);
    return base;
  }
}
