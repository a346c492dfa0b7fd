/** Time inputs of the analytics routes: instants, intervals and windows, each checked by name. */

import { parseIsoInstant } from '@feedpipe/service-http';
import { badRequest } from '../errors.js';

const DURATION = /^([1-9][0-9]{0,6})(s|m|h|d)$/;
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

export const TIME_SCHEMA = {
  type: 'string',
  minLength: 1,
  maxLength: 40,
  description:
    'ISO 8601 instant with Z or an offset (2024-03-04T09:15:00Z), a date (2024-03-04, midnight UTC) or epoch milliseconds',
} as const;

export const DURATION_SCHEMA = {
  type: 'string',
  pattern: DURATION.source,
  description: 'a number and a unit: s, m, h or d (e.g. 1s, 5m, 1h, 1d)',
} as const;

/** The `from` and `to` of a range route, and a bar length, as their query-string schemas. */
export const RANGE_FROM_SCHEMA = {
  ...TIME_SCHEMA,
  description: `start of the range (inclusive): ${TIME_SCHEMA.description}`,
} as const;
export const RANGE_TO_SCHEMA = {
  ...TIME_SCHEMA,
  description: `end of the range (exclusive), default now: ${TIME_SCHEMA.description}`,
} as const;

/**
 * The query-string schema of a range route: `from` (required) and `to`, then the route's own keys;
 * no other key is accepted.
 */
export function rangeQuerystring<P extends object>(properties: P) {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['from'],
    properties: { from: RANGE_FROM_SCHEMA, to: RANGE_TO_SCHEMA, ...properties },
  } as const;
}

export const BAR_INTERVAL_SCHEMA = {
  ...DURATION_SCHEMA,
  default: '1m',
  description: `bar length: ${DURATION_SCHEMA.description}, 1s to 1d`,
} as const;

/** Epoch milliseconds of an instant given as ISO 8601, a date, or epoch milliseconds. */
export function parseInstant(field: string, value: string): number {
  // Not Date.parse: it rolls 2026-02-30 over to March and reads `2026-11-22 09:00` in local time.
  const ms = /^[0-9]{1,15}$/.test(value) ? Number(value) : (parseIsoInstant(value) ?? Number.NaN);
  if (!Number.isFinite(ms)) badInstant(field, value);
  if (ms < 0 || ms > 253_402_300_799_000) throw badRequest(field, 'must be between 1970 and 9999');
  return ms;
}

function badInstant(field: string, _value: string): never {
  throw badRequest(
    field,
    'must be an ISO 8601 instant with Z or an offset, a real YYYY-MM-DD date or epoch milliseconds',
  );
}

export function parseDurationSec(field: string, value: string, minSec: number, maxSec: number): number {
  const match = DURATION.exec(value);
  if (!match) throw badRequest(field, 'must be a number and a unit s, m, h or d (e.g. 1m)');
  const seconds = Number(match[1]) * (UNIT_SECONDS[match[2] as string] as number);
  if (seconds < minSec || seconds > maxSec) {
    throw badRequest(field, `must be from ${minSec} s to ${maxSec} s`);
  }
  return seconds;
}

export interface TimeRange {
  fromMs: number;
  toMs: number;
}

/** `from` required, `to` defaults to now; `from` must be before `to`. */
export function parseRange(from: string, to: string | undefined, now: number): TimeRange {
  const fromMs = parseInstant('from', from);
  const toMs = to === undefined ? now : parseInstant('to', to);
  if (fromMs >= toMs) throw badRequest('to', 'must be after from');
  return { fromMs, toMs };
}
