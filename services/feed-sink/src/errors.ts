import { CodedError } from '@feedpipe/errors';
export type SinkErrorCode =
  /** A sink option or environment variable with a bad value. */
  | 'CONFIG_INVALID'
  /** The sink was stopped while an insert was still failing (its rows stay uncommitted in Kafka). */
  | 'STOPPED'
  /** A broken invariant inside the sink, e.g. a record contract it cannot map (a bug, not bad input). */
  | 'INTERNAL'
  /** The group's positions could not be brought back to the store's (after a restore) in time. */
  | 'REWIND_FAILED';

/** The one error type of the sink; `retryable` says whether trying again can help. */
export class SinkError extends CodedError<SinkErrorCode> {
  override readonly name = 'SinkError';
}
