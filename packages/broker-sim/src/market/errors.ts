/**
 * The simulator's error base. Every error the package throws on purpose is a `SimError` with a stable
 * string `code`; messages never carry tokens, secrets or other credentials.
 */
export type SimErrorCode =
  | 'INVALID_OPTION'
  | 'UNKNOWN_INSTRUMENT'
  | 'UNKNOWN_CONNECTION'
  | 'NOT_LISTENING'
  | 'ALREADY_STARTED'
  | 'LISTEN_FAILED';

export class SimError extends Error {
  readonly code: SimErrorCode;
  /** Whether the same call may succeed later without a change by the caller. */
  readonly retryable: boolean;

  constructor(code: SimErrorCode, message: string, options: { cause?: unknown; retryable?: boolean } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SimError';
    this.code = code;
    this.retryable = options.retryable ?? false;
  }
}

/** The error of an option the declarative reader (readOptions) refused, as its `fail`. */
export function invalidOption(message: string): SimError {
  return new SimError('INVALID_OPTION', message);
}
