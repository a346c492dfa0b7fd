import type { FeedRecord } from '@feedpipe/contracts';
import { CodecError } from '../errors.js';
import { recordToJson } from '../json/record-json.js';
import { MsgCode } from '../wire/constants.js';

/** Upper bound on capacity: 4 Mi rows is ~150 MB, far beyond any useful batch. */
export const MAX_BATCH_CAPACITY = 1 << 22;

/** 32-bit words per row: code, segment and frame slot; security id; four payload words. */
export const ROW_WORDS = 6;

/** Frame slots per batch: the slot shares word 0 with code and segment, 16 bits of it. */
export const MAX_BATCH_FRAMES = 65536;

/** Word offsets inside a row of ColumnarBatch.words. */
export const RowWord = {
  /**
   * Bits 0..7 message code, 8..15 segment, 16..31 frame slot: the index into the batch's frame
   * table (frameOrdinals, frameReceivedAtMicros).
   */
  header: 0,
  securityId: 1,
  /** Payload words 0..3 follow; see the table on ColumnarBatch. */
  value0: 2,
} as const;

/**
 * Preallocated rows of decoded packets, filled by decodeFramesToColumns: worker threads decode a
 * batch of frames into one of these, then serialise or aggregate it (or transfer `words.buffer`, a
 * single ArrayBuffer, back to another thread).
 *
 * Layout: one Int32Array `words` of ROW_WORDS words per row, with `floats` a Float32Array over the
 * same memory. Row-packed rather than one typed array per field because it measured ~3x faster on
 * this machine's class of hardware: every store goes to one array (one bounds check, one base
 * pointer) and a row fills one or two cache lines. What is per frame (its ordinal in the input, its
 * receive time) sits once in a frame table that rows point into, not in every row: fewer stores
 * per packet. A frame only takes a slot if it yields a row; a batch spans at most MAX_BATCH_FRAMES
 * frames (the slot has 16 bits), which only matters for capacities above that. The accessors (codeAt, floatAt, receivedAtMicrosAt, ...) read it all as named columns.
 *
 * Payload words 0..3 by message code (read floats with floatAt, integers with intAt):
 *
 * | code | word 0 | word 1 | word 2 | word 3 |
 * |---|---|---|---|---|
 * | 1 trade | ltp (float) | volume | ltt | lut |
 * | 3 ohlc | open (float) | close (float) | high (float) | low (float) |
 * | 29 market status | marketType (b0 + b1<<8 + b2<<16) | status | 0 | 0 |
 * | 32 prev close | prevClose (float) | 0 | 0 | 0 |
 * | 33 circuit limit | upper (float) | lower (float) | 0 | 0 |
 * | 36 52-week | high (float) | low (float) | 0 | 0 |
 * | 50 error | code | 0 | 0 | 0 |
 *
 * Trade and OHLC payloads are copied as raw 32-bit words (floats bit for bit); unused words are
 * written as 0, so a row never shows stale values of an earlier batch. Accessors do not check `row`
 * against `length` (they sit on hot paths); recordAt and jsonAt do.
 */
export class ColumnarBatch {
  readonly capacity: number;
  readonly words: Int32Array;
  readonly floats: Float32Array;
  /** Frame slots the batch has: min(capacity, MAX_BATCH_FRAMES). */
  readonly maxFrames: number;
  /** Per frame slot: the frame's ordinal in the decoded input. */
  readonly frameOrdinals: Uint32Array;
  /** Per frame slot: receive time in epoch microseconds (capture-record packs; 0 for frame arrays). */
  readonly frameReceivedAtMicros: Float64Array;
  /** Rows filled so far. */
  length = 0;
  /** Frame slots used so far. */
  frameCount = 0;

  /** @param capacity rows (packets) the batch holds, 1..MAX_BATCH_CAPACITY; no default. */
  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > MAX_BATCH_CAPACITY) {
      throw new CodecError(
        'INVALID_OPTIONS',
        `capacity must be an integer in 1..${MAX_BATCH_CAPACITY}, got ${String(capacity)}`,
      );
    }
    this.capacity = capacity;
    this.words = new Int32Array(capacity * ROW_WORDS);
    this.floats = new Float32Array(this.words.buffer);
    this.maxFrames = Math.min(capacity, MAX_BATCH_FRAMES);
    this.frameOrdinals = new Uint32Array(this.maxFrames);
    this.frameReceivedAtMicros = new Float64Array(this.maxFrames);
  }

  /** Empties the batch for reuse (rows are overwritten as they are added again). */
  clear(): void {
    this.length = 0;
    this.frameCount = 0;
  }

  /** True when no further frame can be added: every row or every frame slot is taken. */
  get full(): boolean {
    return this.length >= this.capacity || this.frameCount >= this.maxFrames;
  }

  codeAt(row: number): number {
    return (this.words[row * ROW_WORDS] as number) & 0xff;
  }
  segmentAt(row: number): number {
    return ((this.words[row * ROW_WORDS] as number) >>> 8) & 0xff;
  }
  securityIdAt(row: number): number {
    return this.words[row * ROW_WORDS + RowWord.securityId] as number;
  }
  /** Ordinal, in the decoded input, of the frame the row came from. */
  frameIndexAt(row: number): number {
    return this.frameOrdinals[(this.words[row * ROW_WORDS] as number) >>> 16] as number;
  }
  /** Receive time of the row's frame in epoch microseconds (exact below 2^53, until the year 2255). */
  receivedAtMicrosAt(row: number): number {
    return this.frameReceivedAtMicros[(this.words[row * ROW_WORDS] as number) >>> 16] as number;
  }
  /** Payload word `word` (0..3) read as float32. */
  floatAt(row: number, word: number): number {
    return this.floats[row * ROW_WORDS + RowWord.value0 + word] as number;
  }
  /** Payload word `word` (0..3) read as int32. */
  intAt(row: number, word: number): number {
    return this.words[row * ROW_WORDS + RowWord.value0 + word] as number;
  }

  /** Row `row` as a plain record (allocates; for tools, tests and slow paths). */
  recordAt(row: number): FeedRecord {
    this.#check(row);
    const segment = this.segmentAt(row);
    const securityId = this.securityIdAt(row);
    switch (this.codeAt(row)) {
      case MsgCode.Trade:
        return {
          type: 'trade',
          segment,
          securityId,
          ltp: this.floatAt(row, 0),
          volume: this.intAt(row, 1),
          ltt: this.intAt(row, 2),
          lut: this.intAt(row, 3),
        };
      case MsgCode.Ohlc:
        return {
          type: 'ohlc',
          segment,
          securityId,
          open: this.floatAt(row, 0),
          close: this.floatAt(row, 1),
          high: this.floatAt(row, 2),
          low: this.floatAt(row, 3),
        };
      case MsgCode.PrevClose:
        return { type: 'prev_close', segment, securityId, prevClose: this.floatAt(row, 0) };
      case MsgCode.CircuitLimit:
        return {
          type: 'circuit_limit',
          segment,
          securityId,
          upper: this.floatAt(row, 0),
          lower: this.floatAt(row, 1),
        };
      case MsgCode.Week52:
        return { type: 'week52', segment, securityId, high: this.floatAt(row, 0), low: this.floatAt(row, 1) };
      case MsgCode.MarketStatus: {
        const packed = this.intAt(row, 0);
        return {
          type: 'market_status',
          segment,
          securityId,
          marketType: [packed & 0xff, (packed >>> 8) & 0xff, (packed >>> 16) & 0xff],
          status: this.intAt(row, 1),
        };
      }
      default:
        return { type: 'error', segment, securityId, code: this.intAt(row, 0) };
    }
  }

  /**
   * Row `row` as JSON text in the canonical record layout: recordToJson of recordAt(row). For tools
   * and tests; the ingestor's hot path writes the same text as bytes (writeRowJson).
   */
  jsonAt(row: number, extra?: Readonly<Record<string, number | string | null>>): string {
    return recordToJson(this.recordAt(row), extra);
  }

  #check(row: number): void {
    if (!Number.isInteger(row) || row < 0 || row >= this.length) {
      throw new RangeError(`row ${row} is outside the batch's ${this.length} rows`);
    }
  }
}
