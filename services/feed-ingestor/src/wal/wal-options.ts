/**
 * Options of the feed write-ahead log (docs/configuration.md, INGESTOR_WAL_*), validated once.
 */
import { type OptionsSchema, readOptions } from '@feedpipe/config';
import { IngestorError } from '../errors.js';

/**
 * When the log's bytes are forced to the disk:
 * - `none`: never by us; a write is in the kernel's page cache when the frame goes on, which
 *   survives the process dying (SIGKILL, a crash, an OOM kill), not the host;
 * - `interval`: fdatasync of the segments written to, every `fsyncIntervalMs`, off the event loop;
 *   a host crash loses at most that much of the feed's tail.
 */
export type WalFsyncPolicy = 'none' | 'interval';
export const WAL_FSYNC_POLICIES: readonly WalFsyncPolicy[] = ['none', 'interval'];

export interface FeedWalOptions {
  /** Directory of the segments; created if missing. One ingestor process per directory. */
  dir: string;
  /**
   * Bound on the bytes the log holds (frames not yet acknowledged by Kafka, whole segments). At the
   * bound frames are not logged (counted as `full`) until acknowledgements free a segment.
   * Default 1 GiB: four times the pipeline's default buffer, so a Kafka outage fills the pipeline
   * (which pauses the sockets) long before the log.
   */
  maxBytes?: number;
  /** A segment past this size is closed at the next chunk boundary. Default 64 MiB. */
  segmentBytes?: number;
  /** Default `none`. */
  fsync?: WalFsyncPolicy;
  /** For `interval`. Default 1 000 ms. */
  fsyncIntervalMs?: number;
  /** After a write failure (disk full), the next attempt to open a segment waits this long. Default 5 000 ms. */
  retryAfterMs?: number;
}

export type ResolvedWalOptions = Required<FeedWalOptions>;

/** Every key of the log's options, with its range and default (FeedWalOptions documents each). */
const WAL_OPTIONS = {
  dir: { kind: 'string', required: true },
  maxBytes: { kind: 'integer', min: 4_096, max: 2 ** 40, default: 1024 * 1024 * 1024 },
  segmentBytes: { kind: 'integer', min: 4_096, max: 2 ** 31, default: 64 * 1024 * 1024 },
  fsync: { kind: 'enum', values: WAL_FSYNC_POLICIES, default: 'none' },
  fsyncIntervalMs: { kind: 'integer', min: 1, max: 3_600_000, default: 1_000 },
  retryAfterMs: { kind: 'integer', min: 1, max: 3_600_000, default: 5_000 },
} as const satisfies OptionsSchema;

export function resolveWalOptions(options: FeedWalOptions): ResolvedWalOptions {
  const fail = (message: string) => new IngestorError('CONFIG_INVALID', message);
  const resolved = readOptions(WAL_OPTIONS, options, { where: 'ingestor config.wal', fail });
  // The one rule across keys: the bound holds at least one whole segment.
  if (resolved.maxBytes < resolved.segmentBytes)
    throw fail(`ingestor config.wal: "maxBytes" must be at least "segmentBytes" (${resolved.segmentBytes})`);
  return resolved;
}
