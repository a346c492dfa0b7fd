/**
 * The one error class of the package. `code` is stable and meant for programs; the message is for
 * people and never carries a secret (tokens, PINs, TOTP codes, app or partner secrets).
 */
export type BrokerApiErrorCode =
  /** The service answered with a non-2xx status other than a rate limit. */
  | 'HTTP_ERROR'
  /** The service answered 429 / DH-904 and the client's retries were used up. */
  | 'RATE_LIMITED'
  /** The call cannot run before `retryAt` (a day or hour budget is spent); it failed fast instead of waiting. */
  | 'BUDGET_EXHAUSTED'
  /** The per-order modification limit (25) is reached. */
  | 'MODIFICATION_LIMIT'
  /** Too many calls are already waiting for a rate-limit slot. */
  | 'QUEUE_FULL'
  /** No answer within the configured timeout. */
  | 'TIMEOUT'
  /** The connection failed (refused, reset, DNS). */
  | 'NETWORK'
  /** The answer is not JSON or not of the expected shape. */
  | 'INVALID_RESPONSE'
  /** The caller's input or configuration is invalid; nothing was sent. */
  | 'INVALID_ARGUMENT'
  /** The access token is expired and cannot be renewed. */
  | 'TOKEN_EXPIRED'
  /** The caller aborted the call. */
  | 'ABORTED';

export interface BrokerApiErrorInit {
  code: BrokerApiErrorCode;
  message: string;
  status?: number;
  errorType?: string;
  errorCode?: string;
  errorMessage?: string;
  retryable?: boolean;
  retryAt?: number;
  route?: string;
  cause?: unknown;
}

export class BrokerApiError extends Error {
  override readonly name = 'BrokerApiError';
  readonly code: BrokerApiErrorCode;
  /** HTTP status of the answer, when there was one. */
  readonly status: number | undefined;
  /** The service's `errorType`, `errorCode` and `errorMessage`, kept as sent (secrets redacted). */
  readonly errorType: string | undefined;
  readonly errorCode: string | undefined;
  readonly errorMessage: string | undefined;
  /** Whether repeating the same call later can succeed. */
  readonly retryable: boolean;
  /** Epoch ms from which the call can run (BUDGET_EXHAUSTED, RATE_LIMITED with Retry-After). */
  readonly retryAt: number | undefined;
  /** Method and path template of the call, e.g. `PUT /orders/{order-id}`; never a query string. */
  readonly route: string | undefined;

  constructor(init: BrokerApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.status = init.status;
    this.errorType = init.errorType;
    this.errorCode = init.errorCode;
    this.errorMessage = init.errorMessage;
    this.retryable = init.retryable ?? false;
    this.retryAt = init.retryAt;
    this.route = init.route;
  }
}

/** Duck-typed check, so two copies of this package still recognise each other's errors. */
export function isBrokerApiError(value: unknown): value is BrokerApiError {
  return (
    value instanceof Error &&
    value.name === 'BrokerApiError' &&
    typeof (value as { code?: unknown }).code === 'string'
  );
}

export function invalidArgument(message: string): BrokerApiError {
  return new BrokerApiError({ code: 'INVALID_ARGUMENT', message });
}
