import { expectArray, expectObject, pathParam } from '../core/shape.js';
import type { Transport } from '../core/transport.js';
import type {
  ForeverOrder,
  ModifyForeverOrderRequest,
  OrderAck,
  PlaceForeverOrderRequest,
} from '../types/orders.js';
import {
  checkCorrelationId,
  checkId,
  checkPrice,
  checkQuantity,
  lostOrderHint,
  newCorrelationId,
} from './order-input.js';

/** Forever orders (SINGLE or OCO good-till-triggered orders). */
export class ForeverOrdersApi {
  readonly #t: Transport;

  constructor(transport: Transport) {
    this.#t = transport;
  }

  async place(request: PlaceForeverOrderRequest, signal?: AbortSignal): Promise<OrderAck> {
    const route = 'POST /forever/orders';
    checkCorrelationId(request.correlationId);
    checkId(request.securityId, 'securityId');
    checkQuantity(request.quantity);
    checkPrice(request.price, 'price');
    checkPrice(request.triggerPrice, 'triggerPrice');
    if (request.orderFlag === 'OCO') {
      checkPrice(request.price1, 'price1');
      checkPrice(request.triggerPrice1, 'triggerPrice1');
      if (request.quantity1 !== undefined) checkQuantity(request.quantity1, 'quantity1');
    }
    const correlationId = request.correlationId ?? newCorrelationId();
    const body = { svcClientId: this.#t.clientId, ...request, correlationId };
    const r = await this.#t.call({
      method: 'POST',
      route,
      path: '/forever/orders',
      body,
      idempotent: false,
      lostAnswerHint: lostOrderHint(correlationId),
      signal,
    });
    return expectObject<OrderAck>(r.body, route);
  }

  async modify(orderId: string, request: ModifyForeverOrderRequest, signal?: AbortSignal): Promise<OrderAck> {
    const route = 'PUT /forever/orders/{order-id}';
    checkId(orderId, 'orderId');
    const body = { svcClientId: this.#t.clientId, orderId, ...request };
    const r = await this.#t.call({
      method: 'PUT',
      route,
      path: `/forever/orders/${pathParam(orderId, 'orderId')}`,
      body,
      idempotent: false,
      modifiesOrder: orderId,
      signal,
    });
    return expectObject<OrderAck>(r.body, route);
  }

  async cancel(orderId: string, signal?: AbortSignal): Promise<OrderAck> {
    const route = 'DELETE /forever/orders/{order-id}';
    const r = await this.#t.call({
      method: 'DELETE',
      route,
      path: `/forever/orders/${pathParam(orderId, 'orderId')}`,
      idempotent: true,
      signal,
    });
    return expectObject<OrderAck>(r.body, route);
  }

  /** GET /forever/orders (the service's "all forever orders" list). */
  async list(signal?: AbortSignal): Promise<ForeverOrder[]> {
    const route = 'GET /forever/orders';
    const r = await this.#t.call({ method: 'GET', route, path: '/forever/orders', idempotent: true, signal });
    return expectArray<ForeverOrder>(r.body, route);
  }
}
