import { EndpointGroup } from '../core/endpoint-call.js';
import { invalidArgument } from '../core/errors.js';
import { expectObject, pathParam } from '../core/shape.js';
import type { LegName } from '../types/enums.js';
import type {
  CancelLegResult,
  ModifySuperOrderRequest,
  OrderAck,
  PlaceSuperOrderRequest,
  SuperOrder,
} from '../types/orders.js';
import {
  checkCorrelationId,
  checkId,
  checkPrice,
  checkQuantity,
  lostOrderHint,
  newCorrelationId,
} from './order-input.js';

const LEGS: readonly LegName[] = ['ENTRY_LEG', 'TARGET_LEG', 'STOP_LOSS_LEG'];

/** Super orders: an entry with target and stop-loss legs nested under it. */
export class SuperOrdersApi extends EndpointGroup {
  /** POST /super/orders; LIMIT or MARKET only; never retried after a lost answer. */
  async place(request: PlaceSuperOrderRequest, signal?: AbortSignal): Promise<OrderAck> {
    checkCorrelationId(request.correlationId);
    checkId(request.securityId, 'securityId');
    checkQuantity(request.quantity);
    checkPrice(request.price, 'price');
    checkPrice(request.targetPrice, 'targetPrice');
    checkPrice(request.stopLossPrice, 'stopLossPrice');
    if (request.orderType !== 'LIMIT' && request.orderType !== 'MARKET') {
      throw invalidArgument('super orders take orderType LIMIT or MARKET');
    }
    const correlationId = request.correlationId ?? newCorrelationId();
    const body = { svcClientId: this.transport.clientId, ...request, correlationId };
    return this.callObject<OrderAck>('POST /super/orders', {
      body,
      idempotent: false,
      lostAnswerHint: lostOrderHint(correlationId),
      signal,
    });
  }

  /** PUT /super/orders/{order-id}: modifies one leg; takes one of the order's 25 modifications. */
  async modify(orderId: string, request: ModifySuperOrderRequest, signal?: AbortSignal): Promise<OrderAck> {
    checkId(orderId, 'orderId');
    checkLeg(request.legName);
    const body = { svcClientId: this.transport.clientId, orderId, ...request };
    return this.callObject<OrderAck>('PUT /super/orders/{order-id}', {
      path: `/super/orders/${pathParam(orderId, 'orderId')}`,
      body,
      idempotent: false,
      modifiesOrder: orderId,
      signal,
    });
  }

  /**
   * DELETE /super/orders/{order-id}/{order-leg}. The spec gives both 202 without body and 200 with
   * orderId and orderStatus; an empty answer comes back as `{}`.
   */
  async cancelLeg(orderId: string, leg: LegName, signal?: AbortSignal): Promise<CancelLegResult> {
    const route = 'DELETE /super/orders/{order-id}/{order-leg}';
    checkLeg(leg);
    const r = await this.transport.call({
      method: 'DELETE',
      route,
      path: `/super/orders/${pathParam(orderId, 'orderId')}/${leg}`,
      idempotent: true,
      signal,
    });
    return r.body === undefined ? {} : expectObject<CancelLegResult>(r.body, route);
  }

  async list(signal?: AbortSignal): Promise<SuperOrder[]> {
    return this.readList<SuperOrder>('GET /super/orders', signal);
  }
}

function checkLeg(leg: LegName): void {
  if (!LEGS.includes(leg)) throw invalidArgument(`legName must be one of ${LEGS.join(', ')}`);
}
