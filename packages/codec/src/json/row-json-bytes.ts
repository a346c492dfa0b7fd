/**
 * A decoded row's JSON text written straight into bytes: the same text as ColumnarBatch.jsonAt(row,
 * { receivedAt }), without building a string. This is the ingestor's per-packet serialisation; as a
 * string it cost ~1.4 µs a row (template strings, the float search), which capped a worker thread
 * near 700k rows/s before any Kafka framing. The text is ASCII (fixed keys, numbers), so one
 * character is one byte.
 */
import type { ColumnarBatch } from '../decode/columnar-batch.js';
import { MsgCode } from '../wire/constants.js';
import { formatFloat32 } from './float32.js';

/**
 * Bytes one row's JSON can take, with margin: the longest shape is a trade or OHLC row with every
 * number at its longest (15-character floats, 11-character integers, a 16-digit receive time).
 */
export const MAX_ROW_JSON_BYTES = 320;

const ascii = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));

const TRADE = ascii('{"type":"trade","segment":');
const OHLC = ascii('{"type":"ohlc","segment":');
const PREV_CLOSE = ascii('{"type":"prev_close","segment":');
const CIRCUIT_LIMIT = ascii('{"type":"circuit_limit","segment":');
const WEEK52 = ascii('{"type":"week52","segment":');
const MARKET_STATUS = ascii('{"type":"market_status","segment":');
const ERROR = ascii('{"type":"error","segment":');
const SECURITY_ID = ascii(',"securityId":');
const LTP = ascii(',"ltp":');
const VOLUME = ascii(',"volume":');
const LTT = ascii(',"ltt":');
const LUT = ascii(',"lut":');
const OPEN = ascii(',"open":');
const CLOSE = ascii(',"close":');
const HIGH = ascii(',"high":');
const LOW = ascii(',"low":');
const PREV = ascii(',"prevClose":');
const UPPER = ascii(',"upper":');
const LOWER = ascii(',"lower":');
const MARKET_TYPE = ascii(',"marketType":[');
const STATUS = ascii('],"status":');
const CODE = ascii(',"code":');
const RECEIVED_AT = ascii(',"receivedAt":');

// Codes as module constants: the hot switch below then compares literals, not properties of an
// imported object (which the workers' transpiled modules read through a getter each time).
const TRADE_CODE = MsgCode.Trade;
const OHLC_CODE = MsgCode.Ohlc;
const PREV_CLOSE_CODE = MsgCode.PrevClose;
const CIRCUIT_LIMIT_CODE = MsgCode.CircuitLimit;
const WEEK52_CODE = MsgCode.Week52;
const MARKET_STATUS_CODE = MsgCode.MarketStatus;

const COMMA = 44;
const CLOSE_BRACE = 125;
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

function put(out: Uint8Array, at: number, bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; i++) out[at + i] = bytes[i] as number;
  return at + bytes.length;
}

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

/**
 * Writes row `row` of `batch` as JSON (jsonAt's text with a trailing "receivedAt") into `out` at
 * `at` and returns the end offset. The caller guarantees MAX_ROW_JSON_BYTES of room; `row` is not
 * checked against the batch (hot path), like the batch's other accessors.
 */
export function writeRowJson(
  batch: ColumnarBatch,
  row: number,
  out: Uint8Array,
  at: number,
  receivedAtMicros: number,
): number {
  const code = batch.codeAt(row);
  let p: number;
  switch (code) {
    case TRADE_CODE:
      p = put(out, at, TRADE);
      break;
    case OHLC_CODE:
      p = put(out, at, OHLC);
      break;
    case PREV_CLOSE_CODE:
      p = put(out, at, PREV_CLOSE);
      break;
    case CIRCUIT_LIMIT_CODE:
      p = put(out, at, CIRCUIT_LIMIT);
      break;
    case WEEK52_CODE:
      p = put(out, at, WEEK52);
      break;
    case MARKET_STATUS_CODE:
      p = put(out, at, MARKET_STATUS);
      break;
    default:
      p = put(out, at, ERROR);
  }
  p = putInt(out, p, batch.segmentAt(row));
  p = put(out, p, SECURITY_ID);
  p = putInt(out, p, batch.securityIdAt(row));
  switch (code) {
    case TRADE_CODE:
      p = putFloat(out, put(out, p, LTP), batch.intAt(row, 0));
      p = putInt(out, put(out, p, VOLUME), batch.intAt(row, 1));
      p = putInt(out, put(out, p, LTT), batch.intAt(row, 2));
      p = putInt(out, put(out, p, LUT), batch.intAt(row, 3));
      break;
    case OHLC_CODE:
      p = putFloat(out, put(out, p, OPEN), batch.intAt(row, 0));
      p = putFloat(out, put(out, p, CLOSE), batch.intAt(row, 1));
      p = putFloat(out, put(out, p, HIGH), batch.intAt(row, 2));
      p = putFloat(out, put(out, p, LOW), batch.intAt(row, 3));
      break;
    case PREV_CLOSE_CODE:
      p = putFloat(out, put(out, p, PREV), batch.intAt(row, 0));
      break;
    case CIRCUIT_LIMIT_CODE:
      p = putFloat(out, put(out, p, UPPER), batch.intAt(row, 0));
      p = putFloat(out, put(out, p, LOWER), batch.intAt(row, 1));
      break;
    case WEEK52_CODE:
      p = putFloat(out, put(out, p, HIGH), batch.intAt(row, 0));
      p = putFloat(out, put(out, p, LOW), batch.intAt(row, 1));
      break;
    case MARKET_STATUS_CODE: {
      const packed = batch.intAt(row, 0);
      p = putInt(out, put(out, p, MARKET_TYPE), packed & 0xff);
      out[p++] = COMMA;
      p = putInt(out, p, (packed >>> 8) & 0xff);
      out[p++] = COMMA;
      p = putInt(out, p, (packed >>> 16) & 0xff);
      p = putInt(out, put(out, p, STATUS), batch.intAt(row, 1));
      break;
    }
    default:
      p = putInt(out, put(out, p, CODE), batch.intAt(row, 0));
  }
  p = putInt(out, put(out, p, RECEIVED_AT), receivedAtMicros);
  out[p++] = CLOSE_BRACE;
  return p;
}
