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
import { OrderEndpointGroup } from './order-calls.js';
import { checkId, checkPlacement, checkPrice } from './order-input.js';

const LEGS: readonly LegName[] = ['ENTRY_LEG', 'TARGET_LEG', 'STOP_LOSS_LEG'];

/** Super orders: an entry with target and stop-loss legs nested under it. */
export class SuperOrdersApi extends OrderEndpointGroup {
  /** POST /super/orders; LIMIT or MARKET only; never retried after a lost answer. */
  async place(request: PlaceSuperOrderRequest, signal?: AbortSignal): Promise<OrderAck> {
    checkPlacement(request);
    checkPrice(request.targetPrice, 'targetPrice');
    checkPrice(request.stopLossPrice, 'stopLossPrice');
    if (request.orderType !== 'LIMIT' && request.orderType !== 'MARKET') {
      throw invalidArgument('super orders take orderType LIMIT or MARKET');
    }
    return this.placeOrder<OrderAck>('POST /super/orders', request, signal);
  }

  /** PUT /super/orders/{order-id}: modifies one leg; takes one of the order's 25 modifications. */
  async modify(orderId: string, request: ModifySuperOrderRequest, signal?: AbortSignal): Promise<OrderAck> {
    checkId(orderId, 'orderId');
    checkLeg(request.legName);
    return this.modifyOrder<OrderAck>(
      'PUT /super/orders/{order-id}',
      orderId,
      { orderId, ...request },
      signal,
    );
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
