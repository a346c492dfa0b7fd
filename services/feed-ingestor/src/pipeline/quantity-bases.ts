/**
 * The main thread's quantity bases, per connection (what they are: chunk-quantities.ts): the bases
 * each acknowledged chunk's worker reported, shipped with the connection's next chunk. One chunk of
 * a connection is in flight at a time and an instrument lives on one connection, so a connection's
 * bases are exactly what Kafka holds of its instruments when its next chunk goes.
 *
 * Kept per connection, not per instrument, so that nothing crosses between connections unsettled:
 * an instrument that moves onto a connection (a live subscription, a handover's successor) has no
 * base there until one is handed over settled (a handover's cut) or its first trade there starts
 * one; while the other connection may still have its earlier trades in flight, a base carried over
 * could be older than what the sink stores before the new trade.
 */
import { BASE_STRIDE } from './chunk-quantities.js';

const NONE = new Float64Array(0);

export class QuantityBases {
  readonly #byConnection = new Map<number, Float64Array>();
  /** Connections with a chunk out (shipped its bases, not settled yet). */
  readonly #out = new Set<number>();
  /** Instruments forgotten on a connection while a chunk of it was out: also gone from its result. */
  readonly #forgotten = new Map<number, Set<number>>();

  /** `connection`'s bases (sorted by security id; empty: none known). */
  of(connection: number): Float64Array {
    return this.#byConnection.get(connection) ?? NONE;
  }

  /**
   * The bases for `connection`'s next chunk, which goes now: a copy of of(connection), the
   * caller's to transfer (a memcpy of at most 5,000 x BASE_STRIDE numbers).
   */
  ship(connection: number): Float64Array {
    this.#out.add(connection);
    return this.of(connection).slice();
  }

  /**
   * A chunk of `connection` was acknowledged: the bases it started or moved (sorted by id, as the
   * worker reports them) replace the connection's of the same instruments.
   */
  settle(connection: number, moved: Float64Array): void {
    const forgotten = this.#forgotten.get(connection);
    this.#forgotten.delete(connection);
    this.#out.delete(connection);
    const bases = merged(this.of(connection), forgotten ? without(moved, forgotten) : moved);
    this.#byConnection.set(connection, bases);
  }

  /**
   * `securityIds` are (again) subscribed on `connection`: whatever base it had of them may be older
   * than trades another connection produced meanwhile.
   */
  forget(connection: number, securityIds: Iterable<number>): void {
    const ids = new Set(securityIds);
    if (ids.size === 0) return;
    const held = this.#byConnection.get(connection);
    if (held) this.#byConnection.set(connection, without(held, ids));
    if (!this.#out.has(connection)) return;
    const pending = this.#forgotten.get(connection) ?? new Set<number>();
    for (const id of ids) pending.add(id);
    this.#forgotten.set(connection, pending);
  }

  /**
   * Nothing of `connection` is known any more: a chunk of it was given up after part of it may
   * have reached Kafka, or it is handed over without bases.
   */
  clear(connection: number): void {
    this.#byConnection.delete(connection);
    this.#forgotten.delete(connection);
    this.#out.delete(connection);
  }

  /** Sets `connection`'s bases (a handover's cut): BaseEntry values, in any order. */
  adopt(connection: number, bases: readonly BaseEntry[]): void {
    const sorted = [...bases].sort((a, b) => a[0] - b[0]);
    const out = new Float64Array(sorted.length * BASE_STRIDE);
    sorted.forEach((entry, i) => {
      out.set(entry, i * BASE_STRIDE);
    });
    this.#byConnection.set(connection, out);
    this.#forgotten.delete(connection);
  }

  /** The connections that have bases. */
  connections(): IterableIterator<number> {
    return this.#byConnection.keys();
  }

  /** `connection`'s bases as BaseEntry values (a handover's cut). */
  entriesOf(connection: number): BaseEntry[] {
    const bases = this.of(connection);
    const out: BaseEntry[] = [];
    for (let i = 0; i < bases.length; i += BASE_STRIDE) out.push(entryAt(bases, i));
    return out;
  }
}

/** One instrument's base as a plain tuple: [securityId, trade day, cumulative volume, firmFrom day]. */
export type BaseEntry = [number, number, number, number];

const entryAt = (bases: Float64Array, i: number): BaseEntry => [
  bases[i] as number,
  bases[i + 1] as number,
  bases[i + 2] as number,
  bases[i + 3] as number,
];

/**
 * `held` with the entries of `moved` taking the place of its own of the same ids; both sorted by
 * id. Runs on the socket thread once per chunk over up to 5,000 entries: plain index copies, no
 * view or array per entry.
 */
function merged(held: Float64Array, moved: Float64Array): Float64Array {
  if (moved.length === 0) return held;
  const out = new Float64Array(held.length + moved.length);
  let h = 0;
  let m = 0;
  let o = 0;
  while (h < held.length || m < moved.length) {
    const heldId = h < held.length ? (held[h] as number) : Number.POSITIVE_INFINITY;
    const movedId = m < moved.length ? (moved[m] as number) : Number.POSITIVE_INFINITY;
    const from = movedId <= heldId ? moved : held;
    const at = movedId <= heldId ? m : h;
    for (let k = 0; k < BASE_STRIDE; k++) out[o + k] = from[at + k] as number;
    o += BASE_STRIDE;
    if (movedId <= heldId) m += BASE_STRIDE;
    if (heldId <= movedId) h += BASE_STRIDE;
  }
  return o === out.length ? out : out.slice(0, o);
}

/** `bases` without the instruments of `ids`. */
function without(bases: Float64Array, ids: ReadonlySet<number>): Float64Array {
  const kept: number[] = [];
  for (let i = 0; i < bases.length; i += BASE_STRIDE)
    if (!ids.has(bases[i] as number)) kept.push(...entryAt(bases, i));
  return Float64Array.from(kept);
}
