/** The hot tier's typed errors, with stable codes (a failed tier never fails a request: it steps aside). */
export type HotTierErrorCode = 'LOAD_FAILED' | 'FEED_FAILED' | 'CONFIG_INVALID';

export class HotTierError extends Error {
  readonly code: HotTierErrorCode;
  readonly retryable: boolean;

  constructor(
    code: HotTierErrorCode,
    message: string,
    options: { cause?: unknown; retryable?: boolean } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HotTierError';
    this.code = code;
    this.retryable = options.retryable ?? false;
  }
}
