/**
 * The instruments the quote poller polls, from a JSON file: the snapshot body's own shape
 * (`{ "NSE_EQ": [2885, ...], "NSE_FNO": [...] }`) or a list of `{ securityId, segment }`. Split
 * into requests of at most 1,000 instruments (the service's limit per snapshot request).
 */
import { readFileSync } from 'node:fs';
import {
  SNAPSHOT_SEGMENTS,
  type SnapshotRequest,
  type SnapshotSegment,
  splitSnapshotRequest,
} from '@feedpipe/broker-api';
import { LoaderError } from '../errors.js';

/** More than any account would poll (5,000 instruments take 5 s a round at 1 request/s). */
export const MAX_QUOTE_INSTRUMENTS = 100_000;

function invalid(message: string): LoaderError {
  return new LoaderError('CONFIG_INVALID', `quote instruments: ${message}`);
}

export function quoteRequest(value: unknown): SnapshotRequest {
  const bySegment = new Map<SnapshotSegment, Set<number>>();
  const add = (segment: unknown, id: unknown, where: string): void => {
    if (!SNAPSHOT_SEGMENTS.includes(segment as SnapshotSegment))
      throw invalid(`${where}: segment must be one of ${SNAPSHOT_SEGMENTS.join(', ')}`);
    const n = Number(id);
    if (!Number.isInteger(n) || n < 1 || n > 4_294_967_295)
      throw invalid(`${where}: ${String(id).slice(0, 20)} is not a security id`);
    const set = bySegment.get(segment as SnapshotSegment) ?? new Set<number>();
    bySegment.set(segment as SnapshotSegment, set);
    set.add(n);
  };
  if (Array.isArray(value)) {
    for (const [i, row] of value.entries()) {
      const r = (row ?? {}) as { securityId?: unknown; segment?: unknown; exchangeSegment?: unknown };
      add(r.segment ?? r.exchangeSegment, r.securityId, `entry ${i}`);
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [segment, ids] of Object.entries(value)) {
      if (!Array.isArray(ids)) throw invalid(`${segment} must be an array of security ids`);
      for (const [i, id] of ids.entries()) add(segment, id, `${segment}[${i}]`);
    }
  } else {
    throw invalid('expected { "<segment>": [ids] } or [{ securityId, segment }]');
  }
  const request: SnapshotRequest = {};
  let total = 0;
  for (const [segment, ids] of bySegment) {
    request[segment] = [...ids];
    total += ids.size;
  }
  if (total === 0) throw invalid('no instruments');
  if (total > MAX_QUOTE_INSTRUMENTS) throw invalid(`more than ${MAX_QUOTE_INSTRUMENTS} instruments`);
  return request;
}

export function readQuoteInstruments(path: string): SnapshotRequest {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw invalid(
      `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  try {
    return quoteRequest(JSON.parse(text));
  } catch (error) {
    if (error instanceof LoaderError) throw error;
    throw invalid(`${path} is not JSON (${(error as Error).message})`);
  }
}

/** The requests of one round over every instrument: at most 1,000 instruments each. */
export function quoteBatches(request: SnapshotRequest): SnapshotRequest[] {
  return splitSnapshotRequest(request);
}
