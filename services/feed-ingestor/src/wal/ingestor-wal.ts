/**
 * The write-ahead log as the ingestor uses it: a tap of the frame intake (each frame logged as
 * received, before it is queued for decoding), an observer of the producer pipeline (a chunk sealed,
 * a chunk acknowledged by Kafka), the start-up replay and its stats.
 */
import { randomInt } from 'node:crypto';
import type { FeedTopics } from '@feedpipe/contracts';
import type { Registry } from 'prom-client';
import type { FrameTap } from '../pipeline/frame-intake.js';
import type { ChunkAcknowledged, PipelineObserver } from '../pipeline/pipeline-observer.js';
import { FeedWal, type FeedWalStats } from './feed-wal.js';
import { createWalMetrics, type WalMetrics } from './wal-metrics.js';
import type { ResolvedWalOptions } from './wal-options.js';
import { replayWal, type WalReplayResult } from './wal-replay.js';

export interface IngestorWalStats extends FeedWalStats {
  /** What the start-up replay produced (zeros before it ran or when there was nothing). */
  replayed: WalReplayResult;
}

export class IngestorWal implements FrameTap, PipelineObserver {
  /** This run's number: the first field of every record's source identity, and of its segments. */
  readonly run = randomInt(0, 2 ** 32);
  readonly #dir: string;
  readonly #log: FeedWal;
  readonly #metrics: WalMetrics;
  readonly #say: (message: string) => void;
  #replayed: WalReplayResult = { streams: 0, chunks: 0, frames: 0, records: 0, trades: 0 };

  constructor(resolved: ResolvedWalOptions, registry: Registry, log: (message: string) => void) {
    this.#dir = resolved.dir;
    this.#metrics = createWalMetrics(registry);
    this.#say = log;
    this.#log = new FeedWal(resolved, this.run, this.#metrics, log);
  }

  /**
   * Called before the connections open: what earlier runs left unacknowledged goes to Kafka ahead
   * of anything of this run, which `pipeline` holds back meanwhile (wal-replay.ts says why); the
   * last trades the log holds go to the repeat guard (`trades`).
   */
  async replayAhead(
    pipeline: { hold(): void; release(): void },
    trades: { record(connection: number, traded: Float64Array): void },
    brokers: string[],
    topics: FeedTopics,
    fellow: { peerDirs?: readonly string[]; fence?: SharedArrayBuffer; ownLog?: boolean } = {},
    /** Told, before anything of this run is sent, how many records the replay produced. */
    replayed: (records: number) => void = () => undefined,
  ): Promise<void> {
    pipeline.hold();
    try {
      this.#replayed = await replayWal({
        dir: this.#dir,
        ...fellow,
        brokers,
        topics,
        onTraded: (connection, traded) => trades.record(connection, traded),
        log: this.#say,
      });
      replayed(this.#replayed.records);
    } finally {
      pipeline.release();
    }
    this.#metrics.replayedFrames.inc(this.#replayed.frames);
    this.#metrics.replayedRecords.inc(this.#replayed.records);
  }

  frame(connection: number, frame: Buffer, receivedAtMicros: number): void {
    this.#log.append(connection, frame, receivedAtMicros);
  }

  sealed(connection: number, frames: number): void {
    this.#log.sealed(connection, frames);
  }

  acknowledged(chunk: ChunkAcknowledged): void {
    this.#log.acknowledged(chunk.result.connection, chunk.result.sequence);
  }

  /** `drained`: everything received was acknowledged (a clean stop): nothing is left to replay. */
  close(drained: boolean): Promise<void> {
    return this.#log.close(drained);
  }

  stats(): IngestorWalStats {
    return { ...this.#log.stats(), replayed: { ...this.#replayed } };
  }
}
