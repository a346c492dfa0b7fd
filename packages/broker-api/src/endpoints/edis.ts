import { EndpointGroup } from '../core/endpoint-call.js';
import { invalidArgument } from '../core/errors.js';
import { checkDate, expectObject, pathParam } from '../core/shape.js';
import type {
  EdisFormRequest,
  EdisFormResult,
  EdisInquiry,
  EdisSingleFormRequest,
  LedgerEntry,
  TpinResult,
} from '../types/edis.js';

/** eDIS (authorising holdings for sale) and the ledger. */
export class EdisApi extends EndpointGroup {
  /** GET /edis/tpin: sends a T-PIN to the registered mobile number (202). */
  async requestTpin(signal?: AbortSignal): Promise<TpinResult> {
    const route = 'GET /edis/tpin';
    const r = await this.transport.call({
      method: 'GET',
      route,
      path: '/edis/tpin',
      idempotent: false,
      signal,
    });
    return expectObject<TpinResult>(r.body ?? {}, route);
  }

  async bulkForm(request: EdisFormRequest, signal?: AbortSignal): Promise<EdisFormResult> {
    if (!Array.isArray(request.isin) || request.isin.length === 0) {
      throw invalidArgument('isin must list at least one ISIN');
    }
    return this.sendRepeatable<EdisFormResult>('POST /edis/bulkform', request, signal);
  }

  /**
   * POST /edis/from (the spec's spelling; the simulator also serves `/edis/form`): the escaped
   * depository form for one ISIN, where the user enters the T-PIN.
   */
  async singleForm(request: EdisSingleFormRequest, signal?: AbortSignal): Promise<EdisFormResult> {
    if (typeof request.isin !== 'string' || request.isin.trim() === '') {
      throw invalidArgument('isin must be one ISIN');
    }
    if (request.qty !== undefined && !(Number.isInteger(request.qty) && request.qty > 0)) {
      throw invalidArgument('qty must be a positive integer');
    }
    return this.sendRepeatable<EdisFormResult>('POST /edis/from', { segment: 'EQ', ...request }, signal);
  }

  /** GET /edis/inquire/{isin}; `ALL` returns every holding, so the answer is always a list. */
  async inquire(isin: string, signal?: AbortSignal): Promise<EdisInquiry[]> {
    const route = 'GET /edis/inquire/{isin}';
    const r = await this.transport.call({
      method: 'GET',
      route,
      path: `/edis/inquire/${pathParam(isin, 'isin')}`,
      idempotent: true,
      signal,
    });
    if (Array.isArray(r.body)) return r.body as EdisInquiry[];
    return [expectObject<EdisInquiry>(r.body, route)];
  }

  /** GET /ledger?from-date=&to-date= (both optional, YYYY-MM-DD). */
  async ledger(fromDate?: string, toDate?: string, signal?: AbortSignal): Promise<LedgerEntry[]> {
    if (fromDate !== undefined) checkDate(fromDate, 'fromDate');
    if (toDate !== undefined) checkDate(toDate, 'toDate');
    return this.callList<LedgerEntry>('GET /ledger', {
      query: { 'from-date': fromDate, 'to-date': toDate },
      idempotent: true,
      signal,
    });
  }
}
