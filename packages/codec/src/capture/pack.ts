import { CodecError } from '../errors.js';
import { CAPTURE_RECORD_HEADER_SIZE, toMicros, writeRecordHeader } from './format.js';

/** Default ceiling of one pack: 64 MiB, ~2.4 M trades, more than any sensible worker batch. */
export const DEFAULT_MAX_PACK_BYTES = 64 * 1024 * 1024;

/**
 * Collects frames as capture records (u32 length, u64 receive time, payload) in one buffer: the input
 * decodeFramesToColumns takes as a pack, built on the socket thread and transferred to a worker in
 * one message. The buffer grows by doubling up to `maxBytes`, and append refuses beyond it.
 */
export class FramePackBuilder {
  readonly #maxBytes: number;
  #bytes: Uint8Array;
  #view: DataView;
  #length = 0;
  #frames = 0;

  /** @param initialBytes first buffer size (default 64 KiB); @param maxBytes ceiling (default 64 MiB). */
  constructor(initialBytes = 64 * 1024, maxBytes = DEFAULT_MAX_PACK_BYTES) {
    if (!Number.isInteger(maxBytes) || maxBytes < CAPTURE_RECORD_HEADER_SIZE || maxBytes > 2 ** 31) {
      throw new CodecError(
        'INVALID_OPTIONS',
        `maxBytes must be an integer in 12..${2 ** 31}, got ${String(maxBytes)}`,
      );
    }
    if (!Number.isInteger(initialBytes) || initialBytes < 1 || initialBytes > maxBytes) {
      throw new CodecError(
        'INVALID_OPTIONS',
        `initialBytes must be an integer in 1..${maxBytes}, got ${String(initialBytes)}`,
      );
    }
    this.#maxBytes = maxBytes;
    this.#bytes = new Uint8Array(initialBytes);
    this.#view = new DataView(this.#bytes.buffer);
  }

  /** Appends one frame; false (nothing appended) when it would pass maxBytes: send the pack first. */
  append(payload: Uint8Array, receivedAtMicros: bigint | number): boolean {
    const micros = toMicros(receivedAtMicros);
    if (micros === undefined) {
      throw new CodecError(
        'INVALID_CAPTURE',
        `receivedAtMicros must be a non-negative integer, got ${String(receivedAtMicros)}`,
      );
    }
    const needed = this.#length + CAPTURE_RECORD_HEADER_SIZE + payload.length;
    if (needed > this.#maxBytes) return false;
    if (needed > this.#bytes.length) this.#grow(needed);
    writeRecordHeader(this.#view, this.#length, payload.length, micros);
    this.#bytes.set(payload, this.#length + CAPTURE_RECORD_HEADER_SIZE);
    this.#length = needed;
    this.#frames++;
    return true;
  }

  get byteLength(): number {
    return this.#length;
  }

  get frameCount(): number {
    return this.#frames;
  }

  /** A copy of the pack in a buffer of its own (transferable without taking the builder's buffer). */
  toBytes(): Uint8Array {
    return this.#bytes.slice(0, this.#length);
  }

  reset(): void {
    this.#length = 0;
    this.#frames = 0;
  }

  #grow(needed: number): void {
    let capacity = this.#bytes.length * 2;
    while (capacity < needed) capacity *= 2;
    const grown = new Uint8Array(Math.min(capacity, this.#maxBytes));
    grown.set(this.#bytes.subarray(0, this.#length));
    this.#bytes = grown;
    this.#view = new DataView(grown.buffer);
  }
}
