import { FIXED_SIZE_BY_CODE, HEADER_SIZE, MsgCode, Offset } from '../wire/constants.js';
import { REFERENCE_CODE } from '../wire/no-data-yet.js';
import type { DecodeCounters } from './counters.js';

const KNOWN_CODES: readonly number[] = Object.values(MsgCode);
const EMPTY = new Uint8Array(0);

/**
 * Walks the packets of one WebSocket message through a DataView over the received memory, with no
 * allocation per packet: `reset(bytes)`, then `while (cursor.next()) { ... }` reading the getters.
 *
 * Frame rules (ARCHITECTURE.md): advance by the length byte (byte 9). Length 0 stops the frame.
 * Length under 11 falls back to the fixed size of a known code, and stops the frame (counted as
 * unknown) for an unknown code. A length above the fixed size decodes the known fields and skips
 * the rest. Fewer than 11 bytes left, a length under the code's fixed size, or a packet running past
 * the end of the frame is malformed: counted, and the frame stops. Unknown codes are counted and
 * skipped by their length.
 *
 * Safety: `next()` advances by at least 11 bytes per iteration or returns, so it always ends; no read
 * leaves [frame start, frame end) because a packet is only exposed once its whole fixed size lies
 * inside the frame, and every payload getter checks the current code and returns 0 for another code
 * (so asking a 13-byte Error packet for a Trade field never reads past it).
 *
 * The DataView spans the whole backing ArrayBuffer and is reused while consecutive frames share it
 * (ws hands out slices of pooled socket chunks), so a reset is usually allocation-free too.
 */
export class PacketCursor {
  #buffer: ArrayBufferLike | undefined;
  #view: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));
  #frameStart = 0;
  #end = 0;
  /** Absolute offset of the current packet. */
  #at = 0;
  /** Absolute offset where the next packet starts. */
  #next = 0;
  /** Code of the current packet; 0 when there is none (before next(), or after it returned false). */
  #code = 0;

  #frames = 0;
  #malformed = 0;
  #unknown = 0;
  readonly #byCode = new Float64Array(256);

  constructor(bytes: Uint8Array = EMPTY) {
    this.#attach(bytes, 0);
  }

  /** Starts walking a new frame (counted in `frames`). */
  reset(bytes: Uint8Array): void {
    this.#attach(bytes, 0);
    this.#frames++;
  }

  /**
   * Continues walking `bytes` from byte `offset` (a packet boundary earlier handed out as
   * `nextOffset`), without counting a new frame: for decoders that stop mid-frame when their output
   * is full.
   */
  resume(bytes: Uint8Array, offset: number): void {
    this.#attach(bytes, Math.max(0, Math.min(offset | 0, bytes.byteLength)));
  }

  #attach(bytes: Uint8Array, offset: number): void {
    if (bytes.buffer !== this.#buffer) {
      this.#buffer = bytes.buffer;
      this.#view = new DataView(bytes.buffer);
    }
    this.#frameStart = bytes.byteOffset;
    this.#end = bytes.byteOffset + bytes.byteLength;
    this.#next = this.#frameStart + offset;
    this.#at = this.#next;
    this.#code = 0;
  }

  /** Moves to the next packet of a known code; false when the frame is done (or stopped). */
  next(): boolean {
    // Fast path, kept small so TurboFan inlines it into callers' loops (its inlining budget is
    // cumulative per function): a known code whose length covers its fields and fits the frame.
    const at = this.#next;
    const remaining = this.#end - at;
    if (remaining >= HEADER_SIZE) {
      const view = this.#view;
      const length = view.getUint8(at + Offset.length);
      const code = view.getUint8(at + Offset.code);
      const fixed = FIXED_SIZE_BY_CODE[code] as number;
      if (fixed !== 0 && length >= fixed && length <= remaining) {
        this.#expose(at, code, length);
        return true;
      }
    }
    return this.#nextSlow();
  }

  /** Every rule, including the rare ones: zero length, fallback sizes, unknown codes, malformed. */
  #nextSlow(): boolean {
    const view = this.#view;
    const end = this.#end;
    let at = this.#next;
    this.#code = 0;
    for (;;) {
      const remaining = end - at;
      if (remaining <= 0) return this.#stop();
      if (remaining < HEADER_SIZE) {
        this.#malformed++;
        return this.#stop();
      }
      const length = view.getUint8(at + Offset.length);
      if (length === 0) {
        if (this.#zeroFilledReference(at, remaining)) return true;
        // The end of the data (spec: a zero length stops the loop). Zero padding after it is
        // nothing; anything else after it is data the frame held and no rule can read: counted.
        if (!allZero(view, at, end)) this.#malformed++;
        return this.#stop();
      }
      const code = view.getUint8(at + Offset.code);
      const fixed = FIXED_SIZE_BY_CODE[code] as number;
      if (fixed === 0) {
        this.#unknown++;
        if (length < HEADER_SIZE) return this.#stop();
        if (length > remaining) {
          this.#malformed++;
          return this.#stop();
        }
        at += length;
        continue;
      }
      const size = length < HEADER_SIZE ? fixed : length;
      if (size < fixed || size > remaining) {
        this.#malformed++;
        return this.#stop();
      }
      this.#expose(at, code, size);
      return true;
    }
  }

  /**
   * A "no data yet" reference packet zero-filled down to its length byte (rule 4 of the spec: a
   * Circuit Limit, 52-Week or Previous Close packet with security id 0 and zero values, to be
   * treated as a valid packet). Its code says its size, so it is read at that size and the frame
   * goes on: a server that zero-fills the whole packet but the code must not make the rest of the
   * message (the next instruments' snapshots and trades) disappear unseen.
   */
  #zeroFilledReference(at: number, remaining: number): boolean {
    const view = this.#view;
    const code = view.getUint8(at + Offset.code);
    const fixed = FIXED_SIZE_BY_CODE[code] as number;
    if (REFERENCE_CODE[code] !== 1 || fixed > remaining) return false;
    if (view.getInt32(at + Offset.securityId, true) !== 0) return false;
    if (view.getInt32(at + Offset.securityIdCopy, true) !== 0) return false;
    this.#expose(at, code, fixed);
    return true;
  }

  // Per packet only three fields and one counter are stored: everything else (length, size, the
  // packet total) is derived on demand, because these stores are most of the cursor's cost.
  #expose(at: number, code: number, size: number): void {
    this.#at = at;
    this.#next = at + size;
    this.#code = code;
    this.#byCode[code] = (this.#byCode[code] as number) + 1;
  }

  #stop(): false {
    this.#next = this.#end;
    this.#code = 0;
    return false;
  }

  // Header of the current packet (0 when there is none).

  /** Message code of the current packet, 0 when there is none. */
  get code(): number {
    return this.#code;
  }
  get segment(): number {
    return this.#code === 0 ? 0 : this.#view.getUint8(this.#at + Offset.segment);
  }
  get securityId(): number {
    return this.#code === 0 ? 0 : this.#view.getInt32(this.#at + Offset.securityId, true);
  }
  /** The header's duplicate of the security id (bytes 5..8). */
  get securityIdCopy(): number {
    return this.#code === 0 ? 0 : this.#view.getInt32(this.#at + Offset.securityIdCopy, true);
  }
  /** The length byte as sent (may be under 11, meaning the fixed size was used). */
  get length(): number {
    return this.#code === 0 ? 0 : this.#view.getUint8(this.#at + Offset.length);
  }
  /** Bytes the current packet occupies in the frame. */
  get size(): number {
    return this.#code === 0 ? 0 : this.#next - this.#at;
  }
  /** Byte offset of the current packet within the frame. */
  get offset(): number {
    return this.#at - this.#frameStart;
  }
  /**
   * For bulk decoders in this package: the DataView the cursor reads (it spans the whole backing
   * ArrayBuffer) and the current packet's absolute offset in it. Reading at packetStart + o is inside
   * the frame for every field offset o of the current code's fixed layout, and nowhere else.
   */
  get dataView(): DataView<ArrayBufferLike> {
    return this.#view;
  }
  get packetStart(): number {
    return this.#at;
  }
  /** Byte offset within the frame where the next packet starts (the frame length once done). */
  get nextOffset(): number {
    return this.#next - this.#frameStart;
  }

  // Payload getters: each returns 0 unless the current packet has the code the field belongs to.

  get ltp(): number {
    return this.#code === MsgCode.Trade ? this.#view.getFloat32(this.#at + Offset.field0, true) : 0;
  }
  get volume(): number {
    return this.#code === MsgCode.Trade ? this.#view.getInt32(this.#at + Offset.field1, true) : 0;
  }
  /** Last trade time, epoch seconds. */
  get ltt(): number {
    return this.#code === MsgCode.Trade ? this.#view.getInt32(this.#at + Offset.field2, true) : 0;
  }
  /** Last update time, epoch seconds. */
  get lut(): number {
    return this.#code === MsgCode.Trade ? this.#view.getInt32(this.#at + Offset.field3, true) : 0;
  }
  get open(): number {
    return this.#code === MsgCode.Ohlc ? this.#view.getFloat32(this.#at + Offset.field0, true) : 0;
  }
  get close(): number {
    return this.#code === MsgCode.Ohlc ? this.#view.getFloat32(this.#at + Offset.field1, true) : 0;
  }
  get high(): number {
    return this.#code === MsgCode.Ohlc ? this.#view.getFloat32(this.#at + Offset.field2, true) : 0;
  }
  get low(): number {
    return this.#code === MsgCode.Ohlc ? this.#view.getFloat32(this.#at + Offset.field3, true) : 0;
  }
  get prevClose(): number {
    return this.#code === MsgCode.PrevClose ? this.#view.getFloat32(this.#at + Offset.field0, true) : 0;
  }
  get upper(): number {
    return this.#code === MsgCode.CircuitLimit ? this.#view.getFloat32(this.#at + Offset.field0, true) : 0;
  }
  get lower(): number {
    return this.#code === MsgCode.CircuitLimit ? this.#view.getFloat32(this.#at + Offset.field1, true) : 0;
  }
  get week52High(): number {
    return this.#code === MsgCode.Week52 ? this.#view.getFloat32(this.#at + Offset.field0, true) : 0;
  }
  get week52Low(): number {
    return this.#code === MsgCode.Week52 ? this.#view.getFloat32(this.#at + Offset.field1, true) : 0;
  }
  /** MarketType byte 0, 1 or 2 of a Market Status packet. */
  marketType(index: 0 | 1 | 2): number {
    if (this.#code !== MsgCode.MarketStatus || index < 0 || index > 2) return 0;
    return this.#view.getUint8(this.#at + Offset.marketType + (index | 0));
  }
  get marketStatus(): number {
    return this.#code === MsgCode.MarketStatus
      ? this.#view.getInt32(this.#at + Offset.marketStatus, true)
      : 0;
  }
  /** Disconnection code of an Error packet (805..809 per the spec). */
  get errorCode(): number {
    return this.#code === MsgCode.Error ? this.#view.getInt16(this.#at + Offset.errorCode, true) : 0;
  }

  // Counters, cumulative since construction or resetCounters().

  get frames(): number {
    return this.#frames;
  }
  get packets(): number {
    let total = 0;
    for (const code of KNOWN_CODES) total += this.#byCode[code] as number;
    return total;
  }
  get malformed(): number {
    return this.#malformed;
  }
  get unknown(): number {
    return this.#unknown;
  }
  /** Decoded packets of one message code. */
  countOf(code: number): number {
    return this.#byCode[code & 0xff] ?? 0;
  }
  /**
   * A snapshot of the counters (allocates; call it per batch, not per packet). The cursor hands out
   * every packet, "no data yet" ones included, so its `noDataYet` stays 0: that count belongs to
   * the decoders that turn packets into records.
   */
  get counters(): DecodeCounters {
    const snapshot: DecodeCounters = {
      frames: 0,
      packets: 0,
      malformed: 0,
      unknown: 0,
      noDataYet: 0,
      byCode: {},
    };
    this.addCountersTo(snapshot);
    return snapshot;
  }
  addCountersTo(target: DecodeCounters): void {
    target.frames += this.#frames;
    target.packets += this.packets;
    target.malformed += this.#malformed;
    target.unknown += this.#unknown;
    for (const code of KNOWN_CODES) {
      const count = this.#byCode[code] ?? 0;
      if (count > 0) target.byCode[code] = (target.byCode[code] ?? 0) + count;
    }
  }
  resetCounters(): void {
    this.#frames = 0;
    this.#malformed = 0;
    this.#unknown = 0;
    this.#byCode.fill(0);
  }
}

/** Whether every byte of `view` from `from` to `end` is zero (padding after the data). */
function allZero(view: DataView, from: number, end: number): boolean {
  for (let i = from; i < end; i++) if (view.getUint8(i) !== 0) return false;
  return true;
}
