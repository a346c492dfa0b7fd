import { CodedError } from '@feedpipe/errors';
export type IngestorErrorCode =
  | 'CONFIG_INVALID'
  | 'FEED_AUTH_FATAL'
  | 'FEED_UPGRADE_REJECTED'
  | 'FEED_CONNECTION_LIMIT'
  | 'SUBSCRIPTION_LIMIT'
  /** A subscription change that names no valid instrument, or one twice (bad input, not retryable). */
  | 'INVALID_REQUEST'
  | 'BUFFER_FULL'
  | 'KAFKA_PRODUCE_FAILED'
  | 'STOPPED'
  /** The feed log's disk is full (ENOSPC, EDQUOT): frames still go to Kafka, the gap is counted. */
  | 'WAL_DISK_FULL'
  /** The feed log could not write, sync or read a segment (an I/O error other than a full disk). */
  | 'WAL_IO_FAILED'
  /** An event the feed connection's state cannot receive (connection-machine.ts). */
  | 'ILLEGAL_TRANSITION'
  /** A broken invariant inside the ingestor (a bug, not bad input). */
  | 'INTERNAL'
  /** replay: a flag or option value it cannot use. */
  | 'REPLAY_INVALID'
  /** replay: the target topics are the live ones and --into-live was not given. */
  | 'REPLAY_LIVE_TOPICS'
  /** replay: Kafka did not take a batch within the retries; the replay stopped where it was. */
  | 'REPLAY_PRODUCE_FAILED';

/** The one error type of the ingestor; `retryable` says whether trying again can help. */
export class IngestorError extends CodedError<IngestorErrorCode> {
  override readonly name = 'IngestorError';
}
