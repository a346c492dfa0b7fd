import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { UNLOGGED_REASONS, type UnloggedReason } from './connection-log.js';

/** Metrics of the feed write-ahead log (docs/operations.md, "The feed write-ahead log"). */
export interface WalMetrics {
  loggedFrames: Counter;
  unloggedFrames: Counter<'reason'>;
  bytes: Gauge;
  fsyncSeconds: Histogram;
  replayedFrames: Counter;
  replayedRecords: Counter;
}

export function createWalMetrics(registry: Registry): WalMetrics {
  const registers = [registry];
  const unloggedFrames = new Counter({
    name: 'ingestor_wal_unlogged_frames_total',
    help: 'Frames read from the feed and not written to the write-ahead log (still produced to Kafka), by reason: full (the log at INGESTOR_WAL_MAX_BYTES), disk_full, io_error',
    labelNames: ['reason'],
    registers,
  });
  // Every reason from the start (at 0), so the alert has a series before the first gap.
  for (const reason of UNLOGGED_REASONS)
    unloggedFrames.inc({ reason } satisfies Record<'reason', UnloggedReason>, 0);
  return {
    loggedFrames: new Counter({
      name: 'ingestor_wal_logged_frames_total',
      help: 'Frames written to the write-ahead log before decoding',
      registers,
    }),
    unloggedFrames,
    bytes: new Gauge({
      name: 'ingestor_wal_bytes',
      help: 'Bytes the write-ahead log holds on disk (segments with a chunk Kafka has not acknowledged)',
      registers,
    }),
    fsyncSeconds: new Histogram({
      name: 'ingestor_wal_fsync_seconds',
      help: 'Duration of one fdatasync round of the write-ahead log (INGESTOR_WAL_FSYNC=interval)',
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    replayedFrames: new Counter({
      name: 'ingestor_wal_replayed_frames_total',
      help: 'Frames of an earlier run replayed from the write-ahead log at start (not acknowledged by Kafka before that run ended)',
      registers,
    }),
    replayedRecords: new Counter({
      name: 'ingestor_wal_replayed_records_total',
      help: 'Records produced by the replay of the write-ahead log at start (same source identity as their first attempt)',
      registers,
    }),
  };
}
