/**
 * A chunk of received frames on its way to a decode worker: the frames' bytes packed back to back
 * in one ArrayBuffer (transferred to the worker, never cloned), their end offsets, and their receive
 * times. Copying each frame once into the chunk costs about a memcpy and lets one worker task carry
 * thousands of frames: per-frame tasks cost ~100 µs each and would cap throughput.
 */
export interface FrameChunkMessage {
  connection: number;
  /** Sequence of this chunk on its connection; chunks of one connection are produced in order. */
  sequence: number;
  bytes: ArrayBuffer;
  byteLength: number;
  /** ends[i] = end offset of frame i within bytes; frame i starts at ends[i - 1] (or 0). */
  ends: Uint32Array;
  /** Receive time of each frame, microseconds since the epoch. */
  receivedAt: Float64Array;
  frameCount: number;
}

export class FrameChunk {
  readonly bytes: Uint8Array;
  readonly ends: Uint32Array;
  readonly receivedAt: Float64Array;
  byteLength = 0;
  frameCount = 0;
  /** Receive time of the first frame, for age-based flushing. */
  firstAtMs = 0;

  constructor(byteCapacity: number, frameCapacity: number) {
    this.bytes = new Uint8Array(new ArrayBuffer(byteCapacity));
    this.ends = new Uint32Array(frameCapacity);
    this.receivedAt = new Float64Array(frameCapacity);
  }

  /** False when the frame does not fit; the caller seals this chunk and starts another. */
  tryAppend(frame: Uint8Array, receivedAtMicros: number, nowMs: number): boolean {
    if (this.frameCount === this.ends.length || this.byteLength + frame.byteLength > this.bytes.byteLength)
      return false;
    if (this.frameCount === 0) this.firstAtMs = nowMs;
    this.bytes.set(frame, this.byteLength);
    this.byteLength += frame.byteLength;
    this.ends[this.frameCount] = this.byteLength;
    this.receivedAt[this.frameCount] = receivedAtMicros;
    this.frameCount += 1;
    return true;
  }

  toMessage(connection: number, sequence: number): FrameChunkMessage {
    return {
      connection,
      sequence,
      bytes: this.bytes.buffer as ArrayBuffer,
      byteLength: this.byteLength,
      ends: this.ends.subarray(0, this.frameCount),
      receivedAt: this.receivedAt.subarray(0, this.frameCount),
      frameCount: this.frameCount,
    };
  }
}
