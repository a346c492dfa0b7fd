import type {
  ForeverOrder,
  ModifyForeverOrderRequest,
  OrderAck,
  PlaceForeverOrderRequest,
} from '../types/orders.js';
import { OrderEndpointGroup } from './order-calls.js';
import { checkId, checkPlacement, checkPrice, checkQuantity } from './order-input.js';

/** Forever orders (SINGLE or OCO good-till-triggered orders). */
export class ForeverOrdersApi extends OrderEndpointGroup {
  async place(request: PlaceForeverOrderRequest, signal?: AbortSignal): Promise<OrderAck> {
    checkPlacement(request);
    checkPrice(request.triggerPrice, 'triggerPrice');
    if (request.orderFlag === 'OCO') {
      checkPrice(request.price1, 'price1');
      checkPrice(request.triggerPrice1, 'triggerPrice1');
      if (request.quantity1 !== undefined) checkQuantity(request.quantity1, 'quantity1');
    }
    return this.placeOrder<OrderAck>('POST /forever/orders', request, signal);
  }

  async modify(orderId: string, request: ModifyForeverOrderRequest, signal?: AbortSignal): Promise<OrderAck> {
    checkId(orderId, 'orderId');
    return this.modifyOrder<OrderAck>(
      'PUT /forever/orders/{order-id}',
      orderId,
      { orderId, ...request },
      signal,
    );
  }

  async cancel(orderId: string, signal?: AbortSignal): Promise<OrderAck> {
    return this.cancelOrder<OrderAck>('DELETE /forever/orders/{order-id}', orderId, signal);
  }

  /** GET /forever/orders (the service's "all forever orders" list). */
  async list(signal?: AbortSignal): Promise<ForeverOrder[]> {
    return this.readList<ForeverOrder>('GET /forever/orders', signal);
  }
}
