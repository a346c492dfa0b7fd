import { EndpointGroup } from '../core/endpoint-call.js';
import { invalidArgument } from '../core/errors.js';
import { checkDate, expectArray, pathParam } from '../core/shape.js';
import type { Trade, TradeHistoryRecord } from '../types/portfolio.js';
import { normalizeOrder } from './orders.js';

/** Bound on pages walked by `historyAll`; the page size is "not shown", so stop somewhere. */
const MAX_HISTORY_PAGES = 1000;

/** The trade book, trades of one order, and trade history by date range. */
export class TradesApi extends EndpointGroup {
  async today(signal?: AbortSignal): Promise<Trade[]> {
    const route = 'GET /trades';
    const r = await this.transport.call({ method: 'GET', route, path: '/trades', idempotent: true, signal });
    return expectArray<Trade>(r.body, route);
  }

  /** GET /trades/{order-id}; the record names its id `order-id`, copied to `orderId`. */
  async byOrder(orderId: string, signal?: AbortSignal): Promise<Trade[]> {
    const route = 'GET /trades/{order-id}';
    const r = await this.transport.call({
      method: 'GET',
      route,
      path: `/trades/${pathParam(orderId, 'orderId')}`,
      idempotent: true,
      signal,
    });
    return expectArray<Record<string, unknown>>(r.body, route).map(
      (t) => normalizeOrder(t) as unknown as Trade,
    );
  }

  /** One page (0-based) of GET /trades/{from-date}/{to-date}/{page-number}. */
  async history(
    fromDate: string,
    toDate: string,
    page = 0,
    signal?: AbortSignal,
  ): Promise<TradeHistoryRecord[]> {
    checkDate(fromDate, 'fromDate');
    checkDate(toDate, 'toDate');
    if (!Number.isInteger(page) || page < 0) throw invalidArgument('page must be an integer >= 0');
    return this.readList<TradeHistoryRecord>(
      'GET /trades/{from-date}/{to-date}/{page-number}',
      signal,
      `/trades/${fromDate}/${toDate}/${page}`,
    );
  }

  /** Walks pages from 0 until an empty page (at most 1000 pages). */
  async *historyPages(
    fromDate: string,
    toDate: string,
    signal?: AbortSignal,
  ): AsyncGenerator<TradeHistoryRecord[]> {
    for (let page = 0; page < MAX_HISTORY_PAGES; page++) {
      const records = await this.history(fromDate, toDate, page, signal);
      if (records.length === 0) return;
      yield records;
    }
  }
}
