import { EndpointGroup } from '../core/endpoint-call.js';
import { invalidArgument } from '../core/errors.js';
import { checkDate, expectData, expectObject, invalidResponse } from '../core/shape.js';
import type {
  ExpiryListRequest,
  OptionChain,
  OptionChainRequest,
  OptionChainSide,
} from '../types/market-data.js';

export interface OptionChainRow {
  strike: number;
  ce?: OptionChainSide;
  pe?: OptionChainSide;
}

/**
 * Option chain and expiry list. Both are data-category calls and send the `client-id` header; the
 * option chain is also paced to one identical request per 3 seconds.
 */
export class OptionChainApi extends EndpointGroup {
  async chain(request: OptionChainRequest, signal?: AbortSignal): Promise<OptionChain> {
    const route = 'POST /optionchain';
    checkUnderlying(request);
    checkDate(request.Expiry, 'Expiry');
    const r = await this.transport.call({
      method: 'POST',
      route,
      path: '/optionchain',
      body: request,
      idempotent: true,
      withClientIdHeader: true,
      paceKey: `${request.UnderlyingScrip}|${request.UnderlyingSeg}|${request.Expiry}`,
      signal,
    });
    const data = expectObject<OptionChain>(expectData(r.body, route), route);
    if (typeof data.last_price !== 'number' || typeof data.oc !== 'object' || data.oc === null) {
      throw invalidResponse(route, 'an option chain with last_price and oc');
    }
    return data;
  }

  async expiries(request: ExpiryListRequest, signal?: AbortSignal): Promise<string[]> {
    const route = 'POST /optionchain/expirylist';
    checkUnderlying(request);
    const r = await this.transport.call({
      method: 'POST',
      route,
      path: '/optionchain/expirylist',
      body: request,
      idempotent: true,
      withClientIdHeader: true,
      signal,
    });
    const data = expectData(r.body, route);
    if (!Array.isArray(data) || data.some((d) => typeof d !== 'string')) {
      throw invalidResponse(route, 'a list of dates');
    }
    return data as string[];
  }
}

/** The chain's strikes in ascending order, keys ("25650.000000") read as numbers. */
export function optionChainRows(chain: OptionChain): OptionChainRow[] {
  return Object.entries(chain.oc)
    .map(([key, sides]) => ({ strike: Number(key), ...sides }))
    .sort((a, b) => a.strike - b.strike);
}

function checkUnderlying(request: ExpiryListRequest): void {
  if (!Number.isInteger(request.UnderlyingScrip) || request.UnderlyingScrip <= 0) {
    throw invalidArgument('UnderlyingScrip must be a positive integer');
  }
  if (typeof request.UnderlyingSeg !== 'string' || request.UnderlyingSeg.length === 0) {
    throw invalidArgument('UnderlyingSeg must be a non-empty string');
  }
}
