/**
 * Options of the feed write-ahead log (docs/configuration.md, INGESTOR_WAL_*), validated once.
 */
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

const KNOWN = new Set(['dir', 'maxBytes', 'segmentBytes', 'fsync', 'fsyncIntervalMs', 'retryAfterMs']);

function integerIn(
  name: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < min || v > max)
    throw new IngestorError('CONFIG_INVALID', `wal.${name} must be an integer in ${min}..${max}, got ${v}`);
  return v;
}

export function resolveWalOptions(options: FeedWalOptions): ResolvedWalOptions {
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key))
      throw new IngestorError('CONFIG_INVALID', `unknown wal option ${JSON.stringify(key)}`);
  }
  if (typeof options.dir !== 'string' || options.dir === '')
    throw new IngestorError('CONFIG_INVALID', 'wal.dir must name a directory');
  const fsync = options.fsync ?? 'none';
  if (!WAL_FSYNC_POLICIES.includes(fsync))
    throw new IngestorError(
      'CONFIG_INVALID',
      `wal.fsync must be one of ${WAL_FSYNC_POLICIES.join(', ')}, got ${fsync}`,
    );
  const segmentBytes = integerIn('segmentBytes', options.segmentBytes, 64 * 1024 * 1024, 4_096, 2 ** 31);
  return {
    dir: options.dir,
    segmentBytes,
    maxBytes: integerIn('maxBytes', options.maxBytes, 1024 * 1024 * 1024, segmentBytes, 2 ** 40),
    fsync,
    fsyncIntervalMs: integerIn('fsyncIntervalMs', options.fsyncIntervalMs, 1_000, 1, 3_600_000),
    retryAfterMs: integerIn('retryAfterMs', options.retryAfterMs, 5_000, 1, 3_600_000),
  };
}
