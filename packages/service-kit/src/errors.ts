export type ServiceKitErrorCode =
  /** An option with a bad value, named in the message. */
  'CONFIG_INVALID';

/** The one error type of service-kit's own parts; `retryable` says whether trying again can help. */
export class ServiceKitError extends Error {
  readonly code: ServiceKitErrorCode;
  readonly retryable: boolean;
  constructor(
    code: ServiceKitErrorCode,
    message: string,
    options: { cause?: unknown; retryable?: boolean } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'ServiceKitError';
    this.code = code;
    this.retryable = options.retryable ?? false;
  }
}
