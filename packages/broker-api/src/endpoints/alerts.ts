import { EndpointGroup } from '../core/endpoint-call.js';
import { invalidArgument } from '../core/errors.js';
import { expectObject, pathParam } from '../core/shape.js';
import type { Alert, AlertAck, PlaceAlertRequest } from '../types/orders.js';
import { checkId, checkQuantity } from './order-input.js';

/** A conditional order holds up to 15 orders (spec, Limits). */
const MAX_ALERT_ORDERS = 15;

/** Conditional (alert-triggered) orders. */
export class AlertsApi extends EndpointGroup {
  place(request: PlaceAlertRequest, signal?: AbortSignal): Promise<AlertAck> {
    return this.#post('POST /alerts/orders', '/alerts/orders', request, signal);
  }

  /** POST /alerts/multi/orders: a conditional order with several orders. */
  placeMulti(request: PlaceAlertRequest, signal?: AbortSignal): Promise<AlertAck> {
    return this.#post('POST /alerts/multi/orders', '/alerts/multi/orders', request, signal);
  }

  async modify(alertId: string, request: PlaceAlertRequest, signal?: AbortSignal): Promise<AlertAck> {
    checkAlert(request);
    const body = { svcClientId: this.transport.clientId, alertId, ...request };
    return this.callObject<AlertAck>('PUT /alerts/orders/{alertId}', {
      path: `/alerts/orders/${pathParam(alertId, 'alertId')}`,
      body,
      idempotent: true,
      signal,
    });
  }

  async cancel(alertId: string, signal?: AbortSignal): Promise<AlertAck> {
    return this.callObject<AlertAck>('DELETE /alerts/orders/{alertId}', {
      path: `/alerts/orders/${pathParam(alertId, 'alertId')}`,
      idempotent: true,
      signal,
    });
  }

  async get(alertId: string, signal?: AbortSignal): Promise<Alert> {
    return this.readObject<Alert>(
      'GET /alerts/orders/{alertId}',
      signal,
      `/alerts/orders/${pathParam(alertId, 'alertId')}`,
    );
  }

  async list(signal?: AbortSignal): Promise<Alert[]> {
    return this.readList<Alert>('GET /alerts/orders', signal);
  }

  async #post(
    route: string,
    path: string,
    request: PlaceAlertRequest,
    signal?: AbortSignal,
  ): Promise<AlertAck> {
    checkAlert(request);
    const body = { svcClientId: this.transport.clientId, ...request };
    const r = await this.transport.call({ method: 'POST', route, path, body, idempotent: false, signal });
    return expectObject<AlertAck>(r.body, route);
  }
}

function checkAlert(request: PlaceAlertRequest): void {
  if (typeof request.condition !== 'object' || request.condition === null) {
    throw invalidArgument('a conditional order needs a condition');
  }
  checkId(request.condition.securityId, 'condition.securityId');
  if (
    !Array.isArray(request.orders) ||
    request.orders.length < 1 ||
    request.orders.length > MAX_ALERT_ORDERS
  ) {
    throw invalidArgument(`a conditional order holds 1 to ${MAX_ALERT_ORDERS} orders`);
  }
  for (const order of request.orders) {
    checkId(order.securityId, 'orders[].securityId');
    checkQuantity(order.quantity, 'orders[].quantity');
  }
}
