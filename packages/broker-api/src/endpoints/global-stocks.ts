import { callObject, readList, readObject } from '../core/endpoint-call.js';
import { invalidArgument } from '../core/errors.js';
import { pathParam } from '../core/shape.js';
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
    return callObject<GlobalOrderAck>(this.#t, 'POST /globalstocks/orders', {
      body,
      idempotent: false,
      lostAnswerHint: lostOrderHint(correlationId),
      signal,
    });
  }

  async modify(
    orderId: string,
    request: ModifyGlobalOrderRequest,
    signal?: AbortSignal,
  ): Promise<GlobalOrderAck> {
    checkId(orderId, 'orderId');
    checkId(request.securityId, 'securityId');
    if (request.quantity !== undefined) checkQuantity(request.quantity, 'quantity', true);
    checkPrice(request.price, 'price');
    const body = { svcClientId: this.#t.clientId, legName: 'NA', ...request };
    return callObject<GlobalOrderAck>(this.#t, 'PUT /globalstocks/orders/{order-id}', {
      path: `/globalstocks/orders/${pathParam(orderId, 'orderId')}`,
      body,
      idempotent: false,
      modifiesOrder: orderId,
      signal,
    });
  }

  async cancel(orderId: string, signal?: AbortSignal): Promise<GlobalOrderAck> {
    return callObject<GlobalOrderAck>(this.#t, 'DELETE /globalstocks/orders/{order-id}', {
      path: `/globalstocks/orders/${pathParam(orderId, 'orderId')}`,
      idempotent: true,
      signal,
    });
  }

  async order(orderId: string, signal?: AbortSignal): Promise<GlobalOrder> {
    return readObject<GlobalOrder>(
      this.#t,
      'GET /globalstocks/orders/{order-id}',
      signal,
      `/globalstocks/orders/${pathParam(orderId, 'orderId')}`,
    );
  }

  async orders(signal?: AbortSignal): Promise<GlobalOrder[]> {
    return readList<GlobalOrder>(this.#t, 'GET /globalstocks/orders', signal);
  }

  async chargeEstimate(request: GlobalEstimateRequest, signal?: AbortSignal): Promise<GlobalChargeEstimate> {
    checkEstimate(request);
    return callObject<GlobalChargeEstimate>(this.#t, 'POST /globalstocks/transEstimate', {
      body: request,
      idempotent: true,
      signal,
    });
  }

  async margin(request: GlobalEstimateRequest, signal?: AbortSignal): Promise<GlobalMarginResult> {
    checkEstimate(request);
    return callObject<GlobalMarginResult>(this.#t, 'POST /globalstocks/margincalculator', {
      body: request,
      idempotent: true,
      signal,
    });
  }

  async trades(signal?: AbortSignal): Promise<GlobalTrade[]> {
    return readList<GlobalTrade>(this.#t, 'GET /globalstocks/trades', signal);
  }

  async tradesBySecurity(securityId: string, signal?: AbortSignal): Promise<GlobalTrade[]> {
    return readList<GlobalTrade>(
      this.#t,
      'GET /globalstocks/trades/{security-id}',
      signal,
      `/globalstocks/trades/${pathParam(securityId, 'securityId')}`,
    );
  }

  async marketStatus(signal?: AbortSignal): Promise<GlobalMarketStatus> {
    return readObject<GlobalMarketStatus>(this.#t, 'GET /globalstocks/marketstatus', signal);
  }

  async holdings(signal?: AbortSignal): Promise<GlobalHolding[]> {
    return readList<GlobalHolding>(this.#t, 'GET /globalstocks/holdings', signal);
  }

  async fundLimit(signal?: AbortSignal): Promise<GlobalFundLimit> {
    return readObject<GlobalFundLimit>(this.#t, 'GET /globalstocks/fundlimit', signal);
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
