/**
 * A decoded row's JSON text written straight into bytes: the same text as ColumnarBatch.jsonAt(row,
 * { receivedAt }) (a trade's with its quantity after it), without building a string. This is the ingestor's per-packet serialisation; as a
 * string it cost ~1.4 µs a row (template strings, the float search), which capped a worker thread
 * near 700k rows/s before any Kafka framing. The text is ASCII (fixed keys, numbers), so one
 * character is one byte.
 */
import {
  FEED_VALUE_FIELDS,
  type FeedRecordType,
  type FieldKind,
  jsonLiterals,
  RECORD_TYPES,
} from '@feedpipe/contracts';
import type { ColumnarBatch } from '../decode/columnar-batch.js';
import { CodecError } from '../errors.js';
import { CODE_BY_RECORD_TYPE } from '../wire/record-types.js';
import { formatFloat32 } from './float32.js';

/**
 * Bytes one row's JSON can take, with margin: the longest shape is a trade or OHLC row with every
 * number at its longest (15-character floats, 11-character integers, a 16-digit receive time).
 */
export const MAX_ROW_JSON_BYTES = 320;

const ascii = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));

/**
 * Where a batch row holds each field of the contract's layouts: payload word n (columnar-batch.ts
 * lists them by message code), or one of the row's own columns. The field order and names come from
 * @feedpipe/contracts; only this placement is the codec's.
 */
const PAYLOAD_WORD: { readonly [T in FeedRecordType]: Readonly<Record<string, number>> } = {
  trade: { ltp: 0, volume: 1, ltt: 2, lut: 3 },
  ohlc: { open: 0, close: 1, high: 2, low: 3 },
  prev_close: { prevClose: 0 },
  circuit_limit: { upper: 0, lower: 1 },
  week52: { high: 0, low: 1 },
  market_status: { marketType: 0, status: 1 },
  error: { code: 0 },
};

// What writing one field takes; plain numbers, so the row loop switches on small integers.
const OP_SEGMENT = 0;
const OP_SECURITY_ID = 1;
const OP_RECEIVED_AT = 2;
const OP_INT = 3;
const OP_FLOAT = 4;
/** Three bytes packed in a word, written `[a,b,c]` (market_status's marketType). */
const OP_BYTE_TRIPLE = 5;
/** The trade's traded quantity, given by the caller (the row does not hold it). */
const OP_QUANTITY = 6;

/**
 * How to write one record type's value: for field i, the literal bytes [litEnds[i-1], litEnds[i]) of
 * `literals` (from 0 for i = 0), then the field by op[i] from payload word words[i]; then the closing
 * literal. One byte array and two int arrays per type: the row loop reads no nested objects.
 */
interface RowPlan {
  readonly literals: Uint8Array;
  readonly litEnds: Int32Array;
  readonly ops: Int32Array;
  readonly words: Int32Array;
}

function opOf(type: FeedRecordType, name: string, kind: FieldKind): [op: number, word: number] {
  if (name === 'segment') return [OP_SEGMENT, 0];
  if (name === 'securityId') return [OP_SECURITY_ID, 0];
  if (name === 'receivedAt') return [OP_RECEIVED_AT, 0];
  if (name === 'quantity') return [OP_QUANTITY, 0];
  const word = Object.hasOwn(PAYLOAD_WORD[type], name) ? PAYLOAD_WORD[type][name] : undefined;
  if (word === undefined) {
    // Raised at module load: a contract field the batch does not hold is a build error, not a row error.
    throw new CodecError('INVALID_RECORD', `the batch holds no field ${type}.${name} of the record contract`);
  }
  if (kind === 'float32') return [OP_FLOAT, word];
  if (kind === 'uint8Triple') return [OP_BYTE_TRIPLE, word];
  return [OP_INT, word];
}

function planOf(type: FeedRecordType): RowPlan {
  const fields = FEED_VALUE_FIELDS[type];
  const ops = new Int32Array(fields.length);
  const words = new Int32Array(fields.length);
  fields.forEach((f, i) => {
    [ops[i], words[i]] = opOf(type, f.name, f.kind);
  });
  const texts = jsonLiterals(type, fields);
  const litEnds = new Int32Array(texts.length);
  let end = 0;
  texts.forEach((t, i) => {
    end += t.length;
    litEnds[i] = end;
  });
  return { literals: ascii(texts.join('')), litEnds, ops, words };
}

/**
 * Plans by message code, built once at load. Rows of a code the contract does not name are written
 * as `error` records, as jsonAt does.
 */
const PLAN_BY_CODE: readonly RowPlan[] = (() => {
  const fallback = planOf('error');
  const plans = new Array<RowPlan>(256).fill(fallback);
  for (const type of RECORD_TYPES) plans[CODE_BY_RECORD_TYPE[type]] = planOf(type);
  return plans;
})();

const COMMA = 44;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const MINUS = 45;
const ZERO = 48;

/**
 * Float texts by bit pattern, direct-mapped: prices repeat (ticks move around a level), and
 * formatFloat32's search is the dearest part of a row. A slot holds the text's bytes (at most
 * SLOT_BYTES; longer texts are not cached), so a hit is a compare and a short byte copy; a colliding
 * pattern simply replaces the slot.
 */
const CACHE_SLOTS = 1 << 16;
const SLOT_BYTES = 16;
const cachedBits = new Int32Array(CACHE_SLOTS);
const cachedLength = new Uint8Array(CACHE_SLOTS);
const cachedText = new Uint8Array(CACHE_SLOTS * SLOT_BYTES);
const bitsWord = new Int32Array(1);
const floatWord = new Float32Array(bitsWord.buffer);

/** An integer (|n| < 2^53) in decimal. */
function putInt(out: Uint8Array, at: number, value: number): number {
  let n = value;
  if (n < 0) {
    out[at++] = MINUS;
    n = -n;
  }
  let digits = 1;
  for (let limit = 10; limit <= n; limit *= 10) digits++;
  const end = at + digits;
  for (let i = end - 1; i >= at; i--) {
    const quotient = Math.floor(n / 10);
    out[i] = ZERO + (n - quotient * 10);
    n = quotient;
  }
  return end;
}

/** The float32 whose bit pattern is `bits` (a payload word read as an integer). */
function putFloat(out: Uint8Array, at: number, bits: number): number {
  const slot = (bits ^ (bits >>> 15)) & (CACHE_SLOTS - 1);
  let length = cachedLength[slot] as number;
  if (length === 0 || cachedBits[slot] !== bits) {
    bitsWord[0] = bits;
    const text = formatFloat32(floatWord[0] as number);
    length = text.length;
    // Texts longer than a slot (fixed notation of magnitudes near 1e20 takes up to 22 characters)
    // are written as they are: caching them would run into the next slot.
    if (length > SLOT_BYTES) {
      for (let i = 0; i < length; i++) out[at + i] = text.charCodeAt(i);
      return at + length;
    }
    for (let i = 0; i < length; i++) cachedText[slot * SLOT_BYTES + i] = text.charCodeAt(i);
    cachedBits[slot] = bits;
    cachedLength[slot] = length;
  }
  const from = slot * SLOT_BYTES;
  for (let i = 0; i < length; i++) out[at + i] = cachedText[from + i] as number;
  return at + length;
}

const NULL = ascii('null');

/**
 * Writes row `row` of `batch` as JSON (jsonAt's text with a trailing "receivedAt", and for a trade
 * its "quantity" after it: `quantity`, or null when that is below 0 or NaN, unknown; in the
 * contract's layout) into `out` at `at` and returns the end offset. The caller guarantees
 * MAX_ROW_JSON_BYTES of room; `row` is not checked against the batch (hot path), like the batch's
 * other accessors.
 */
export function writeRowJson(
  batch: ColumnarBatch,
  row: number,
  out: Uint8Array,
  at: number,
  receivedAtMicros: number,
  quantity = Number.NaN,
): number {
  const plan = PLAN_BY_CODE[batch.codeAt(row)] as RowPlan;
  const literals = plan.literals;
  const litEnds = plan.litEnds;
  const ops = plan.ops;
  const words = plan.words;
  const fields = ops.length;
  let p = at;
  let lit = 0;
  for (let i = 0; i < fields; i++) {
    const litEnd = litEnds[i] as number;
    while (lit < litEnd) out[p++] = literals[lit++] as number;
    switch (ops[i]) {
      case OP_FLOAT:
        p = putFloat(out, p, batch.intAt(row, words[i] as number));
        break;
      case OP_INT:
        p = putInt(out, p, batch.intAt(row, words[i] as number));
        break;
      case OP_SEGMENT:
        p = putInt(out, p, batch.segmentAt(row));
        break;
      case OP_SECURITY_ID:
        p = putInt(out, p, batch.securityIdAt(row));
        break;
      case OP_BYTE_TRIPLE: {
        const packed = batch.intAt(row, words[i] as number);
        out[p++] = OPEN_BRACKET;
        p = putInt(out, p, packed & 0xff);
        out[p++] = COMMA;
        p = putInt(out, p, (packed >>> 8) & 0xff);
        out[p++] = COMMA;
        p = putInt(out, p, (packed >>> 16) & 0xff);
        out[p++] = CLOSE_BRACKET;
        break;
      }
      case OP_QUANTITY:
        if (quantity >= 0) p = putInt(out, p, quantity);
        else for (let i = 0; i < NULL.length; i++) out[p++] = NULL[i] as number;
        break;
      default:
        p = putInt(out, p, receivedAtMicros);
    }
  }
  while (lit < literals.length) out[p++] = literals[lit++] as number;
  return p;
}
