/**
 * The error base of the HTTP services. `code` is stable and meant for programs; `status` is the
 * HTTP status the error handler answers with; messages never carry a secret (API keys, tokens).
 * A service declares its own codes on top of these (QueryApiError, TradingGatewayError) with their
 * statuses; the error handler, the auth hook and the key store only need what is declared here.
 */
export type HttpErrorCode =
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
  /** The key's request budget is spent, or it has as many requests in flight as allowed (429). */
  | 'RATE_LIMITED'
  /** ClickHouse is unreachable or failed internally (503). */
  | 'STORE_UNAVAILABLE'
  | 'INTERNAL';

export const HTTP_ERROR_STATUS: Readonly<Record<HttpErrorCode, number>> = {
  CONFIG_INVALID: 500,
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  RATE_LIMITED: 429,
  STORE_UNAVAILABLE: 503,
  INTERNAL: 500,
};

export interface UpstreamError {
  status?: number | undefined;
  errorType?: string | undefined;
  errorCode?: string | undefined;
  errorMessage?: string | undefined;
}

export interface HttpErrorInit {
  /** Default: the status of the code (the service's table, else HTTP_ERROR_STATUS, else 500). */
  status?: number;
  field?: string;
  retryable?: boolean;
  /** Sent as Retry-After. */
  retryAfterSec?: number;
  upstream?: UpstreamError;
  cause?: unknown;
}

/**
 * Marks errors of this base. A registered symbol, not `instanceof`: an error made by another copy
 * of this package (two installs, a bundled CLI) is still recognised.
 */
const HTTP_ERROR_BRAND = Symbol.for('feedpipe.service-http.HttpError');

export class HttpError<C extends string = HttpErrorCode> extends Error {
  override readonly name: string = 'HttpError';
  readonly code: C;
  readonly status: number;
  /** The request field at fault (BAD_REQUEST, and a service's own refusals such as PRE_TRADE_REJECTED). */
  readonly field: string | undefined;
  /** Whether repeating the same request later can succeed. */
  readonly retryable: boolean;
  readonly upstream: UpstreamError | undefined;
  /** Seconds after which a retry may succeed (the Retry-After header), when known. */
  readonly retryAfterSec: number | undefined;

  constructor(code: C, message: string, init: HttpErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = code;
    this.status = init.status ?? HTTP_ERROR_STATUS[code as unknown as HttpErrorCode] ?? 500;
    this.field = init.field;
    this.retryable = init.retryable ?? false;
    this.upstream = init.upstream;
    this.retryAfterSec = init.retryAfterSec;
    Object.defineProperty(this, HTTP_ERROR_BRAND, { value: true });
  }
}

/**
 * The base of a service's error class whose codes answer with the statuses of `statuses` (its own
 * codes beside the shared ones), unless an error is given a status of its own:
 * `class QueryApiError extends HttpErrorWithStatuses(STATUS) { override readonly name = 'QueryApiError'; }`.
 */
export function HttpErrorWithStatuses<C extends string>(statuses: Readonly<Record<C, number>>) {
  return class extends HttpError<C> {
    constructor(code: C, message: string, init: HttpErrorInit = {}) {
      super(code, message, { ...init, status: init.status ?? statuses[code] });
    }
  };
}

export function badRequest(field: string, message: string): HttpError {
  return new HttpError('BAD_REQUEST', `${field}: ${message}`, { field });
}

export function notFound(message: string): HttpError {
  return new HttpError('NOT_FOUND', message);
}

/** Any error of this base, whichever service's subclass and whichever copy of the package made it. */
export function isHttpError(value: unknown): value is HttpError<string> {
  return value instanceof Error && (value as unknown as Record<symbol, unknown>)[HTTP_ERROR_BRAND] === true;
}
