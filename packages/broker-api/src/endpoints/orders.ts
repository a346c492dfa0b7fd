import { expectArray, expectObject, pathParam } from '../core/shape.js';
import type { ModifyOrderRequest, Order, OrderAck, PlaceOrderRequest } from '../types/orders.js';
import { OrderEndpointGroup } from './order-calls.js';
import {
  checkId,
  checkPlacement,
  checkPrice,
  checkQuantity,
  lostOrderHint,
  newCorrelationId,
} from './order-input.js';

/** Regular orders: place, modify, cancel, slice, order book, by id, by correlation id. */
export class OrdersApi extends OrderEndpointGroup {
  /**
   * POST /orders. Never retried after a lost answer (only after 429, which the service refused);
   * a correlationId is generated when none is given so the order can be looked up.
   */
  place(request: PlaceOrderRequest, signal?: AbortSignal): Promise<OrderAck> {
    return this.#place('POST /orders', '/orders', request, signal);
  }

  /** POST /orders/slicing: same body as place; splits an order above the freeze quantity. */
  async slice(request: PlaceOrderRequest, signal?: AbortSignal): Promise<OrderAck[]> {
    const route = 'POST /orders/slicing';
    const body = this.#placeBody(request);
    const r = await this.transport.call({
      method: 'POST',
      route,
      path: '/orders/slicing',
      body,
      idempotent: false,
      lostAnswerHint: lostOrderHint(body.correlationId),
      signal,
    });
    return Array.isArray(r.body) ? (r.body as OrderAck[]) : [expectObject<OrderAck>(r.body, route)];
  }

  /** PUT /orders/{order-id}; takes one of the order's 25 modifications. */
  async modify(orderId: string, request: ModifyOrderRequest, signal?: AbortSignal): Promise<OrderAck> {
    checkId(orderId, 'orderId');
    checkPrice(request.price, 'price');
    checkPrice(request.triggerPrice, 'triggerPrice');
    if (request.quantity !== undefined) checkQuantity(request.quantity);
    return this.modifyOrder<OrderAck>('PUT /orders/{order-id}', orderId, { orderId, ...request }, signal);
  }

  /** DELETE /orders/{order-id}; cancelling twice is harmless, so it is retried on lost answers. */
  async cancel(orderId: string, signal?: AbortSignal): Promise<OrderAck> {
    return this.cancelOrder<OrderAck>('DELETE /orders/{order-id}', orderId, signal);
  }

  /** GET /orders: the day's order book. */
  async list(signal?: AbortSignal): Promise<Order[]> {
    const route = 'GET /orders';
    const r = await this.transport.call({ method: 'GET', route, path: '/orders', idempotent: true, signal });
    return expectArray<Record<string, unknown>>(r.body, route).map(normalizeOrder);
  }

  async byId(orderId: string, signal?: AbortSignal): Promise<Order> {
    const route = 'GET /orders/{order-id}';
    const r = await this.transport.call({
      method: 'GET',
      route,
      path: `/orders/${pathParam(orderId, 'orderId')}`,
      idempotent: true,
      signal,
    });
    return normalizeOrder(singleRecord(r.body, route));
  }

  async byCorrelationId(correlationId: string, signal?: AbortSignal): Promise<Order> {
    const route = 'GET /orders/external/{correlation-id}';
    const r = await this.transport.call({
      method: 'GET',
      route,
      path: `/orders/external/${pathParam(correlationId, 'correlationId')}`,
      idempotent: true,
      signal,
    });
    return normalizeOrder(singleRecord(r.body, route));
  }

  #placeBody(request: PlaceOrderRequest): PlaceOrderRequest & { correlationId: string } {
    checkPlacement(request);
    checkPrice(request.triggerPrice, 'triggerPrice');
    return {
      svcClientId: this.transport.clientId,
      ...request,
      correlationId: request.correlationId ?? newCorrelationId(),
    };
  }

  async #place(
    route: string,
    path: string,
    request: PlaceOrderRequest,
    signal?: AbortSignal,
  ): Promise<OrderAck> {
    const body = this.#placeBody(request);
    const r = await this.transport.call({
      method: 'POST',
      route,
      path,
      body,
      idempotent: false,
      lostAnswerHint: lostOrderHint(body.correlationId),
      signal,
    });
    return expectObject<OrderAck>(r.body, route);
  }
}

/** Some services answer a by-id read with a one-element array. */
function singleRecord(body: unknown, route: string): Record<string, unknown> {
  if (Array.isArray(body) && body.length === 1) return expectObject(body[0], route);
  return expectObject(body, route);
}

/**
 * The spec's by-id table names the id `order-id` and the by-correlation table `correlation-id`;
 * both are copied to the camel-case names so every order record reads the same.
 */
export function normalizeOrder(record: Record<string, unknown>): Order {
  const out: Record<string, unknown> = { ...record };
  if (out.orderId === undefined && typeof record['order-id'] === 'string') out.orderId = record['order-id'];
  if (out.correlationId === undefined && typeof record['correlation-id'] === 'string') {
    out.correlationId = record['correlation-id'];
  }
  return out as unknown as Order;
}
