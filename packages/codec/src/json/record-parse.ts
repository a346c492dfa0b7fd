import { type FeedRecord, RECORD_LAYOUTS } from '@feedpipe/contracts';
import { CodecError } from '../errors.js';
import { isRecordType } from '../wire/record-types.js';

/**
 * The inverse of recordToJson after JSON.parse: checks a parsed object against the canonical record
 * layout (@feedpipe/contracts) and returns a fresh record. Float fields accept a number or null
 * (recordToJson's spelling of a non-finite float32, read back as NaN) and are rounded to float32, so
 * they equal what the decoder gives for the same packet; integer fields must be integers. Keys
 * beyond the record's own (receivedAt and similar extras) are ignored. Throws CodecError('INVALID_RECORD').
 */
export function recordFromJson(value: unknown): FeedRecord {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    fail('a record must be a JSON object');
  const o = value as Record<string, unknown>;
  const type = o.type;
  if (!isRecordType(type)) fail(`unknown record type ${preview(type)}`);
  const record: Record<string, unknown> = { type };
  for (const field of RECORD_LAYOUTS[type].fields) {
    if (field.kind === 'float32') record[field.name] = float(o, field.name);
    else if (field.kind === 'uint8Triple') record[field.name] = triple(o, field.name);
    else record[field.name] = integer(o, field.name);
  }
  return record as unknown as FeedRecord;
}

function triple(o: Record<string, unknown>, key: string): [number, number, number] {
  const value = o[key];
  if (!Array.isArray(value) || value.length !== 3 || !value.every(Number.isInteger)) {
    fail(`${key} must be an array of 3 integers`);
  }
  const [a, b, c] = value as [number, number, number];
  return [a, b, c];
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
