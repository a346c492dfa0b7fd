/**
 * A chunk of received frames on its way to a decode worker, in the codec's pack layout (capture
 * records back to back: u32 length, u64 receive time in microseconds, payload), so the worker decodes
 * it straight into columns and the bytes move in one transferable buffer, never cloned. Copying each
 * frame once into the pack costs about a memcpy and lets one worker task carry thousands of frames:
 * per-frame tasks cost ~100 µs each and would cap throughput.
 */
import { FramePackBuilder } from '@feedpipe/codec';

const INITIAL_PACK_BYTES = 16 * 1024;

export interface FrameChunkMessage {
  connection: number;
  /** Sequence of this chunk on its connection; chunks of one connection are produced in order. */
  sequence: number;
  /** The pack (transferred). */
  pack: Uint8Array;
  frameCount: number;
  /**
   * The previous trade of instruments whose repeat is expected (after a reconnect):
   * [securityId, volume, ltt] triples (chunk-encoder.ts, GUARD_STRIDE). Unset: no guard.
   */
  guard?: Float64Array;
  /**
   * The connection's quantity bases (chunk-quantities.ts, BASE_STRIDE): a copy (transferred), the
   * main thread keeps its own until the chunk's result brings the moves. Unset: none known.
   */
  bases?: Float64Array;
}

export class FrameChunk {
  private readonly builder: FramePackBuilder;
  /** Receive times stay on the main thread too, for receive-to-ack latency. */
  private readonly times: number[] = [];
  private bytes = 0;
  /** When the first frame arrived, for age-based flushing. */
  firstAtMs = 0;

  constructor(byteCapacity: number) {
    // Start small and let the pack double as frames arrive: most chunks leave after the flush
    // interval holding a few kilobytes, and allocating (and zeroing) the full capacity for each of
    // hundreds of chunks a second was the socket thread's main cost.
    this.builder = new FramePackBuilder(Math.min(byteCapacity, INITIAL_PACK_BYTES), byteCapacity);
  }

  get frameCount(): number {
    return this.builder.frameCount;
  }

  /** Payload bytes held (what the pipeline's bound counts). */
  get byteLength(): number {
    return this.bytes;
  }

  /** False when the frame does not fit; the caller seals this chunk and starts another. */
  tryAppend(frame: Uint8Array, receivedAtMicros: number, nowMs: number): boolean {
    if (!this.builder.append(frame, receivedAtMicros)) return false;
    if (this.times.length === 0) this.firstAtMs = nowMs;
    this.times.push(receivedAtMicros);
    this.bytes += frame.byteLength;
    return true;
  }

  receiveTimes(): Float64Array {
    return Float64Array.from(this.times);
  }

  toMessage(connection: number, sequence: number): FrameChunkMessage {
    return { connection, sequence, pack: this.builder.toBytes(), frameCount: this.builder.frameCount };
  }
}
