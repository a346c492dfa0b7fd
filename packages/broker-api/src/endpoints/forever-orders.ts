import { EndpointGroup } from '../core/endpoint-call.js';
import { pathParam } from '../core/shape.js';
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
export class ForeverOrdersApi extends EndpointGroup {
  async place(request: PlaceForeverOrderRequest, signal?: AbortSignal): Promise<OrderAck> {
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
    const body = { svcClientId: this.transport.clientId, ...request, correlationId };
    return this.callObject<OrderAck>('POST /forever/orders', {
      body,
      idempotent: false,
      lostAnswerHint: lostOrderHint(correlationId),
      signal,
    });
  }

  async modify(orderId: string, request: ModifyForeverOrderRequest, signal?: AbortSignal): Promise<OrderAck> {
    checkId(orderId, 'orderId');
    const body = { svcClientId: this.transport.clientId, orderId, ...request };
    return this.callObject<OrderAck>('PUT /forever/orders/{order-id}', {
      path: `/forever/orders/${pathParam(orderId, 'orderId')}`,
      body,
      idempotent: false,
      modifiesOrder: orderId,
      signal,
    });
  }

  async cancel(orderId: string, signal?: AbortSignal): Promise<OrderAck> {
    return this.callObject<OrderAck>('DELETE /forever/orders/{order-id}', {
      path: `/forever/orders/${pathParam(orderId, 'orderId')}`,
      idempotent: true,
      signal,
    });
  }

  /** GET /forever/orders (the service's "all forever orders" list). */
  async list(signal?: AbortSignal): Promise<ForeverOrder[]> {
    return this.readList<ForeverOrder>('GET /forever/orders', signal);
  }
}
