import { invalidArgument } from '../core/errors.js';
import { expectArray, expectObject, pathParam } from '../core/shape.js';
import type { Transport } from '../core/transport.js';
import type {
  GlobalChargeEstimate,
  GlobalEstimateRequest,
  GlobalFundLimit,
  GlobalHolding,
  GlobalMarginResult,
  GlobalMarketStatus,
  GlobalOrder,
  GlobalOrderAck,
  GlobalTrade,
  ModifyGlobalOrderRequest,
  PlaceGlobalOrderRequest,
} from '../types/global-stocks.js';
import {
  checkCorrelationId,
  checkId,
  checkPrice,
  checkQuantity,
  lostOrderHint,
  newCorrelationId,
} from './order-input.js';

/** US stocks: orders (fractional and AMOUNT), trades, holdings, funds, estimates, market status. */
export class GlobalStocksApi {
  readonly #t: Transport;

  constructor(transport: Transport) {
    this.#t = transport;
  }

  async place(request: PlaceGlobalOrderRequest, signal?: AbortSignal): Promise<GlobalOrderAck> {
    const route = 'POST /globalstocks/orders';
    checkCorrelationId(request.correlationId);
    checkId(request.securityId, 'securityId');
    if (request.orderType === 'AMOUNT') {
      if (request.amount === undefined) throw invalidArgument('AMOUNT orders need amount');
      checkQuantity(request.amount, 'amount', true);
    } else {
      if (request.quantity === undefined) throw invalidArgument(`${request.orderType} orders need quantity`);
      checkQuantity(request.quantity, 'quantity', true);
    }
    checkPrice(request.price, 'price');
    checkPrice(request.triggerPrice, 'triggerPrice');
    const correlationId = request.correlationId ?? newCorrelationId();
    const body = { svcClientId: this.#t.clientId, ...request, correlationId };
    const r = await this.#t.call({
      method: 'POST',
      route,
      path: '/globalstocks/orders',
      body,
      idempotent: false,
      lostAnswerHint: lostOrderHint(correlationId),
      signal,
    });
    return expectObject<GlobalOrderAck>(r.body, route);
  }

  async modify(
    orderId: string,
    request: ModifyGlobalOrderRequest,
    signal?: AbortSignal,
  ): Promise<GlobalOrderAck> {
    const route = 'PUT /globalstocks/orders/{order-id}';
    checkId(orderId, 'orderId');
    checkId(request.securityId, 'securityId');
    if (request.quantity !== undefined) checkQuantity(request.quantity, 'quantity', true);
    checkPrice(request.price, 'price');
    const body = { svcClientId: this.#t.clientId, legName: 'NA', ...request };
    const r = await this.#t.call({
      method: 'PUT',
      route,
      path: `/globalstocks/orders/${pathParam(orderId, 'orderId')}`,
      body,
      idempotent: false,
      modifiesOrder: orderId,
      signal,
    });
    return expectObject<GlobalOrderAck>(r.body, route);
  }

  async cancel(orderId: string, signal?: AbortSignal): Promise<GlobalOrderAck> {
    const route = 'DELETE /globalstocks/orders/{order-id}';
    const r = await this.#t.call({
      method: 'DELETE',
      route,
      path: `/globalstocks/orders/${pathParam(orderId, 'orderId')}`,
      idempotent: true,
      signal,
    });
    return expectObject<GlobalOrderAck>(r.body, route);
  }

  async order(orderId: string, signal?: AbortSignal): Promise<GlobalOrder> {
    const route = 'GET /globalstocks/orders/{order-id}';
    const r = await this.#t.call({
      method: 'GET',
      route,
      path: `/globalstocks/orders/${pathParam(orderId, 'orderId')}`,
      idempotent: true,
      signal,
    });
    return expectObject<GlobalOrder>(r.body, route);
  }

  async orders(signal?: AbortSignal): Promise<GlobalOrder[]> {
    const route = 'GET /globalstocks/orders';
    const r = await this.#t.call({
      method: 'GET',
      route,
      path: '/globalstocks/orders',
      idempotent: true,
      signal,
    });
    return expectArray<GlobalOrder>(r.body, route);
  }

  async chargeEstimate(request: GlobalEstimateRequest, signal?: AbortSignal): Promise<GlobalChargeEstimate> {
    const route = 'POST /globalstocks/transEstimate';
    checkEstimate(request);
    const r = await this.#t.call({
      method: 'POST',
      route,
      path: '/globalstocks/transEstimate',
      body: request,
      idempotent: true,
      signal,
    });
    return expectObject<GlobalChargeEstimate>(r.body, route);
  }

  async margin(request: GlobalEstimateRequest, signal?: AbortSignal): Promise<GlobalMarginResult> {
    const route = 'POST /globalstocks/margincalculator';
    checkEstimate(request);
    const r = await this.#t.call({
      method: 'POST',
      route,
      path: '/globalstocks/margincalculator',
      body: request,
      idempotent: true,
      signal,
    });
    return expectObject<GlobalMarginResult>(r.body, route);
  }

  async trades(signal?: AbortSignal): Promise<GlobalTrade[]> {
    const route = 'GET /globalstocks/trades';
    const r = await this.#t.call({
      method: 'GET',
      route,
      path: '/globalstocks/trades',
      idempotent: true,
      signal,
    });
    return expectArray<GlobalTrade>(r.body, route);
  }

  async tradesBySecurity(securityId: string, signal?: AbortSignal): Promise<GlobalTrade[]> {
    const route = 'GET /globalstocks/trades/{security-id}';
    const r = await this.#t.call({
      method: 'GET',
      route,
      path: `/globalstocks/trades/${pathParam(securityId, 'securityId')}`,
      idempotent: true,
      signal,
    });
    return expectArray<GlobalTrade>(r.body, route);
  }

  async marketStatus(signal?: AbortSignal): Promise<GlobalMarketStatus> {
    const route = 'GET /globalstocks/marketstatus';
    const r = await this.#t.call({
      method: 'GET',
      route,
      path: '/globalstocks/marketstatus',
      idempotent: true,
      signal,
    });
    return expectObject<GlobalMarketStatus>(r.body, route);
  }

  async holdings(signal?: AbortSignal): Promise<GlobalHolding[]> {
    const route = 'GET /globalstocks/holdings';
    const r = await this.#t.call({
      method: 'GET',
      route,
      path: '/globalstocks/holdings',
      idempotent: true,
      signal,
    });
    return expectArray<GlobalHolding>(r.body, route);
  }

  async fundLimit(signal?: AbortSignal): Promise<GlobalFundLimit> {
    const route = 'GET /globalstocks/fundlimit';
    const r = await this.#t.call({
      method: 'GET',
      route,
      path: '/globalstocks/fundlimit',
      idempotent: true,
      signal,
    });
    return expectObject<GlobalFundLimit>(r.body, route);
  }
}

function checkEstimate(request: GlobalEstimateRequest): void {
  checkId(request.securityId, 'securityId');
  for (const key of ['price', 'quantity'] as const) {
    const value = request[key];
    if (typeof value !== 'string' || !Number.isFinite(Number(value)) || value.trim() === '') {
      throw invalidArgument(`${key} must be a number written as text`);
    }
  }
}
