import { CodedError } from '@feedpipe/errors';
export type CodecErrorCode =
  | 'BUFFER_TOO_SMALL'
  | 'TOO_MANY_SUBSCRIPTIONS'
  | 'INVALID_REQUEST'
  | 'INVALID_CAPTURE'
  | 'INVALID_RECORD'
  | 'INVALID_OPTIONS'
  | 'CAPTURE_CLOSED'
  | 'CAPTURE_BACKLOG_FULL'
  | 'CAPTURE_WRITE_FAILED'
  | 'CAPTURE_READ_FAILED';

/**
 * The one error type of this package. Decoding peer bytes never throws it (bad frames are counted);
 * it reports caller mistakes (a record that cannot be encoded, a buffer too small, bad options) and
 * bad local inputs (a broken capture file, an invalid client request on the server side).
 * `retryable` says whether doing the same thing again can help.
 */
export class CodecError extends CodedError<CodecErrorCode> {
  override readonly name = 'CodecError';
}

/** The error of options the declarative reader (readOptions) refused, as its `fail`. */
export function invalidOptions(message: string): CodecError {
  return new CodecError('INVALID_OPTIONS', message);
}
