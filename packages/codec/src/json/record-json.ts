import {
  type FeedRecord,
  type FeedRecordType,
  jsonLiterals,
  RECORD_FIELD_NAMES,
  RECORD_LAYOUTS,
  RECORD_TYPES,
} from '@feedpipe/contracts';
import { CodecError } from '../errors.js';
import { formatFloat32 } from './float32.js';

/** The literals around each type's fields (@feedpipe/contracts' canonical layout), built once. */
const LITERALS = Object.fromEntries(RECORD_TYPES.map((type) => [type, jsonLiterals(type)])) as Record<
  FeedRecordType,
  readonly string[]
>;

/**
 * One record as JSON text in the canonical layout of @feedpipe/contracts: `type`, then the type's
 * fields in the contract's order, float32 fields through formatFloat32 (non-finite floats as null).
 * Extra fields (e.g. receivedAt) are appended in their own order; one named like a record field is
 * refused with CodecError('INVALID_RECORD').
 * Built by concatenation because JSON.stringify would print float32 values with float64 digits.
 */
export function recordToJson(
  record: FeedRecord,
  extra?: Readonly<Record<string, number | string | null>>,
): string {
  const fields = RECORD_LAYOUTS[record.type].fields;
  const literals = LITERALS[record.type];
  const values = record as unknown as Readonly<Record<string, number | readonly number[]>>;
  let text = '';
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as (typeof fields)[number];
    const value = values[field.name];
    text += literals[i];
    if (field.kind === 'float32') text += formatFloat32(value as number);
    else if (field.kind === 'uint8Triple') {
      const [a, b, c] = value as readonly number[];
      text += `[${int(a)},${int(b)},${int(c)}]`;
    } else text += int(value as number);
  }
  return extra === undefined ? `${text}}` : `${text}${extraFields(extra)}}`;
}

export function extraFields(extra: Readonly<Record<string, number | string | null>>): string {
  let text = '';
  for (const key of Object.keys(extra)) {
    if (RECORD_FIELD_NAMES.has(key)) {
      throw new CodecError(
        'INVALID_RECORD',
        `extra field ${JSON.stringify(key)} would duplicate a record field`,
      );
    }
    const value = extra[key];
    const json =
      typeof value === 'number' ? (Number.isFinite(value) ? String(value) : 'null') : JSON.stringify(value);
    text += `,${JSON.stringify(key)}:${json}`;
  }
  return text;
}

/** Integer fields come from the wire as int32/uint8, so String() is exact; guards against NaN only. */
function int(value: number | undefined): string {
  return value !== undefined && Number.isFinite(value) ? String(value) : 'null';
}
