import type { FeedRecord } from '@feedpipe/contracts';
import { CodecError } from '../errors.js';
import { MsgCode } from '../wire/constants.js';
import { encodedSize, writeRecord } from './encode-record.js';
import {
  writeError,
  writeMarketStatus,
  writeOhlc,
  writePrevClose,
  writeTrade,
  writeTwoFloats,
} from './packet-writer.js';

/** Default first buffer size: room for ~150 trades, a typical busy frame, before any growth. */
export const DEFAULT_FRAME_BUILDER_CAPACITY = 4096;
/**
 * Hard cap on one frame. ws's default maxPayload is 100 MiB, but a frame this large already means a
 * runaway caller; failing loudly beats growing without bound.
 */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/**
 * Appends packets into one buffer that grows by doubling and is reused across frames (`reset`), so
 * the simulator's load mode allocates only when a frame outgrows every earlier one, plus the copy
 * `toBytes` hands out.
 */
export class FrameBuilder {
  #bytes: Uint8Array;
  #view: DataView;
  #length = 0;
  #packets = 0;

  /** @param initialCapacityBytes first buffer size, default 4096, at most MAX_FRAME_BYTES. */
  constructor(initialCapacityBytes: number = DEFAULT_FRAME_BUILDER_CAPACITY) {
    if (
      !Number.isInteger(initialCapacityBytes) ||
      initialCapacityBytes < 32 ||
      initialCapacityBytes > MAX_FRAME_BYTES
    ) {
      throw new CodecError(
        'INVALID_OPTIONS',
        `initialCapacityBytes must be an integer in 32..${MAX_FRAME_BYTES}, got ${String(initialCapacityBytes)}`,
      );
    }
    this.#bytes = new Uint8Array(initialCapacityBytes);
    this.#view = new DataView(this.#bytes.buffer);
  }

  trade(segment: number, securityId: number, ltp: number, volume: number, ltt: number, lut: number): this {
    this.#ensure(27);
    this.#length = writeTrade(this.#view, this.#length, segment, securityId, ltp, volume, ltt, lut);
    this.#packets++;
    return this;
  }

  ohlc(segment: number, securityId: number, open: number, close: number, high: number, low: number): this {
    this.#ensure(27);
    this.#length = writeOhlc(this.#view, this.#length, segment, securityId, open, close, high, low);
    this.#packets++;
    return this;
  }

  prevClose(segment: number, securityId: number, prevClose: number): this {
    this.#ensure(15);
    this.#length = writePrevClose(this.#view, this.#length, segment, securityId, prevClose);
    this.#packets++;
    return this;
  }

  circuitLimit(segment: number, securityId: number, upper: number, lower: number): this {
    this.#ensure(19);
    this.#length = writeTwoFloats(
      this.#view,
      this.#length,
      MsgCode.CircuitLimit,
      segment,
      securityId,
      upper,
      lower,
    );
    this.#packets++;
    return this;
  }

  week52(segment: number, securityId: number, high: number, low: number): this {
    this.#ensure(19);
    this.#length = writeTwoFloats(this.#view, this.#length, MsgCode.Week52, segment, securityId, high, low);
    this.#packets++;
    return this;
  }

  marketStatus(
    segment: number,
    securityId: number,
    marketType: readonly [number, number, number],
    status: number,
  ): this {
    this.#ensure(18);
    this.#length = writeMarketStatus(this.#view, this.#length, segment, securityId, marketType, status);
    this.#packets++;
    return this;
  }

  /** An Error packet as the server sends it: segment 0, ids 0, length 13. */
  error(code: number): this {
    this.#ensure(13);
    this.#length = writeError(this.#view, this.#length, 0, 0, code);
    this.#packets++;
    return this;
  }

  record(record: FeedRecord): this {
    this.#ensure(encodedSize(record));
    this.#length = writeRecord(this.#view, this.#length, record);
    this.#packets++;
    return this;
  }

  get byteLength(): number {
    return this.#length;
  }

  get packetCount(): number {
    return this.#packets;
  }

  /** A copy of the bytes written so far (safe to hand to ws.send and keep building). */
  toBytes(): Uint8Array {
    return this.#bytes.slice(0, this.#length);
  }

  /**
   * A view of the bytes written so far, without copying; valid only until the next append or reset.
   * For callers that consume the bytes at once (a synchronous send that copies, a checksum).
   */
  view(): Uint8Array {
    return this.#bytes.subarray(0, this.#length);
  }

  reset(): void {
    this.#length = 0;
    this.#packets = 0;
  }

  #ensure(size: number): void {
    const needed = this.#length + size;
    if (needed <= this.#bytes.length) return;
    if (needed > MAX_FRAME_BYTES) {
      throw new CodecError('BUFFER_TOO_SMALL', `a frame may hold at most ${MAX_FRAME_BYTES} bytes`);
    }
    let capacity = this.#bytes.length * 2;
    while (capacity < needed) capacity *= 2;
    const grown = new Uint8Array(Math.min(capacity, MAX_FRAME_BYTES));
    grown.set(this.#bytes.subarray(0, this.#length));
    this.#bytes = grown;
    this.#view = new DataView(grown.buffer);
  }
}
