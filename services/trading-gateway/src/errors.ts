/**
 * The error class of the trading gateway: the shared HTTP error base (envelope, status,
 * Retry-After) with the codes only order execution answers with.
 */
import {
  HTTP_ERROR_STATUS,
  type HttpErrorCode,
  HttpErrorWithStatuses,
  isHttpError,
} from '@feedpipe/service-http';

export type TradingGatewayErrorCode =
  | HttpErrorCode
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
  /**
   * Another key already sent an order with this correlationId (409). The service knows an order by
   * one correlationId per account, so the id cannot be placed again for a second key, and that
   * key must never get the first key's answer as its own.
   */
  | 'CORRELATION_ID_CONFLICT'
  /** The audit row could not be written, so the order was not sent (503). */
  | 'AUDIT_UNAVAILABLE'
  /** The audit journal holds its limit of rows not yet stored; nothing was sent (503, retry later). */
  | 'AUDIT_BACKLOG_FULL'
  /** The audit journal's file cannot be written or synced (disk full, I/O error); nothing was sent (503). */
  | 'AUDIT_JOURNAL_FAILED'
  /** The service refused the call (its status and error are kept in `upstream`). */
  | 'UPSTREAM_REJECTED'
  /** The service could not be reached or did not answer; an order's outcome may be unknown (502/504). */
  | 'UPSTREAM_UNAVAILABLE';

const STATUS: Record<TradingGatewayErrorCode, number> = {
  ...HTTP_ERROR_STATUS,
  TRADING_DISABLED: 503,
  PRE_TRADE_REJECTED: 422,
  KILL_SWITCH_ACTIVE: 409,
  DUPLICATE_IN_FLIGHT: 409,
  OUTCOME_UNKNOWN: 409,
  CORRELATION_ID_CONFLICT: 409,
  AUDIT_UNAVAILABLE: 503,
  AUDIT_BACKLOG_FULL: 503,
  AUDIT_JOURNAL_FAILED: 503,
  UPSTREAM_REJECTED: 502,
  UPSTREAM_UNAVAILABLE: 502,
};

export class TradingGatewayError extends HttpErrorWithStatuses<TradingGatewayErrorCode>(STATUS) {
  override readonly name = 'TradingGatewayError';
}

/** Duck-typed, so errors from another copy of this package are still recognised. */
export function isTradingGatewayError(value: unknown): value is TradingGatewayError {
  return isHttpError(value) && value.name === 'TradingGatewayError';
}
