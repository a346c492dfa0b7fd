/**
 * What one postback carries. The spec leaves the payload shape "not shown"; the service's public
 * documentation posts the order record itself, so the body is the Order resource as the order
 * book shows it at that moment (orderStatus, filledQty, remainingQuantity, averageTradedPrice,
 * times, omsErrorCode/omsErrorDescription when rejected), the US-stocks order record for INX_EQ,
 * the forever-order record, and for a conditional-order trigger the alert record (alertId,
 * alertStatus TRIGGERED, triggeredTime, placedOrderIds). Updates of one `key` (order id or alert
 * id) are delivered in order.
 */
import type { AlertRecord } from '../accounts/alerts.js';
import type { ForeverRecord } from '../accounts/forever-orders.js';
import type { UsOrderRecord } from '../accounts/global-stocks.js';
import type { OrderRecord } from '../accounts/types.js';

export type PostbackKind = 'order' | 'usOrder' | 'forever' | 'alert';

export interface PostbackUpdate {
  readonly kind: PostbackKind;
  readonly clientId: string;
  /** Order id, or alert id for a trigger: the unit of in-order delivery. */
  readonly key: string;
  /** The JSON text POSTed. */
  readonly body: string;
}

export function orderUpdate(clientId: string, order: OrderRecord): PostbackUpdate {
  return { kind: 'order', clientId, key: order.orderId, body: JSON.stringify(order) };
}

export function usOrderUpdate(clientId: string, order: UsOrderRecord): PostbackUpdate {
  return { kind: 'usOrder', clientId, key: order.orderId, body: JSON.stringify(order) };
}

export function foreverUpdate(clientId: string, order: ForeverRecord): PostbackUpdate {
  return { kind: 'forever', clientId, key: order.orderId, body: JSON.stringify(order) };
}

export function alertUpdate(clientId: string, alert: AlertRecord): PostbackUpdate {
  return { kind: 'alert', clientId, key: alert.alertId, body: JSON.stringify(alert) };
}
