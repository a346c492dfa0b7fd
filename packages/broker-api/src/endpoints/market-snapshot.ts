import { EndpointGroup } from '../core/endpoint-call.js';
import { invalidArgument } from '../core/errors.js';
import { expectData, expectObject } from '../core/shape.js';
import {
  type FullQuote,
  type LtpQuote,
  type OhlcQuote,
  SNAPSHOT_SEGMENTS,
  type SnapshotData,
  type SnapshotRequest,
  type SnapshotSegment,
} from '../types/market-data.js';

/** Instruments per snapshot request (spec, Limits). */
export const MAX_SNAPSHOT_INSTRUMENTS = 1000;

/**
 * Market snapshots: ltp, ohlc and full quote. Requests above 1,000 instruments are split into
 * several calls, each paced by the quote category (1 per second), and the answers merged.
 */
export class MarketSnapshotApi extends EndpointGroup {
  ltp(request: SnapshotRequest, signal?: AbortSignal): Promise<SnapshotData<LtpQuote>> {
    return this.#snapshot<LtpQuote>('ltp', request, signal);
  }

  ohlc(request: SnapshotRequest, signal?: AbortSignal): Promise<SnapshotData<OhlcQuote>> {
    return this.#snapshot<OhlcQuote>('ohlc', request, signal);
  }

  quote(request: SnapshotRequest, signal?: AbortSignal): Promise<SnapshotData<FullQuote>> {
    return this.#snapshot<FullQuote>('quote', request, signal);
  }

  async #snapshot<T>(kind: string, request: SnapshotRequest, signal?: AbortSignal): Promise<SnapshotData<T>> {
    const route = `POST /marketfeed/${kind}`;
    const out: SnapshotData<T> = {};
    // Sequential on purpose: the quote category allows one call per second anyway, and a failure
    // stops the rest instead of leaving calls in flight.
    for (const body of splitSnapshotRequest(request)) {
      const r = await this.transport.call({
        method: 'POST',
        route,
        path: `/marketfeed/${kind}`,
        body,
        idempotent: true,
        withClientIdHeader: true,
        signal,
      });
      const data = expectObject<Record<string, unknown>>(expectData(r.body, route), route);
      for (const [segment, byId] of Object.entries(data)) {
        const key = segment as SnapshotSegment;
        out[key] = Object.assign(out[key] ?? {}, expectObject<Record<string, T>>(byId, route));
      }
    }
    return out;
  }
}

/** Splits a snapshot request into bodies of at most 1,000 instruments, in request order. */
export function splitSnapshotRequest(
  request: SnapshotRequest,
  max = MAX_SNAPSHOT_INSTRUMENTS,
): SnapshotRequest[] {
  const pairs: [SnapshotSegment, number][] = [];
  for (const [segment, ids] of Object.entries(request)) {
    if (!SNAPSHOT_SEGMENTS.includes(segment as SnapshotSegment)) {
      throw invalidArgument(
        `snapshot segment must be one of ${SNAPSHOT_SEGMENTS.join(', ')}, not "${segment}"`,
      );
    }
    if (!Array.isArray(ids)) throw invalidArgument(`${segment} must be an array of security ids`);
    for (const id of ids) {
      if (!Number.isInteger(id) || id <= 0) throw invalidArgument(`${segment} holds an invalid security id`);
      pairs.push([segment as SnapshotSegment, id]);
    }
  }
  if (pairs.length === 0) throw invalidArgument('a snapshot request needs at least one instrument');
  const bodies: SnapshotRequest[] = [];
  for (let i = 0; i < pairs.length; i += max) {
    const body: Partial<Record<SnapshotSegment, number[]>> = {};
    for (const [segment, id] of pairs.slice(i, i + max)) {
      const ids = body[segment] ?? [];
      ids.push(id);
      body[segment] = ids;
    }
    bodies.push(body);
  }
  return bodies;
}
