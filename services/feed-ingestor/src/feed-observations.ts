/**
 * What the feed connections report, turned into what the ingestor keeps: frames to the intake,
 * liveness and market status to the continuity of the data (the ledger of gaps, the stale watch,
 * the repeat guard), and everything else counted, logged and kept for stats() and readiness().
 */

import type { ConnectionState, LinkState } from './feed/connection-machine.js';
import type { ConnectionPoolOptions } from './feed/connection-pool.js';
import type { FeedConnectionEvents } from './feed/feed-connection.js';
import type { IngestorMetrics } from './ingestor-metrics.js';
import type { FrameIntake } from './pipeline/frame-intake.js';

export interface FeedErrorEvent {
  /** Epoch milliseconds. */
  at: number;
  connection: number;
  /** 805-809 from an Error packet, or the HTTP status of a refused upgrade. */
  code: number;
}

/** Feed errors and market-status changes kept for stats(), newest last. */
const RECENT_KEPT = 50;

/** What the connections reported, for stats() and readiness(). */
export class FeedObservations {
  textFrames = 0;
  readonly feedErrors: Record<string, number> = {};
  readonly recentFeedErrors: FeedErrorEvent[] = [];
  /** The last MarketStatus value seen on the feed, undefined before the first. */
  marketStatus: number | undefined;
  readonly marketStatusChanges: Array<{ at: number; status: number }> = [];
  tokenRenewals = 0;

  feedError(connection: number, code: number): void {
    this.feedErrors[String(code)] = (this.feedErrors[String(code)] ?? 0) + 1;
    keepRecent(this.recentFeedErrors, { at: Date.now(), connection, code });
  }

  /** Whether `status` is a new MarketStatus value (then it is recorded). */
  marketStatusSeen(status: number): boolean {
    const changed = status !== this.marketStatus;
    if (changed) keepRecent(this.marketStatusChanges, { at: Date.now(), status });
    this.marketStatus = status;
    return changed;
  }
}

function keepRecent<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length > RECENT_KEPT) list.shift();
}

/** What the connections' liveness feeds: the ledger of gaps, the stale watch, the repeat guard. */
export interface Continuity {
  /** A socket opened (its snapshots may repeat trades produced already). */
  opened(connection: number): void;
  link(connection: number, link: LinkState, atMs: number): void;
  /** A new MarketStatus value. */
  marketStatus(status: number, atMs: number): void;
}

/**
 * The pool's callbacks: frames go to the intake, liveness to `continuity`; everything else is
 * counted, logged and kept in `seen`.
 */
export function connectionEvents(
  seen: FeedObservations,
  metrics: IngestorMetrics,
  log: (message: string) => void,
  continuity: Continuity,
  intake: FrameIntake,
): FeedConnectionEvents {
  const stateByConnection = new Map<number, ConnectionState>();
  const refreshConnectionGauge = (): void => {
    metrics.connections.reset();
    for (const state of stateByConnection.values()) metrics.connections.inc({ state });
  };
  return {
    onFrame: (connection, frame, receivedAtMicros) => intake.receive(connection, frame, receivedAtMicros),
    onState(connection, state, reason) {
      if (state === 'open' && stateByConnection.get(connection) !== 'open') continuity.opened(connection);
      stateByConnection.set(connection, state);
      refreshConnectionGauge();
      if (state === 'connecting' && reason === 'reconnecting') metrics.reconnects.inc();
      if (state === 'fatal' || state === 'evicted') log(`connection ${connection}: ${state}: ${reason}`);
    },
    onFeedError(connection, code) {
      seen.feedError(connection, code);
      metrics.feedErrors.inc({ code: String(code) });
      log(`connection ${connection}: feed error ${code}`);
    },
    onRetry(connection, delayMs, cause) {
      metrics.retries.inc({ cause });
      if (cause !== 'budget' || delayMs >= 1_000)
        log(`connection ${connection}: next attempt in ${delayMs} ms (${cause})`);
    },
    onTextFrame(connection, bytes) {
      seen.textFrames += 1;
      metrics.textFrames.inc();
      metrics.framesUndecoded.inc({ reason: 'text' });
      // The first one says what happened; the metric carries the rest (no log flood).
      if (seen.textFrames === 1)
        log(
          `connection ${connection}: unexpected text message (${bytes} bytes) skipped; counted in ingestor_text_frames_total`,
        );
    },
    onMarketStatus(_connection, status) {
      // Every connection carries the broadcast: the first one to bring a new value records it.
      if (!seen.marketStatusSeen(status)) return;
      log(`market status ${status}`);
      metrics.marketStatus.set(status);
      continuity.marketStatus(status, Date.now());
    },
    onLink: (connection, link, atMs) => continuity.link(connection, link, atMs),
    onUndelivered: (_connection, reason) => metrics.framesUndecoded.inc({ reason }),
  };
}

/** A refused token: renewed (counted), or not renewable (counted, fatal, said loudly with what to do). */
export function tokenCallbacks(
  seen: FeedObservations,
  metrics: IngestorMetrics,
  log: (message: string) => void,
): Pick<ConnectionPoolOptions, 'onTokenRenewed' | 'onTokenUnrenewable'> {
  return {
    onTokenRenewed: (here) => {
      seen.tokenRenewals += 1;
      metrics.tokenRenewals.inc({ outcome: here ? 'renewed' : 'adopted' });
      log(
        `feed token ${here ? 'renewed' : 'replaced by one renewed elsewhere'}; reconnecting the connections on the refused one`,
      );
    },
    onTokenUnrenewable: (reason) => {
      metrics.tokenUnrenewable.set(1);
      metrics.tokenRenewals.inc({ outcome: 'failed' });
      log(`TOKEN REFUSED, NO RENEWAL: ${reason}`);
    },
  };
}
