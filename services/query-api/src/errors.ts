/**
 * The error class of the query API: the shared HTTP error base (envelope, status, Retry-After) with
 * the codes only this service answers with.
 */
import {
  HTTP_ERROR_STATUS,
  type HttpErrorCode,
  type HttpErrorInit,
  HttpErrorWithStatuses,
} from '@feedpipe/service-http';

export type QueryApiErrorCode =
  | HttpErrorCode
  /** The API holds as many results in flight as its memory budget allows, or the store's queue is full (503, Retry-After). */
  | 'OVERLOADED'
  /** User SQL refused before it reached ClickHouse (400). */
  | 'SQL_REFUSED'
  /** ClickHouse refused or failed the query: limits, syntax, readonly (400 for the caller's query). */
  | 'QUERY_FAILED'
  /** The live stream is not configured (no Kafka brokers) or full (503). */
  | 'STREAM_UNAVAILABLE'
  /** No media type in the request's Accept header is one the route can answer in (406). */
  | 'NOT_ACCEPTABLE';

export type QueryApiErrorInit = HttpErrorInit;

const STATUS: Record<QueryApiErrorCode, number> = {
  ...HTTP_ERROR_STATUS,
  OVERLOADED: 503,
  SQL_REFUSED: 400,
  QUERY_FAILED: 400,
  STREAM_UNAVAILABLE: 503,
  NOT_ACCEPTABLE: 406,
};

export class QueryApiError extends HttpErrorWithStatuses<QueryApiErrorCode>(STATUS) {
  override readonly name = 'QueryApiError';
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
