import { invalidArgument } from '../core/errors.js';
import { pathParam } from '../core/shape.js';
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
import { OrderEndpointGroup } from './order-calls.js';
import { checkCorrelationId, checkId, checkPrice, checkQuantity } from './order-input.js';

/** US stocks: orders (fractional and AMOUNT), trades, holdings, funds, estimates, market status. */
export class GlobalStocksApi extends OrderEndpointGroup {
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
    return this.placeOrder<GlobalOrderAck>('POST /globalstocks/orders', request, signal);
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
    return this.modifyOrder<GlobalOrderAck>(
      'PUT /globalstocks/orders/{order-id}',
      orderId,
      { legName: 'NA', ...request },
      signal,
    );
  }

  async cancel(orderId: string, signal?: AbortSignal): Promise<GlobalOrderAck> {
    return this.cancelOrder<GlobalOrderAck>('DELETE /globalstocks/orders/{order-id}', orderId, signal);
  }

  async order(orderId: string, signal?: AbortSignal): Promise<GlobalOrder> {
    return this.readObject<GlobalOrder>(
      'GET /globalstocks/orders/{order-id}',
      signal,
      `/globalstocks/orders/${pathParam(orderId, 'orderId')}`,
    );
  }

  async orders(signal?: AbortSignal): Promise<GlobalOrder[]> {
    return this.readList<GlobalOrder>('GET /globalstocks/orders', signal);
  }

  async chargeEstimate(request: GlobalEstimateRequest, signal?: AbortSignal): Promise<GlobalChargeEstimate> {
    checkEstimate(request);
    return this.sendRepeatable<GlobalChargeEstimate>('POST /globalstocks/transEstimate', request, signal);
  }

  async margin(request: GlobalEstimateRequest, signal?: AbortSignal): Promise<GlobalMarginResult> {
    checkEstimate(request);
    return this.sendRepeatable<GlobalMarginResult>('POST /globalstocks/margincalculator', request, signal);
  }

  async trades(signal?: AbortSignal): Promise<GlobalTrade[]> {
    return this.readList<GlobalTrade>('GET /globalstocks/trades', signal);
  }

  async tradesBySecurity(securityId: string, signal?: AbortSignal): Promise<GlobalTrade[]> {
    return this.readList<GlobalTrade>(
      'GET /globalstocks/trades/{security-id}',
      signal,
      `/globalstocks/trades/${pathParam(securityId, 'securityId')}`,
    );
  }

  async marketStatus(signal?: AbortSignal): Promise<GlobalMarketStatus> {
    return this.readObject<GlobalMarketStatus>('GET /globalstocks/marketstatus', signal);
  }

  async holdings(signal?: AbortSignal): Promise<GlobalHolding[]> {
    return this.readList<GlobalHolding>('GET /globalstocks/holdings', signal);
  }

  async fundLimit(signal?: AbortSignal): Promise<GlobalFundLimit> {
    return this.readObject<GlobalFundLimit>('GET /globalstocks/fundlimit', signal);
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
