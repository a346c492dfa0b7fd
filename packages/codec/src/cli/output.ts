import type { Writable } from 'node:stream';

/** Batches text into ~256 KiB writes and waits for 'drain' when the destination asks for it. */
export class BufferedOutput {
  readonly #out: Writable;
  readonly #limit: number;
  #parts: string[] = [];
  #size = 0;

  constructor(out: Writable, limit = 256 * 1024) {
    this.#out = out;
    this.#limit = limit;
  }

  /** Appends text; the promise is only pending while the destination is full. */
  async write(text: string): Promise<void> {
    this.#parts.push(text);
    this.#size += text.length;
    if (this.#size >= this.#limit) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.#size === 0) return;
    const text = this.#parts.join('');
    this.#parts = [];
    this.#size = 0;
    if (!this.#out.write(text)) await new Promise<void>((resolve) => this.#out.once('drain', resolve));
  }
}
