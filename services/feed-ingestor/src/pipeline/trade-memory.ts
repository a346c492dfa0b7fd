/**
 * The last trade the ingestor produced of every instrument, from the decode workers' reports
 * (ChunkResult.traded): when it traded, for the stale watch (gaps/stale-watcher.ts), and its
 * cumulative volume and trade time, for the repeat guard.
 *
 * The repeat guard: a connection that (re)opens subscribes again and the feed answers each
 * subscription with a snapshot, the instrument's last trade, which was produced already unless it
 * traded in between. From the socket's open until each of its instruments has had its first trade
 * on the new socket (or `guardMs` passed since the first chunk after the open went out), every
 * chunk of the connection carries the previous trade of the instruments still waiting; the worker
 * drops a trade not newer than it (chunk-encoder.ts). One chunk of a connection is in flight at a
 * time, so the memory is complete for it when the next one is sent.
 *
 * It also keeps each connection's quantity bases (quantity-bases.ts), which the same events move:
 * an instrument subscribed anew has none on its connection, a handover's cut brings the old
 * leader's.
 */
import { GUARD_STRIDE, TRADED_STRIDE } from './chunk-encoder.js';
import { type BaseEntry, QuantityBases } from './quantity-bases.js';

interface LastTrade {
  volume: number;
  ltt: number;
  /** Receive time, epoch ms. */
  atMs: number;
}

interface Guard {
  /** Security ids whose first trade on the new socket has not been reported yet. */
  pending: Set<number>;
  /** The socket's open time, epoch µs: a trade received from then on is the new socket's. */
  sinceMicros: number;
  /** Set by the first chunk that carries the guard (see guardFor). */
  untilMs: number | undefined;
}

export interface TradeMemoryOptions {
  /** The trade instruments a connection holds now. */
  instrumentsOf: (connection: number) => ReadonlySet<string>;
  /** How long after the first chunk that carries it the guard is kept at most. Default 30 000 ms. */
  guardMs?: number;
  now?: () => number;
}

/** Instruments remembered at most (a hostile stream of ids cannot grow it without bound). */
const MAX_INSTRUMENTS = 1_000_000;

export class TradeMemory {
  readonly #o: TradeMemoryOptions;
  readonly #last = new Map<number, LastTrade>();
  readonly #guards = new Map<number, Guard>();
  /** Each connection's quantity bases, for its next chunk. */
  readonly bases = new QuantityBases();

  constructor(options: TradeMemoryOptions) {
    this.#o = options;
  }

  /** The decode worker's report of a chunk of `connection`. */
  record(connection: number, traded: Float64Array): void {
    const guard = this.#guards.get(connection);
    for (let i = 0; i + TRADED_STRIDE <= traded.length; i += TRADED_STRIDE) {
      const id = traded[i] as number;
      const receivedAtMicros = traded[i + 3] as number;
      if (!this.#last.has(id) && this.#last.size >= MAX_INSTRUMENTS) this.#last.clear();
      this.#last.set(id, {
        volume: traded[i + 1] as number,
        ltt: traded[i + 2] as number,
        atMs: receivedAtMicros / 1000,
      });
      if (guard && receivedAtMicros >= guard.sinceMicros) guard.pending.delete(id);
    }
  }

  /**
   * A socket of `connection` opened now: its snapshots may repeat trades produced already. The
   * moment is taken on the clock frames are stamped with (performance's, not Date.now, which may
   * run apart by milliseconds), so every frame of the old socket is older.
   */
  opened(connection: number): void {
    const atMs = performance.timeOrigin + performance.now();
    // Every instrument of the connection: one whose earlier trades are still on their way to Kafka
    // is known by the time the chunk with its snapshot is sent (guardFor).
    const pending = new Set<number>();
    for (const id of this.#o.instrumentsOf(connection)) pending.add(Number(id));
    if (pending.size === 0) {
      this.#guards.delete(connection);
      return;
    }
    this.#guards.set(connection, { pending, sinceMicros: atMs * 1000, untilMs: undefined });
  }

  /**
   * Instruments just subscribed on `connection` while its socket is open: the feed answers each with
   * a snapshot, whose trade repeats the last one produced when the instrument was held before (and
   * removed, or held on another connection) and has not traded since. They join the connection's
   * guard as if the socket had just opened for them.
   */
  subscribed(connection: number, securityIds: readonly string[]): void {
    this.bases.forget(connection, securityIds.map(Number));
    const now = (this.#o.now ?? Date.now)();
    const known = securityIds.map(Number).filter((id) => this.#last.has(id));
    if (known.length === 0) return;
    const guard = this.#guards.get(connection);
    // The clock (re)starts with the next chunk sent (guardFor), which carries their snapshots.
    if (guard && (guard.untilMs === undefined || now <= guard.untilMs)) {
      for (const id of known) guard.pending.add(id);
      guard.untilMs = undefined;
      return;
    }
    this.#guards.set(connection, {
      pending: new Set(known),
      sinceMicros: (performance.timeOrigin + performance.now()) * 1000,
      untilMs: undefined,
    });
  }

  /** The guard for the next chunk of `connection` ([securityId, volume, ltt]...), if one is due. */
  guardFor(connection: number): Float64Array | undefined {
    const guard = this.#guards.get(connection);
    if (!guard) return undefined;
    // The clock starts with the first chunk sent after the open, not the open: the chunks may be
    // held back meanwhile (Kafka slow, the write-ahead log's replay first), and the snapshots are in
    // the first of them whenever it goes.
    const now = (this.#o.now ?? Date.now)();
    guard.untilMs ??= now + (this.#o.guardMs ?? 30_000);
    if (guard.pending.size === 0 || now > guard.untilMs) {
      this.#guards.delete(connection);
      return undefined;
    }
    const values = new Float64Array(guard.pending.size * GUARD_STRIDE);
    let at = 0;
    for (const id of guard.pending) {
      const last = this.#last.get(id);
      if (!last) continue;
      values[at] = id;
      values[at + 1] = last.volume;
      values[at + 2] = last.ltt;
      at += GUARD_STRIDE;
    }
    return at === 0 ? undefined : values.subarray(0, at);
  }

  /** [securityId, volume, ltt] of the last trade produced of each of `securityIds` that traded. */
  lastTradesOf(securityIds: Iterable<string>): Array<[number, number, number]> {
    const out: Array<[number, number, number]> = [];
    for (const id of securityIds) {
      const last = this.#last.get(Number(id));
      if (last) out.push([Number(id), last.volume, last.ltt]);
    }
    return out;
  }

  /**
   * A handover's successor takes `connection` over from the old leader, whose last trades produced
   * are `last`: they become this memory's, and every instrument of the connection is guarded as
   * after a reconnect, so nothing the old leader produced (the snapshots, the overlap both
   * processes read) is produced again. `bases` are the old leader's quantity bases of the connection
   * (absent from a leader that does not send them: none are known then).
   */
  adopt(
    connection: number,
    last: ReadonlyArray<readonly [number, number, number]>,
    bases?: readonly BaseEntry[],
  ): void {
    if (bases) this.bases.adopt(connection, bases);
    else this.bases.clear(connection);
    const atMs = Date.now();
    for (const [id, volume, ltt] of last) {
      const known = this.#last.get(id);
      // A later trade of this process's own (it produced since) stays the one to compare with.
      if (!known || known.volume < volume) this.#last.set(id, { volume, ltt, atMs });
    }
    const pending = new Set<number>();
    for (const id of this.#o.instrumentsOf(connection)) pending.add(Number(id));
    this.#guards.set(connection, { pending, sinceMicros: 0, untilMs: undefined });
  }

  /**
   * Each connection's bases of the instruments it holds now (a clean stop's, for the next start):
   * an instrument that moved away leaves an older base behind on its former connection.
   */
  heldBases(): BaseEntry[] {
    const out: BaseEntry[] = [];
    for (const connection of this.bases.connections()) {
      const held = this.#o.instrumentsOf(connection);
      for (const entry of this.bases.entriesOf(connection)) if (held.has(String(entry[0]))) out.push(entry);
    }
    return out;
  }

  /**
   * The bases an earlier run's clean stop left (gaps/run-state.ts), for the instruments each of the
   * `connections` holds now; call before the first chunk goes.
   */
  restoreBases(connections: number, restored: ReadonlyMap<number, BaseEntry>): void {
    for (let connection = 0; connection < connections; connection++) {
      const entries: BaseEntry[] = [];
      for (const id of this.#o.instrumentsOf(connection)) {
        const entry = restored.get(Number(id));
        if (entry) entries.push(entry);
      }
      this.bases.adopt(connection, entries);
    }
  }

  /** When the instrument's last trade was received (epoch ms), undefined before its first. */
  lastTradeAt(securityId: number): number | undefined {
    return this.#last.get(securityId)?.atMs;
  }
}
