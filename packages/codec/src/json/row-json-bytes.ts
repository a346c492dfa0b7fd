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

const COMMA = 44;
const CLOSE_BRACE = 125;
const MINUS = 45;
const ZERO = 48;

/**
 * Float texts by value: prices repeat (ticks move around a level), and formatFloat32's search is the
 * dearest part of a row. Bounded so a stream of distinct values cannot grow it without limit.
 */
const MAX_CACHED_FLOATS = 1 << 16;
const floatTexts = new Map<number, string>();

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

function putFloat(out: Uint8Array, at: number, value: number): number {
  // 0 and -0 share a Map key; formatFloat32 spells them differently.
  let text = value === 0 ? formatFloat32(value) : floatTexts.get(value);
  if (text === undefined) {
    text = formatFloat32(value);
    if (floatTexts.size >= MAX_CACHED_FLOATS) floatTexts.clear();
    floatTexts.set(value, text);
  }
  for (let i = 0; i < text.length; i++) out[at + i] = text.charCodeAt(i);
  return at + text.length;
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
    case MsgCode.Trade:
      p = put(out, at, TRADE);
      break;
    case MsgCode.Ohlc:
      p = put(out, at, OHLC);
      break;
    case MsgCode.PrevClose:
      p = put(out, at, PREV_CLOSE);
      break;
    case MsgCode.CircuitLimit:
      p = put(out, at, CIRCUIT_LIMIT);
      break;
    case MsgCode.Week52:
      p = put(out, at, WEEK52);
      break;
    case MsgCode.MarketStatus:
      p = put(out, at, MARKET_STATUS);
      break;
    default:
      p = put(out, at, ERROR);
  }
  p = putInt(out, p, batch.segmentAt(row));
  p = put(out, p, SECURITY_ID);
  p = putInt(out, p, batch.securityIdAt(row));
  switch (code) {
    case MsgCode.Trade:
      p = putFloat(out, put(out, p, LTP), batch.floatAt(row, 0));
      p = putInt(out, put(out, p, VOLUME), batch.intAt(row, 1));
      p = putInt(out, put(out, p, LTT), batch.intAt(row, 2));
      p = putInt(out, put(out, p, LUT), batch.intAt(row, 3));
      break;
    case MsgCode.Ohlc:
      p = putFloat(out, put(out, p, OPEN), batch.floatAt(row, 0));
      p = putFloat(out, put(out, p, CLOSE), batch.floatAt(row, 1));
      p = putFloat(out, put(out, p, HIGH), batch.floatAt(row, 2));
      p = putFloat(out, put(out, p, LOW), batch.floatAt(row, 3));
      break;
    case MsgCode.PrevClose:
      p = putFloat(out, put(out, p, PREV), batch.floatAt(row, 0));
      break;
    case MsgCode.CircuitLimit:
      p = putFloat(out, put(out, p, UPPER), batch.floatAt(row, 0));
      p = putFloat(out, put(out, p, LOWER), batch.floatAt(row, 1));
      break;
    case MsgCode.Week52:
      p = putFloat(out, put(out, p, HIGH), batch.floatAt(row, 0));
      p = putFloat(out, put(out, p, LOW), batch.floatAt(row, 1));
      break;
    case MsgCode.MarketStatus: {
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
