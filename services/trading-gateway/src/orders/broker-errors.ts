/**
 * How a BrokerApiError becomes an answer. The service's own refusal keeps its status class and its
 * errorType/errorCode/errorMessage under `upstream`; our side's trouble (expired token, rate budget,
 * network) is a 5xx or 429, never blamed on the caller.
 */
import { isBrokerApiError } from '@feedpipe/broker-api';
import { type HttpError, toHttpError } from '@feedpipe/service-http';
import { TradingGatewayError } from '../errors.js';

/** Any thrown value as the answer the gateway gives: its own errors, the broker client's, fastify's. */
export function toGatewayError(error: unknown): HttpError<string> {
  return toHttpError(error, fromBrokerError);
}

export function fromBrokerError(error: unknown): TradingGatewayError | undefined {
  if (!isBrokerApiError(error)) return undefined;
  const upstream = {
    status: error.status,
    errorType: error.errorType,
    errorCode: error.errorCode,
    errorMessage: error.errorMessage,
  };
  const message = error.message;
  switch (error.code) {
    case 'INVALID_ARGUMENT':
      return new TradingGatewayError('BAD_REQUEST', message, { cause: error });
    case 'MODIFICATION_LIMIT':
      return new TradingGatewayError('UPSTREAM_REJECTED', message, { status: 409, upstream, cause: error });
    case 'RATE_LIMITED':
    case 'QUEUE_FULL':
    case 'BUDGET_EXHAUSTED':
      return new TradingGatewayError('UPSTREAM_UNAVAILABLE', message, {
        status: 429,
        retryable: true,
        upstream,
        cause: error,
      });
    case 'TIMEOUT':
      return new TradingGatewayError('UPSTREAM_UNAVAILABLE', message, {
        status: 504,
        retryable: true,
        upstream,
        cause: error,
      });
    case 'NETWORK':
    case 'INVALID_RESPONSE':
    case 'TOKEN_EXPIRED':
    case 'ABORTED':
      return new TradingGatewayError('UPSTREAM_UNAVAILABLE', message, {
        status: 502,
        retryable: true,
        upstream,
        cause: error,
      });
    default: {
      const status = error.status ?? 502;
      if (status === 404)
        return new TradingGatewayError('NOT_FOUND', error.errorMessage ?? message, {
          upstream,
          cause: error,
        });
      // A 403 with the service's order error (DH-906, Order_Error) is a refusal by the account's
      // state, not a failed login: the kill switch turned on after our last read of it (a race the
      // cached state cannot close), or a call from an address the account does not allow. The
      // caller is told it was refused, with the service's code, never a 502 that reads as "retry".
      if (status === 403 && isOrderRefusal(error)) {
        return new TradingGatewayError('UPSTREAM_REJECTED', error.errorMessage ?? message, {
          status: 409,
          upstream,
          cause: error,
        });
      }
      // 401/403 from the service mean our token or account is wrong: the caller cannot fix that.
      if (status === 401 || status === 403 || status >= 500) {
        return new TradingGatewayError('UPSTREAM_UNAVAILABLE', message, {
          status: 502,
          upstream,
          cause: error,
        });
      }
      return new TradingGatewayError('UPSTREAM_REJECTED', error.errorMessage ?? message, {
        status: status === 429 ? 429 : 422,
        upstream,
        cause: error,
      });
    }
  }
}

/** The service's order refusal (DH-906 / Order_Error), as opposed to an authentication failure. */
export function isOrderRefusal(error: {
  errorCode?: string | undefined;
  errorType?: string | undefined;
}): boolean {
  return error.errorCode === 'DH-906' || error.errorType === 'Order_Error';
}
