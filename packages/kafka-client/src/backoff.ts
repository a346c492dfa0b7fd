/** Exponential backoff with full jitter and a cap, for this package's bounded retry loops. */
export class Backoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  #attempt = 0;

  constructor(initialMs: number, maxMs: number) {
    this.#initialMs = initialMs;
    this.#maxMs = maxMs;
  }

  /** The next delay: between half and all of min(max, initial * 2^attempt). */
  next(): number {
    const ceiling = Math.min(this.#maxMs, this.#initialMs * 2 ** Math.min(this.#attempt, 20));
    this.#attempt += 1;
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  }

  /** After a success: the next delay starts from the initial one again. */
  reset(): void {
    this.#attempt = 0;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
