/**
 * The capture file as a frame tap: every received frame also written in the codec's capture format
 * (`captureFile`). Recording is best effort beside production: a disk that cannot keep up loses
 * capture frames (the first failure is said), never Kafka data.
 */
import { CaptureWriter } from '@feedpipe/codec';
import type { FrameTap } from './frame-intake.js';

export class CaptureTap implements FrameTap {
  readonly #path: string;
  readonly #log: (message: string) => void;
  #writer: CaptureWriter | undefined;
  #failures = 0;

  constructor(path: string, log: (message: string) => void) {
    this.#path = path;
    this.#log = log;
  }

  async open(): Promise<void> {
    this.#writer = await CaptureWriter.open(this.#path);
  }

  frame(_connection: number, frame: Buffer, receivedAtMicros: number): void {
    if (!this.#writer) return;
    try {
      this.#writer.write(frame, receivedAtMicros);
    } catch (error) {
      if (this.#failures++ === 0)
        this.#log(`capture file write failed (${(error as Error).message}); frames are still produced`);
    }
  }

  async close(): Promise<void> {
    const writer = this.#writer;
    this.#writer = undefined;
    await writer?.close();
  }
}
