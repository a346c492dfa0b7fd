/**
 * The three calls every order book of the service takes alike (orders, super, forever, US stocks):
 * a new order, a change to one and its cancellation, with the rules the spec sets for each: the
 * body carries the client id; a new order carries a correlation id (the caller's or a fresh one) so
 * that a lost answer can be followed up instead of placing it twice; a change is counted against
 * the order's modification budget; a cancellation is harmless to repeat.
 */
import { EndpointGroup } from '../core/endpoint-call.js';
import { pathParam } from '../core/shape.js';
import { lostOrderHint, newCorrelationId } from './order-input.js';

/** The route's `{order-id}` filled with `orderId`. */
function orderPath(route: string, orderId: string): string {
  return route.slice(route.indexOf(' ') + 1).replace('{order-id}', pathParam(orderId, 'orderId'));
}

export abstract class OrderEndpointGroup extends EndpointGroup {
  /** Never retried after a lost answer: the hint names the correlation id to look the order up by. */
  protected placeOrder<T>(
    route: string,
    request: { correlationId?: string },
    signal?: AbortSignal,
  ): Promise<T> {
    const correlationId = request.correlationId ?? newCorrelationId();
    return this.callObject<T>(route, {
      body: { svcClientId: this.transport.clientId, ...request, correlationId },
      idempotent: false,
      lostAnswerHint: lostOrderHint(correlationId),
      signal,
    });
  }

  protected modifyOrder<T>(route: string, orderId: string, fields: object, signal?: AbortSignal): Promise<T> {
    return this.callObject<T>(route, {
      path: orderPath(route, orderId),
      body: { svcClientId: this.transport.clientId, ...fields },
      idempotent: false,
      modifiesOrder: orderId,
      signal,
    });
  }

  protected cancelOrder<T>(route: string, orderId: string, signal?: AbortSignal): Promise<T> {
    return this.callObject<T>(route, { path: orderPath(route, orderId), idempotent: true, signal });
  }
}
