import { CodecError } from '../errors.js';
import { formatFloat32 } from '../json/float32.js';
import { extraFields } from '../json/record-json.js';
import type { FeedRecord } from '../records.js';
import { MsgCode } from '../wire/constants.js';

/** Upper bound on capacity: 4 Mi rows is ~190 MB of columns, far beyond any useful batch. */
export const MAX_BATCH_CAPACITY = 1 << 22;

/**
 * Preallocated columns for decoded packets, one row per packet, filled by decodeFramesToColumns
 * (worker threads decode batches of frames into one of these, then serialise or aggregate rows).
 *
 * Generic value columns, by message code:
 *
 * | code | f0 | f1 | f2 | f3 | i0 | i1 | i2 |
 * |---|---|---|---|---|---|---|---|
 * | 1 trade | ltp | | | | volume | ltt | lut |
 * | 3 ohlc | open | close | high | low | | | |
 * | 29 market status | | | | | marketType (b0 + b1<<8 + b2<<16) | status | |
 * | 32 prev close | prevClose | | | | | | |
 * | 33 circuit limit | upper | lower | | | | | |
 * | 36 52-week | high | low | | | | | |
 * | 50 error | | | | | code | | |
 *
 * Unused cells are written as 0, so a row never shows stale values of an earlier batch.
 * `frameIndex` is the frame's ordinal in the decoded input; `receivedAtMicros` is the capture
 * record's receive time when the input was a capture-record pack, else 0.
 */
export class ColumnarBatch {
  readonly capacity: number;
  readonly code: Uint8Array;
  readonly segment: Uint8Array;
  readonly securityId: Int32Array;
  readonly frameIndex: Uint32Array;
  readonly receivedAtMicros: Float64Array;
  readonly f0: Float32Array;
  readonly f1: Float32Array;
  readonly f2: Float32Array;
  readonly f3: Float32Array;
  readonly i0: Int32Array;
  readonly i1: Int32Array;
  readonly i2: Int32Array;
  /** Rows filled so far. */
  length = 0;

  /** @param capacity rows (packets) the batch holds, 1..MAX_BATCH_CAPACITY; no default. */
  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > MAX_BATCH_CAPACITY) {
      throw new CodecError(
        'INVALID_OPTIONS',
        `capacity must be an integer in 1..${MAX_BATCH_CAPACITY}, got ${String(capacity)}`,
      );
    }
    this.capacity = capacity;
    this.code = new Uint8Array(capacity);
    this.segment = new Uint8Array(capacity);
    this.securityId = new Int32Array(capacity);
    this.frameIndex = new Uint32Array(capacity);
    this.receivedAtMicros = new Float64Array(capacity);
    this.f0 = new Float32Array(capacity);
    this.f1 = new Float32Array(capacity);
    this.f2 = new Float32Array(capacity);
    this.f3 = new Float32Array(capacity);
    this.i0 = new Int32Array(capacity);
    this.i1 = new Int32Array(capacity);
    this.i2 = new Int32Array(capacity);
  }

  /** Empties the batch for reuse (the columns are overwritten as rows are added again). */
  clear(): void {
    this.length = 0;
  }

  get full(): boolean {
    return this.length >= this.capacity;
  }

  /** Row `row` as a plain record (allocates; for tools, tests and slow paths). */
  recordAt(row: number): FeedRecord {
    this.#check(row);
    const segment = this.segment[row] as number;
    const securityId = this.securityId[row] as number;
    const f0 = this.f0[row] as number;
    const f1 = this.f1[row] as number;
    const i0 = this.i0[row] as number;
    switch (this.code[row]) {
      case MsgCode.Trade:
        return {
          type: 'trade',
          segment,
          securityId,
          ltp: f0,
          volume: i0,
          ltt: this.i1[row] as number,
          lut: this.i2[row] as number,
        };
      case MsgCode.Ohlc:
        return {
          type: 'ohlc',
          segment,
          securityId,
          open: f0,
          close: f1,
          high: this.f2[row] as number,
          low: this.f3[row] as number,
        };
      case MsgCode.PrevClose:
        return { type: 'prev_close', segment, securityId, prevClose: f0 };
      case MsgCode.CircuitLimit:
        return { type: 'circuit_limit', segment, securityId, upper: f0, lower: f1 };
      case MsgCode.Week52:
        return { type: 'week52', segment, securityId, high: f0, low: f1 };
      case MsgCode.MarketStatus:
        return {
          type: 'market_status',
          segment,
          securityId,
          marketType: [i0 & 0xff, (i0 >>> 8) & 0xff, (i0 >>> 16) & 0xff],
          status: this.i1[row] as number,
        };
      default:
        return { type: 'error', segment, securityId, code: i0 };
    }
  }

  /**
   * Row `row` as JSON text in the stable record shape (the same text recordToJson gives for
   * recordAt(row)), built straight from the columns without a record object.
   */
  jsonAt(row: number, extra?: Readonly<Record<string, number | string>>): string {
    this.#check(row);
    const code = this.code[row];
    const i0 = this.i0[row] as number;
    const head = `"segment":${this.segment[row]},"securityId":${this.securityId[row]}`;
    let text: string;
    switch (code) {
      case MsgCode.Trade:
        text = `{"type":"trade",${head},"ltp":${formatFloat32(this.f0[row] as number)},"volume":${i0},"ltt":${this.i1[row]},"lut":${this.i2[row]}`;
        break;
      case MsgCode.Ohlc:
        text = `{"type":"ohlc",${head},"open":${formatFloat32(this.f0[row] as number)},"close":${formatFloat32(this.f1[row] as number)},"high":${formatFloat32(this.f2[row] as number)},"low":${formatFloat32(this.f3[row] as number)}`;
        break;
      case MsgCode.PrevClose:
        text = `{"type":"prev_close",${head},"prevClose":${formatFloat32(this.f0[row] as number)}`;
        break;
      case MsgCode.CircuitLimit:
        text = `{"type":"circuit_limit",${head},"upper":${formatFloat32(this.f0[row] as number)},"lower":${formatFloat32(this.f1[row] as number)}`;
        break;
      case MsgCode.Week52:
        text = `{"type":"week52",${head},"high":${formatFloat32(this.f0[row] as number)},"low":${formatFloat32(this.f1[row] as number)}`;
        break;
      case MsgCode.MarketStatus:
        text = `{"type":"market_status",${head},"marketType":[${i0 & 0xff},${(i0 >>> 8) & 0xff},${(i0 >>> 16) & 0xff}],"status":${this.i1[row]}`;
        break;
      default:
        text = `{"type":"error",${head},"code":${i0}`;
    }
    return extra === undefined ? `${text}}` : `${text}${extraFields(extra)}}`;
  }

  #check(row: number): void {
    if (!Number.isInteger(row) || row < 0 || row >= this.length) {
      throw new RangeError(`row ${row} is outside the batch's ${this.length} rows`);
    }
  }
}
