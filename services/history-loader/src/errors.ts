import { CodedError } from '@feedpipe/errors';
export type LoaderErrorCode =
  /** An option, environment variable or plan value is invalid; nothing was started. */
  | 'CONFIG_INVALID'
  /** The universe file cannot be read or holds an invalid row. */
  | 'UNIVERSE_INVALID'
  /** The account cannot use the Data APIs (bad token, no data plan): every call would fail. */
  | 'FATAL_ACCESS'
  /** Writing to ClickHouse failed after the writer's retries. */
  | 'STORE_FAILED'
  /** The loader was started twice. */
  | 'ALREADY_RUNNING'
  /** The instrument list could not be downloaded (network, HTTP status, size); retryable. */
  | 'MASTER_UNAVAILABLE'
  /** The download is not the instrument list (no identifying columns) or looks truncated. */
  | 'MASTER_INVALID'
  /** One row of the instrument list cannot be read; it is counted and left out, the rest load. */
  | 'INSTRUMENT_ROW_INVALID';

/** The one error type of the history loader; `retryable` says whether trying again can help. */
export class LoaderError extends CodedError<LoaderErrorCode> {
  override readonly name = 'LoaderError';
}

export function configError(message: string): LoaderError {
  return new LoaderError('CONFIG_INVALID', message);
}
