/**
 * The bytes the hot tier may spend on kept row text (step-bars.ts), over all instrument-days.
 * A row that does not fit is written again for each answer instead of being kept: the cap bounds
 * memory and costs speed, never an answer.
 */

/** V8's header of a one-byte string, counted with its characters (the rows are ASCII). */
const STRING_OVERHEAD = 16;

export class RowTextBudget {
  readonly #max: number;
  #used = 0;

  constructor(maxBytes: number) {
    this.#max = maxBytes;
  }

  /** Bytes kept now. */
  get used(): number {
    return this.#used;
  }

  /** Reserves the bytes of `text`; false (nothing reserved) when it would pass the cap. */
  take(text: string): boolean {
    const cost = text.length + STRING_OVERHEAD;
    if (this.#used + cost > this.#max) return false;
    this.#used += cost;
    return true;
  }

  /** Returns the bytes of a kept `text` that is let go. */
  give(text: string): void {
    this.#used -= text.length + STRING_OVERHEAD;
  }
}
