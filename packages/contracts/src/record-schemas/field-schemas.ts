/**
 * JSON Schema (draft 2020-12) fragments for the value kinds of the record contracts: the feed
 * records' FieldKind (record-layout.ts) and the order update's OrderUpdateFieldKind
 * (order-update.ts). Ranges are those of what the writers emit, so a validator catches a writer
 * that drifts (an id out of int32, a time in the wrong unit) rather than only a wrong JSON type.
 */
import type { OrderUpdateFieldKind } from '../order-update.js';
import { ORDER_UPDATE_KINDS, ORDER_UPDATE_SOURCES } from '../order-update.js';
import type { FieldKind } from '../record-layout.js';

/** A JSON Schema object (the generator writes plain JSON values only). */
export type JsonSchema = { readonly [key: string]: JsonValue };
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | JsonSchema;

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;
/** The largest finite float32. */
const FLOAT32_MAX = 3.4028234663852886e38;
/** Epoch microseconds are JSON numbers: exact up to 2^53 - 1 (year 2255). */
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

const UINT8: JsonSchema = { type: 'integer', minimum: 0, maximum: 255 };

/** The value schema of a feed record field of `kind` (its description is added by the caller). */
export function feedFieldSchema(kind: FieldKind): JsonSchema {
  switch (kind) {
    case 'uint8':
      return UINT8;
    case 'uint32':
      // The codec writes the wire's int32; an unsigned writer would write the twin. Both read alike.
      return { type: 'integer', minimum: INT32_MIN, maximum: 4_294_967_295 };
    case 'int16':
      return { type: 'integer', minimum: -32_768, maximum: 32_767 };
    case 'int32':
    case 'epochSeconds':
      return { type: 'integer', minimum: INT32_MIN, maximum: INT32_MAX };
    case 'epochMicros':
      return { type: 'integer', minimum: 0, maximum: MAX_SAFE };
    case 'float32':
      return { type: ['number', 'null'], minimum: -FLOAT32_MAX, maximum: FLOAT32_MAX };
    case 'uint8Triple':
      return { type: 'array', items: UINT8, minItems: 3, maxItems: 3 };
    case 'token':
      // A word of a closed set; the record's schema narrows it to the set (an enum).
      return { type: 'string' };
    case 'countOrNull':
      return { type: ['integer', 'null'], minimum: 0, maximum: INT32_MAX };
  }
}

/** The value schema of an order-update field of `kind`. */
export function orderFieldSchema(kind: OrderUpdateFieldKind): JsonSchema {
  switch (kind) {
    case 'text':
      return { type: 'string' };
    case 'quantity':
    case 'price':
      return { type: 'number' };
    case 'epochMillisOrNull':
      return { type: ['integer', 'null'], minimum: 0, maximum: MAX_SAFE };
    case 'epochMicros':
      return { type: 'integer', minimum: 0, maximum: MAX_SAFE };
    case 'sequence':
      return { type: 'integer', minimum: 0, maximum: MAX_SAFE };
    case 'sha256Hex':
      return { type: 'string', pattern: '^[0-9a-f]{64}$' };
    case 'kind':
      return { type: 'string', enum: ORDER_UPDATE_KINDS };
    case 'source':
      return { type: 'string', enum: ORDER_UPDATE_SOURCES };
    case 'object':
      return { type: 'object' };
  }
}
