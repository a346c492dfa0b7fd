/**
 * The feed write-ahead log (issue #28): every frame read from a feed socket is appended here before
 * it is handed to decoding, per connection (connection-log.ts), and the log is trimmed behind what
 * Kafka acknowledged. After a crash the next start replays what was not acknowledged
 * (wal-replay.ts), so a frame the process read is not lost with it.
 *
 * This class holds what the connections' logs share: the bound on bytes, the fsync policy, the
 * back-off after a failure and the counting. A failure never stops the feed: the frame still goes
 * to Kafka, the gap in the log is counted (ingestor_wal_unlogged_frames_total) and said once per
 * episode with its typed error (WAL_DISK_FULL, WAL_IO_FAILED).
 */
import { closeSync, fdatasync, mkdirSync } from 'node:fs';
import { IngestorError } from '../errors.js';
import { ConnectionLog, type LogSpace, type UnloggedReason } from './connection-log.js';
import type { WalMetrics } from './wal-metrics.js';
import type { ResolvedWalOptions } from './wal-options.js';

export interface FeedWalStats {
  loggedFrames: number;
  unloggedFrames: Record<UnloggedReason, number>;
  bytes: number;
  fsyncs: number;
  /** The latest failure, as said in the log. */
  lastError: string | undefined;
}

export class FeedWal implements LogSpace {
  readonly dir: string;
  readonly segmentBytes: number;
  readonly #o: ResolvedWalOptions;
  readonly #run: number;
  readonly #metrics: WalMetrics;
  readonly #log: (message: string) => void;
  readonly #connections = new Map<number, ConnectionLog>();
  /** Descriptors written to since their last sync (interval policy only). */
  readonly #dirty = new Set<number>();
  /** Descriptors being synced now, and those to close once their sync is done. */
  readonly #syncing = new Set<number>();
  readonly #closeAfterSync = new Set<number>();
  readonly #timer: NodeJS.Timeout | undefined;
  #bytes = 0;
  #blockedUntil = 0;
  #blockedBy: UnloggedReason | undefined;
  /** In a `full` episode (said once until a frame is logged again). */
  #full = false;
  readonly #stats: FeedWalStats = {
    loggedFrames: 0,
    unloggedFrames: { full: 0, disk_full: 0, io_error: 0 },
    bytes: 0,
    fsyncs: 0,
    lastError: undefined,
  };

  /** `run`: this ingestor run's number, the first field of every record's source identity. */
  constructor(options: ResolvedWalOptions, run: number, metrics: WalMetrics, log: (message: string) => void) {
    this.#o = options;
    this.dir = options.dir;
    this.segmentBytes = options.segmentBytes;
    this.#run = run;
    this.#metrics = metrics;
    this.#log = log;
    mkdirSync(options.dir, { recursive: true });
    if (options.fsync === 'interval') {
      this.#timer = setInterval(() => this.#syncRound(), options.fsyncIntervalMs);
      this.#timer.unref();
    }
  }

  /** One frame of `connection`, before it goes to decoding. */
  append(connection: number, frame: Uint8Array, receivedAtMicros: number): void {
    const reason = this.#of(connection).append(frame, receivedAtMicros);
    if (reason === undefined) {
      this.#stats.loggedFrames += 1;
      this.#metrics.loggedFrames.inc();
      this.#full = false;
      return;
    }
    this.#stats.unloggedFrames[reason] += 1;
    this.#metrics.unloggedFrames.inc({ reason });
    if (reason === 'full' && !this.#full) {
      this.#full = true;
      this.#log(
        `WRITE-AHEAD LOG FULL (${this.#bytes} of ${this.#o.maxBytes} bytes unacknowledged by Kafka): frames are produced but not logged until Kafka catches up`,
      );
    }
  }

  /** The connection's next chunk, of `frames` frames, was handed to decoding. */
  sealed(connection: number, frames: number): void {
    this.#of(connection).sealed(frames);
  }

  /** Kafka acknowledged every chunk of `connection` up to `sequence`. */
  acknowledged(connection: number, sequence: number): void {
    this.#of(connection).acknowledged(sequence);
    this.#metrics.bytes.set(this.#bytes);
  }

  stats(): FeedWalStats {
    return { ...this.#stats, unloggedFrames: { ...this.#stats.unloggedFrames }, bytes: this.#bytes };
  }

  /**
   * Closes every segment. `acknowledgedAll`: the pipeline drained (a clean stop), so nothing needs a
   * replay and the segments are deleted; otherwise they stay for the next start.
   */
  async close(acknowledgedAll: boolean): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    for (const log of this.#connections.values()) log.close(acknowledgedAll);
    this.#metrics.bytes.set(this.#bytes);
    while (this.#syncing.size > 0) await new Promise((r) => setTimeout(r, 5));
    for (const fd of this.#dirty) this.#closeNow(fd);
    this.#dirty.clear();
  }

  reserve(bytes: number): boolean {
    if (this.#bytes + bytes > this.#o.maxBytes) return false;
    this.#bytes += bytes;
    return true;
  }

  release(bytes: number): void {
    this.#bytes -= bytes;
  }

  blockedBy(): UnloggedReason | undefined {
    if (this.#blockedBy !== undefined && Date.now() >= this.#blockedUntil) this.#blockedBy = undefined;
    return this.#blockedBy;
  }

  failed(error: IngestorError): void {
    const reason: UnloggedReason = error.code === 'WAL_DISK_FULL' ? 'disk_full' : 'io_error';
    // Said once per episode: a new one starts when the back-off ended and the failure came back.
    if (this.#blockedBy === undefined)
      this.#log(
        `${error.code}: ${error.message}; frames are still produced to Kafka, the gap in the log is counted (ingestor_wal_unlogged_frames_total)`,
      );
    this.#stats.lastError = `${error.code}: ${error.message}`;
    this.#blockedBy = reason;
    this.#blockedUntil = Date.now() + this.#o.retryAfterMs;
  }

  dirty(fd: number): void {
    if (this.#timer) this.#dirty.add(fd);
  }

  retire(fd: number): void {
    if (this.#syncing.has(fd) || this.#dirty.has(fd)) this.#closeAfterSync.add(fd);
    else this.#closeNow(fd);
  }

  #of(connection: number): ConnectionLog {
    let log = this.#connections.get(connection);
    if (!log) {
      log = new ConnectionLog(this, this.#run, connection);
      this.#connections.set(connection, log);
    }
    return log;
  }

  /** One fdatasync per descriptor written to since the last round, on libuv's threads. */
  #syncRound(): void {
    const started = performance.now();
    for (const fd of this.#dirty) {
      if (this.#syncing.has(fd)) continue;
      this.#dirty.delete(fd);
      this.#syncing.add(fd);
      fdatasync(fd, (error) => {
        this.#syncing.delete(fd);
        this.#stats.fsyncs += 1;
        this.#metrics.fsyncSeconds.observe((performance.now() - started) / 1000);
        if (error)
          this.failed(
            new IngestorError('WAL_IO_FAILED', `feed log: fdatasync failed: ${error.message}`, {
              cause: error,
              retryable: true,
            }),
          );
        if (this.#closeAfterSync.has(fd) && !this.#dirty.has(fd)) this.#closeNow(fd);
      });
    }
  }

  #closeNow(fd: number): void {
    this.#closeAfterSync.delete(fd);
    try {
      closeSync(fd);
    } catch {
      // Already closed by an earlier path; nothing of the log depends on it.
    }
  }
}
