/**
 * The one error class of the query API. `code` is stable and meant for programs; `status` is the
 * HTTP status the error handler answers with; messages never carry a secret (API keys, tokens).
 */
export type QueryApiErrorCode =
  /** Configuration rejected at construction. */
  | 'CONFIG_INVALID'
  /** A request field is missing or invalid (400, names the field). */
  | 'BAD_REQUEST'
  /** No API key, or an unknown or revoked one (401). */
  | 'UNAUTHENTICATED'
  /** The key lacks the scope the route needs (403). */
  | 'FORBIDDEN'
  /** The thing asked for does not exist (404). */
  | 'NOT_FOUND'
  /** The path exists, but not with this method; `Allow` lists the methods it has (405). */
  | 'METHOD_NOT_ALLOWED'
  /** The key's request budget is spent, or it has as many queries in flight as allowed (429). */
  | 'RATE_LIMITED'
  /** The API holds as many results in flight as its memory budget allows, or the store's queue is full (503, Retry-After). */
  | 'OVERLOADED'
  /** User SQL refused before it reached ClickHouse (400). */
  | 'SQL_REFUSED'
  /** ClickHouse refused or failed the query: limits, syntax, readonly (400 for the caller's query). */
  | 'QUERY_FAILED'
  /** ClickHouse is unreachable or failed internally (503). */
  | 'STORE_UNAVAILABLE'
  /** Order routes without a broker client (503). */
  | 'TRADING_DISABLED'
  /** A pre-trade check refused the order; nothing was sent (422). */
  | 'PRE_TRADE_REJECTED'
  /** The account's kill switch is active; nothing was sent (409). */
  | 'KILL_SWITCH_ACTIVE'
  /** The same correlationId is being placed right now by another request (409). */
  | 'DUPLICATE_IN_FLIGHT'
  /** An earlier request with this correlationId has an unknown outcome; placing again could double it (409). */
  | 'OUTCOME_UNKNOWN'
  /** The audit row could not be written, so the order was not sent (503). */
  | 'AUDIT_UNAVAILABLE'
  /** The service refused the call (its status and error are kept in `upstream`). */
  | 'UPSTREAM_REJECTED'
  /** The service could not be reached or did not answer; an order's outcome may be unknown (502/504). */
  | 'UPSTREAM_UNAVAILABLE'
  /** The live stream is not configured (no Kafka brokers) or full (503). */
  | 'STREAM_UNAVAILABLE'
  | 'INTERNAL';

export interface UpstreamError {
  status?: number | undefined;
  errorType?: string | undefined;
  errorCode?: string | undefined;
  errorMessage?: string | undefined;
}

export interface QueryApiErrorInit {
  status?: number;
  field?: string;
  retryable?: boolean;
  /** Sent as Retry-After. */
  retryAfterSec?: number;
  upstream?: UpstreamError;
  cause?: unknown;
}

const DEFAULT_STATUS: Record<QueryApiErrorCode, number> = {
  CONFIG_INVALID: 500,
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  RATE_LIMITED: 429,
  OVERLOADED: 503,
  SQL_REFUSED: 400,
  QUERY_FAILED: 400,
  STORE_UNAVAILABLE: 503,
  TRADING_DISABLED: 503,
  PRE_TRADE_REJECTED: 422,
  KILL_SWITCH_ACTIVE: 409,
  DUPLICATE_IN_FLIGHT: 409,
  OUTCOME_UNKNOWN: 409,
  AUDIT_UNAVAILABLE: 503,
  UPSTREAM_REJECTED: 502,
  UPSTREAM_UNAVAILABLE: 502,
  STREAM_UNAVAILABLE: 503,
  INTERNAL: 500,
};

export class QueryApiError extends Error {
  override readonly name = 'QueryApiError';
  readonly code: QueryApiErrorCode;
  readonly status: number;
  /** The request field at fault, for BAD_REQUEST and PRE_TRADE_REJECTED. */
  readonly field: string | undefined;
  /** Whether repeating the same request later can succeed. */
  readonly retryable: boolean;
  readonly upstream: UpstreamError | undefined;
  /** Seconds after which a retry may succeed (the Retry-After header), when known. */
  readonly retryAfterSec: number | undefined;

  constructor(code: QueryApiErrorCode, message: string, init: QueryApiErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = code;
    this.status = init.status ?? DEFAULT_STATUS[code];
    this.field = init.field;
    this.retryable = init.retryable ?? false;
    this.upstream = init.upstream;
    this.retryAfterSec = init.retryAfterSec;
  }
}

export function badRequest(field: string, message: string): QueryApiError {
  return new QueryApiError('BAD_REQUEST', `${field}: ${message}`, { field });
}

export function notFound(message: string): QueryApiError {
  return new QueryApiError('NOT_FOUND', message);
}

/** Duck-typed, so errors from another copy of this package are still recognised. */
export function isQueryApiError(value: unknown): value is QueryApiError {
  return (
    value instanceof Error &&
    value.name === 'QueryApiError' &&
    typeof (value as { code?: unknown }).code === 'string'
  );
}
