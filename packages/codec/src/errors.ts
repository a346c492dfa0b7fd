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
export class CodecError extends Error {
  readonly code: CodecErrorCode;
  readonly retryable: boolean;
  constructor(code: CodecErrorCode, message: string, options: { cause?: unknown; retryable?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.name = 'CodecError';
    this.code = code;
    this.retryable = options.retryable ?? false;
  }
}
