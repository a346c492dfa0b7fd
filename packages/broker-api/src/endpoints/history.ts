import type { Clock } from '../core/clock.js';
import { EndpointGroup } from '../core/endpoint-call.js';
import { invalidArgument } from '../core/errors.js';
import { mapBounded } from '../core/map-bounded.js';
import { expectData, expectObject } from '../core/shape.js';
import type { Transport } from '../core/transport.js';
import { type Candles, candlesFrom } from '../market/candles.js';
import { type ColumnSet, mergeColumns, type RawColumns } from '../market/columns.js';
import { istDate, parseWallClock, splitDateRange, yearsBefore } from '../market/date-ranges.js';
import {
  type DailyCandleRequest,
  EXPIRED_OPTIONS_FIELDS,
  type ExpiredOptionsField,
  type ExpiredOptionsRequest,
  INTRADAY_INTERVALS,
  type IntradayCandleRequest,
} from '../types/market-data.js';

/** At most 90 days of intraday candles per call (beyond-the-spec). */
export const MAX_INTRADAY_DAYS = 90;
/** At most 45 days of expired-options data per call, up to 5 years back (spec, Limits). */
export const MAX_EXPIRED_OPTIONS_DAYS = 45;
export const EXPIRED_OPTIONS_YEARS = 5;
/**
 * Split calls in flight at once. The data category paces them at 5 per second; a little overlap
 * hides each call's latency without piling up waiting calls.
 */
const SPLIT_CONCURRENCY = 3;

const STRIKE = /^ATM([+-]([1-9]|10))?$/;

/** Expired options per side: columns for the arrays requiredData asked for. */
export interface ExpiredOptions {
  ce?: ColumnSet<ExpiredOptionsField>;
  pe?: ColumnSet<ExpiredOptionsField>;
}

/** Daily and intraday candles and expired options data, split into calls the service accepts. */
export class HistoryApi extends EndpointGroup {
  readonly #clock: Clock;

  constructor(transport: Transport, clock: Clock) {
    super(transport);
    this.#clock = clock;
  }

  /** POST /charts/historical: daily candles, back to the scrip's inception; toDate is exclusive. */
  async daily(request: DailyCandleRequest, signal?: AbortSignal): Promise<Candles> {
    const route = 'POST /charts/historical';
    checkCandleRequest(request);
    const body = candleBody(request);
    const r = await this.transport.call({
      method: 'POST',
      route,
      path: '/charts/historical',
      body,
      idempotent: true,
      signal,
    });
    return candlesFrom([candleChunk(r.body, route)], route);
  }

  /**
   * POST /charts/intraday, split into calls of at most 90 days; candles overlapping a boundary
   * come back once. Interval in minutes, default 5.
   */
  async intraday(request: IntradayCandleRequest, signal?: AbortSignal): Promise<Candles> {
    const route = 'POST /charts/intraday';
    checkCandleRequest(request);
    const interval = request.interval ?? 5;
    if (!INTRADAY_INTERVALS.includes(interval)) {
      throw invalidArgument(`interval must be one of ${INTRADAY_INTERVALS.join(', ')}`);
    }
    const ranges = splitDateRange(request.fromDate, request.toDate, MAX_INTRADAY_DAYS);
    const chunks = await mapBounded(ranges, SPLIT_CONCURRENCY, async (range) => {
      const body = { ...candleBody({ ...request, ...range }), interval };
      const r = await this.transport.call({
        method: 'POST',
        route,
        path: '/charts/intraday',
        body,
        idempotent: true,
        signal,
      });
      return candleChunk(r.body, route);
    });
    return candlesFrom(chunks, route);
  }

  /**
   * POST /charts/rollingoption, split into calls of at most 45 days, no earlier than 5 years
   * before today (IST).
   */
  async expiredOptions(request: ExpiredOptionsRequest, signal?: AbortSignal): Promise<ExpiredOptions> {
    const route = 'POST /charts/rollingoption';
    checkExpiredOptions(request, this.#clock.now());
    const ranges = splitDateRange(request.fromDate, request.toDate, MAX_EXPIRED_OPTIONS_DAYS);
    const body = {
      exchangeSegment: 'NSE_FNO',
      interval: 5,
      instrument: 'OPTIDX',
      expiryFlag: 'WEEK',
      expiryCode: 1,
      drvOptionType: 'CALL',
      ...request,
    };
    const answers = await mapBounded(ranges, SPLIT_CONCURRENCY, async (range) => {
      const r = await this.transport.call({
        method: 'POST',
        route,
        path: '/charts/rollingoption',
        body: { ...body, ...range },
        idempotent: true,
        signal,
      });
      return expectObject<Record<string, unknown>>(expectData(r.body, route), route);
    });
    const out: ExpiredOptions = {};
    for (const side of ['ce', 'pe'] as const) {
      const chunks = answers
        .map((a) => a[side])
        .filter((c): c is RawColumns => typeof c === 'object' && c !== null && !Array.isArray(c));
      if (chunks.length > 0) out[side] = mergeColumns(chunks, [], request.requiredData, route);
    }
    return out;
  }
}

function checkCandleRequest(request: DailyCandleRequest): void {
  if (typeof request.securityId !== 'string' || request.securityId.length === 0) {
    throw invalidArgument('securityId must be a non-empty string');
  }
  const from = parseWallClock(request.fromDate, 'fromDate');
  const to = parseWallClock(request.toDate, 'toDate');
  if (to.ms <= from.ms) throw invalidArgument('toDate must be after fromDate');
}

function candleBody(request: DailyCandleRequest): Record<string, unknown> {
  const { oi, ...rest } = request;
  // The spec types oi as the text "true"/"false".
  return oi === undefined ? { ...rest } : { ...rest, oi: oi ? 'true' : 'false' };
}

/** Candle answers are bare parallel arrays; tolerate a `{ data: {...} }` envelope as well. */
function candleChunk(body: unknown, route: string): RawColumns {
  if (body === undefined) return {};
  const record = expectObject<Record<string, unknown>>(body, route);
  const data = record.data;
  if (!Array.isArray(record.timestamp) && typeof data === 'object' && data !== null && !Array.isArray(data)) {
    return data as RawColumns;
  }
  return record;
}

function checkExpiredOptions(request: ExpiredOptionsRequest, nowMs: number): void {
  if (typeof request.securityId !== 'string' || request.securityId.length === 0) {
    throw invalidArgument('securityId must be a non-empty string');
  }
  if (typeof request.strike !== 'string' || !STRIKE.test(request.strike)) {
    throw invalidArgument('strike must be ATM or ATM+n / ATM-n with n from 1 to 10');
  }
  if (request.interval !== undefined && !INTRADAY_INTERVALS.includes(request.interval)) {
    throw invalidArgument(`interval must be one of ${INTRADAY_INTERVALS.join(', ')}`);
  }
  if (
    request.drvOptionType !== undefined &&
    request.drvOptionType !== 'CALL' &&
    request.drvOptionType !== 'PUT'
  ) {
    throw invalidArgument('drvOptionType must be CALL or PUT');
  }
  if (
    !Array.isArray(request.requiredData) ||
    request.requiredData.length === 0 ||
    request.requiredData.some((f) => !EXPIRED_OPTIONS_FIELDS.includes(f))
  ) {
    throw invalidArgument(`requiredData must list some of ${EXPIRED_OPTIONS_FIELDS.join(', ')}`);
  }
  const from = parseWallClock(request.fromDate, 'fromDate');
  const earliest = yearsBefore(istDate(nowMs), EXPIRED_OPTIONS_YEARS);
  if (request.fromDate.slice(0, 10) < earliest) {
    throw invalidArgument(`expired options data reaches back ${EXPIRED_OPTIONS_YEARS} years, to ${earliest}`);
  }
  if (parseWallClock(request.toDate, 'toDate').ms <= from.ms)
    throw invalidArgument('toDate must be after fromDate');
}
