/**
 * Where received frames enter the ingestor: every binary message a connection delivers passes here
 * once, is counted, shown to the taps (the capture file; anything else that must see every frame as
 * received, in order per connection) and handed to the producer pipeline. Taps run on the main
 * thread before the frame is queued, between a socket's messages, so they must be quick (batch their
 * own I/O) and must not change the frame: the pipeline packs the same bytes after them.
 */
import type { Counter } from 'prom-client';

export interface FrameTap {
  frame(connection: number, frame: Buffer, receivedAtMicros: number): void;
}

/** Where frames go on (the producer pipeline's `push`). */
export interface FrameTarget {
  push(connection: number, frame: Uint8Array, receivedAtMicros: number): boolean;
}

export class FrameIntake {
  readonly #target: FrameTarget;
  readonly #metrics: { frames: Counter; bytes: Counter };
  readonly #taps: FrameTap[] = [];
  #admit: ((connection: number, receivedAtMicros: number) => boolean) | undefined;
  #refused = 0;
  #frames = 0;
  #bytes = 0;

  constructor(target: FrameTarget, metrics: { frames: Counter; bytes: Counter }) {
    this.#target = target;
    this.#metrics = metrics;
  }

  /** Adds a tap, shown each frame after the taps added before it. */
  tap(tap: FrameTap): void {
    this.#taps.push(tap);
  }

  /**
   * Frames are taken only while `admit(connection, receivedAtMicros)` says so (the leader's lease,
   * or a connection a handover gives this process). A refused frame is not
   * counted as received, logged or queued: to the process it is as if it had stayed in the socket.
   */
  gate(admit: (connection: number, receivedAtMicros: number) => boolean): void {
    this.#admit = admit;
  }

  receive(connection: number, frame: Buffer, receivedAtMicros: number): void {
    if (this.#admit && !this.#admit(connection, receivedAtMicros)) {
      this.#refused += 1;
      return;
    }
    this.#frames += 1;
    this.#bytes += frame.byteLength;
    this.#metrics.frames.inc();
    this.#metrics.bytes.inc(frame.byteLength);
    for (const tap of this.#taps) tap.frame(connection, frame, receivedAtMicros);
    this.#target.push(connection, frame, receivedAtMicros);
  }

  /** Frames and bytes received since start. */
  get counts(): { frames: number; bytes: number } {
    return { frames: this.#frames, bytes: this.#bytes };
  }

  /** Frames the gate refused (read from a socket after the lease ran out). */
  get refused(): number {
    return this.#refused;
  }
}
