import { CodecError } from '../errors.js';
import type { FeedRecord } from '../records.js';
import { isRecordType } from '../wire/record-types.js';

/**
 * The inverse of recordToJson after JSON.parse: checks a parsed object against the stable record
 * shape and returns a fresh record. Float fields accept a number or null (recordToJson's spelling of
 * a non-finite float32, read back as NaN) and are rounded to float32, so they equal what the decoder
 * gives for the same packet; integer fields must be integers. Keys beyond the record's
 * own (receivedAt and similar extras) are ignored. Throws CodecError('INVALID_RECORD').
 */
export function recordFromJson(value: unknown): FeedRecord {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    fail('a record must be a JSON object');
  const o = value as Record<string, unknown>;
  const type = o.type;
  if (!isRecordType(type)) fail(`unknown record type ${preview(type)}`);
  const segment = integer(o, 'segment');
  const securityId = integer(o, 'securityId');
  switch (type) {
    case 'trade':
      return {
        type,
        segment,
        securityId,
        ltp: float(o, 'ltp'),
        volume: integer(o, 'volume'),
        ltt: integer(o, 'ltt'),
        lut: integer(o, 'lut'),
      };
    case 'ohlc':
      return {
        type,
        segment,
        securityId,
        open: float(o, 'open'),
        close: float(o, 'close'),
        high: float(o, 'high'),
        low: float(o, 'low'),
      };
    case 'prev_close':
      return { type, segment, securityId, prevClose: float(o, 'prevClose') };
    case 'circuit_limit':
      return { type, segment, securityId, upper: float(o, 'upper'), lower: float(o, 'lower') };
    case 'week52':
      return { type, segment, securityId, high: float(o, 'high'), low: float(o, 'low') };
    case 'market_status': {
      const marketType = o.marketType;
      if (!Array.isArray(marketType) || marketType.length !== 3 || !marketType.every(Number.isInteger)) {
        fail('marketType must be an array of 3 integers');
      }
      const [a, b, c] = marketType as [number, number, number];
      return { type, segment, securityId, marketType: [a, b, c], status: integer(o, 'status') };
    }
    case 'error':
      return { type, segment, securityId, code: integer(o, 'code') };
  }
}

function integer(o: Record<string, unknown>, key: string): number {
  const value = o[key];
  if (typeof value !== 'number' || !Number.isInteger(value))
    fail(`${key} must be an integer, got ${preview(value)}`);
  return value;
}

function float(o: Record<string, unknown>, key: string): number {
  const value = o[key];
  if (value === null) return Number.NaN;
  if (typeof value !== 'number') fail(`${key} must be a number or null, got ${preview(value)}`);
  return Math.fround(value);
}

function fail(message: string): never {
  throw new CodecError('INVALID_RECORD', message);
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
}
