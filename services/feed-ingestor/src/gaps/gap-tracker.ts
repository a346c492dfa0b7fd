/**
 * The open gaps of the ingestor's connections: from the moment a connection's subscriptions stop
 * being live (its `LinkState` says why) to the moment they are live again. A closed interval is
 * handed on once, to be written as one `gap` record per instrument the connection holds
 * (gap-ledger.ts). Pure bookkeeping: no clock, no socket, no Kafka.
 *
 * Two intervals are not seen by a running connection and are added here:
 * - the ingestor's own downtime: the previous run's stop time (run-state.ts) up to the moment each
 *   connection is first live, for the instruments that run held (cause process_stopped);
 * - at shutdown every open gap is closed at the stop time; the downtime that follows is the next
 *   start's to record.
 */
import type { GapCause } from '@feedpipe/contracts';
import type { LinkState } from '../feed/connection-machine.js';

export interface GapInterval {
  connection: number;
  cause: GapCause;
  startedAtMs: number;
  endedAtMs: number;
  /** Only these instruments (the previous run's), when not every instrument of the connection. */
  only?: { trade: ReadonlySet<string>; ohlc: ReadonlySet<string> };
}

export interface OpenGap {
  connection: number;
  cause: GapCause;
  startedAtMs: number;
}

/** What the previous run left: when it stopped and what it held. */
export interface PreviousRun {
  stoppedAtMs: number;
  /** Why nothing was live meanwhile: this process was down (default), or another one led and fell. */
  cause?: Extract<GapCause, 'process_stopped' | 'failover' | 'handover'>;
  trade: ReadonlySet<string>;
  ohlc: ReadonlySet<string>;
}

export class GapTracker {
  readonly #open = new Map<number, OpenGap>();
  readonly #firstLiveSeen = new Set<number>();
  /** Connections handed over to another process: their changes are no gap of this one's. */
  readonly #released = new Set<number>();
  readonly #closed: (interval: GapInterval) => void;
  #previous: PreviousRun | undefined;
  #shutDown = false;

  constructor(closed: (interval: GapInterval) => void) {
    this.#closed = closed;
  }

  /** The previous run's downtime, closed per connection when that connection is first live. */
  recover(previous: PreviousRun): void {
    this.#previous = previous;
  }

  /** A connection's liveness changed at `atMs`. */
  link(connection: number, link: LinkState, atMs: number): void {
    if (this.#shutDown || this.#released.has(connection)) return;
    const open = this.#open.get(connection);
    if (link.live) {
      if (open) {
        this.#open.delete(connection);
        this.#emit({ ...open, endedAtMs: atMs });
      }
      if (!this.#firstLiveSeen.has(connection)) {
        this.#firstLiveSeen.add(connection);
        const previous = this.#previous;
        if (previous && previous.stoppedAtMs < atMs) {
          this.#emit({
            connection,
            cause: previous.cause ?? 'process_stopped',
            startedAtMs: previous.stoppedAtMs,
            endedAtMs: atMs,
            only: { trade: previous.trade, ohlc: previous.ohlc },
          });
        }
      }
      return;
    }
    // Before the first live moment the subscriptions were never live: nothing to miss yet (the
    // downtime before it is the previous run's gap, above).
    if (!this.#firstLiveSeen.has(connection)) return;
    if (open) {
      if (open.cause === link.cause) return;
      this.#emit({ ...open, endedAtMs: atMs });
    }
    this.#open.set(connection, { connection, cause: link.cause, startedAtMs: atMs });
  }

  /**
   * The connection is handed over to another process, which records the handover's gap: this
   * process forgets its open gap and ignores what its socket does from now on.
   */
  release(connection: number): void {
    this.#released.add(connection);
    this.#open.delete(connection);
  }

  /** Shutdown: every open gap ends now; later link changes (the sockets closing) are not gaps. */
  closeAll(atMs: number): void {
    this.#shutDown = true;
    for (const open of this.#open.values())
      this.#emit({ ...open, endedAtMs: Math.max(atMs, open.startedAtMs) });
    this.#open.clear();
  }

  openGaps(): OpenGap[] {
    return [...this.#open.values()].map((g) => ({ ...g }));
  }

  #emit(interval: GapInterval): void {
    if (interval.endedAtMs < interval.startedAtMs) return;
    this.#closed(interval);
  }
}
