/**
 * A standby's half of a planned handover (the leader's, and the protocol: handover-leader.ts).
 *
 * The standby claims an offer; if its claim is the first in the log it is the successor. It opens
 * each offered connection under the same number with exactly the instruments the leader's held,
 * and takes its frames (logged, decoded) but holds its chunks back until the leader's cut says what
 * was produced there; then the cut's last trades guard the connection (pipeline/trade-memory.ts:
 * nothing not newer than them is produced) and its chunks go. Meanwhile it may send on the leader's
 * authority: each message of the handover extends this process's fence by the lease a leader gets,
 * until the group names it leader (it asked to be preferred: `designate`) after the old leader left.
 */
import type { GapInterval } from '../gaps/gap-tracker.js';
import type { BaseEntry } from '../pipeline/quantity-bases.js';
import type { ControlMessage, HandoverConnection } from './control-messages.js';
import type { LeaseFence } from './lease-fence.js';

export interface HandoverSuccessorDeps {
  member: () => string;
  /** Only a standby takes an offer. */
  standingBy: () => boolean;
  send: (message: ControlMessage) => Promise<void>;
  /** Ask the group to prefer this process as the next leader. */
  designate: () => void;
  fence: LeaseFence;
  /** How long the leader's authority lasts after each of its messages (its lease's length). */
  authorityMs: number;
  book: {
    connections: number;
    maxPerConnection: number;
    place(connection: number, kind: 'trade' | 'ohlc', ids: readonly string[], atMs?: number): string[];
  };
  pool: {
    startConnection(index: number): void;
    watchStates(watcher: (index: number, state: string, sinceMs: number) => void): () => void;
  };
  pipeline: { holdConnection(connection: number): void; releaseConnection(connection: number): void };
  adopt: (
    connection: number,
    last: ReadonlyArray<readonly [number, number, number]>,
    bases: readonly BaseEntry[] | undefined,
  ) => void;
  recordGap: (interval: GapInterval) => void;
  log: (message: string) => void;
}

interface Succession {
  id: string;
  /** The client id has a free connection slot (no eviction: make-before-break). */
  spare: boolean;
  connections: HandoverConnection[];
  /** Connections opened here: when each went live, if it has. */
  liveAt: Map<number, number | undefined>;
  closedAt: Map<number, number>;
  /** Connections whose chunks still wait for the cut. */
  held: Set<number>;
  /** Connections whose cut came. */
  cut: Set<number>;
  /** When the socket of each connection opened here. */
  openedAt: Map<number, number>;
  /** Connections whose handover gap is in the ledger. */
  gapWritten: Set<number>;
  accepted: boolean;
  over: boolean;
}

export class HandoverSuccessor {
  readonly #d: HandoverSuccessorDeps;
  #current: Succession | undefined;

  constructor(deps: HandoverSuccessorDeps) {
    this.#d = deps;
    // When each connection's socket opened: the log tells the handover's gap apart into the
    // socket's opening and its subscriptions' first answer.
    deps.pool.watchStates((index, state, sinceMs) => {
      const current = this.#current;
      if (state === 'open' && current?.liveAt.has(index) && !current.openedAt.has(index))
        current.openedAt.set(index, sinceMs);
    });
  }

  /** This process took connections over in a handover (the leader's start then opens only the rest). */
  get succeeded(): boolean {
    return this.#current?.accepted === true;
  }

  /**
   * Whether frames of `connection` are this process's to take (it opened it in a handover). The
   * first one read there (at `receivedAtMs`, when its socket's thread read it) makes it live.
   */
  takes(connection: number, receivedAtMs: number = Date.now()): boolean {
    const current = this.#current;
    if (!current?.accepted || !current.liveAt.has(connection)) return false;
    if (current.liveAt.get(connection) === undefined) {
      const liveAtMs = receivedAtMs;
      current.liveAt.set(connection, liveAtMs);
      void this.#d
        .send({ type: 'handover-ready', id: current.id, connection, liveAtMs })
        .catch(() => undefined);
      this.#recordGapOnce(current, connection);
    }
    return true;
  }

  /**
   * The handover's gap of a connection: from the old leader's close to this process's first frame
   * there (none when that came first). Written once both are known: the cut may come before the
   * first frame (an 805 eviction's connection), or after it (a spare slot's).
   *
   * Without a spare slot the close is the eviction, and the service evicts as it lets this
   * process's socket in: its 805 and its upgrade answer leave together. Each process notices its
   * half when its event loop gets there, so the gap starts at whichever was noticed first; the
   * leader's notice alone would shorten the gap by however late that busy process was.
   */
  #recordGapOnce(current: Succession, connection: number): void {
    const liveAt = current.liveAt.get(connection);
    const closedAt = current.closedAt.get(connection);
    if (liveAt === undefined || closedAt === undefined || !current.cut.has(connection)) return;
    if (current.gapWritten.has(connection)) return;
    current.gapWritten.add(connection);
    const openedAt = current.openedAt.get(connection);
    const startedAt = current.spare ? closedAt : Math.min(closedAt, openedAt ?? closedAt);
    const endedAt = Math.max(startedAt, liveAt);
    this.#d.recordGap({ connection, cause: 'handover', startedAtMs: startedAt, endedAtMs: endedAt });
    const opened =
      openedAt === undefined
        ? ''
        : ` (socket open ${openedAt - closedAt} ms after the leader's close, first frame ${liveAt - openedAt} ms after that)`;
    this.#d.log(
      `handover: connection ${connection} taken over; its instruments were live nowhere for ${endedAt - startedAt} ms${opened}`,
    );
  }

  onMessage(message: ControlMessage): void {
    const current = this.#current;
    switch (message.type) {
      case 'handover-offer':
        if (!this.#d.standingBy() || (current && !current.over) || !this.#fits(message.connections)) return;
        this.#current = {
          id: message.id,
          spare: message.spare,
          connections: message.connections,
          liveAt: new Map(),
          closedAt: new Map(),
          held: new Set(),
          cut: new Set(),
          openedAt: new Map(),
          gapWritten: new Set(),
          accepted: false,
          over: false,
        };
        void this.#d
          .send({ type: 'handover-claim', id: message.id, by: this.#d.member() })
          .catch(() => undefined);
        return;
      case 'handover-claim':
        if (current?.id !== message.id || current.accepted || current.over) return;
        // The first claim in the log is the one, ours or not.
        if (message.by !== this.#d.member()) {
          current.over = true;
          return;
        }
        current.accepted = true;
        this.#d.designate();
        this.#d.log(`handover: taking over ${current.connections.length} connections`);
        this.#extendAuthority();
        if (current.connections[0]) this.#open(current, current.connections[0]);
        return;
      default:
        if (!current?.accepted || !('id' in message) || message.id !== current.id) return;
        this.#extendAuthority();
        this.#follow(current, message);
    }
  }

  #follow(current: Succession, message: ControlMessage): void {
    if (message.type === 'handover-closed') {
      current.closedAt.set(message.connection, message.closedAtMs);
      // The next one may open now: with a spare slot it takes the freed slot; without one it is
      // the 6th connection, and the service evicts the leader's next oldest (handover-leader.ts).
      const at = current.connections.findIndex((c) => c.index === message.connection);
      const next = current.connections[at + 1];
      if (next) this.#open(current, next);
    } else if (message.type === 'handover-cut') {
      this.#d.adopt(message.connection, message.last, message.bases);
      current.held.delete(message.connection);
      current.cut.add(message.connection);
      this.#d.pipeline.releaseConnection(message.connection);
      this.#recordGapOnce(current, message.connection);
    } else if (message.type === 'handover-done' || message.type === 'handover-abort') {
      current.over = true;
      if (message.type === 'handover-abort') this.#d.log(`handover: the leader aborted it (${message.why})`);
    }
  }

  /** Releases what waited for a cut that never came (this process leads now: its guard holds). */
  releaseHeld(): void {
    const current = this.#current;
    if (!current) return;
    for (const connection of current.held) this.#d.pipeline.releaseConnection(connection);
    current.held.clear();
  }

  #open(current: Succession, connection: HandoverConnection): void {
    if (current.liveAt.has(connection.index)) return;
    // Subscribed since the old leader's connection closed, if it has: the ledger counts the
    // handover's gap of each instrument from then (gap-ledger.ts starts none before a subscription).
    const since = Math.min(Date.now(), current.closedAt.get(connection.index) ?? Date.now());
    this.#d.book.place(connection.index, 'trade', connection.trade, since);
    this.#d.book.place(connection.index, 'ohlc', connection.ohlc, since);
    current.held.add(connection.index);
    this.#d.pipeline.holdConnection(connection.index);
    current.liveAt.set(connection.index, undefined);
    this.#d.pool.startConnection(connection.index);
  }

  /** An offer this process can take: the same connection numbers, each within its limit. */
  #fits(connections: readonly HandoverConnection[]): boolean {
    return connections.every(
      (c) =>
        Number.isInteger(c.index) &&
        c.index >= 0 &&
        c.index < this.#d.book.connections &&
        c.trade.length + c.ohlc.length <= this.#d.book.maxPerConnection,
    );
  }

  #extendAuthority(): void {
    this.#d.fence.extend(this.#d.authorityMs);
  }
}
