/**
 * A replay's progress on stderr, at most one line a period (default every 2 s) and one at the end:
 * records produced, their rate, the receive time reached and, with a bounded range, how far into it.
 * stdout stays free for the result (one JSON line).
 */
export interface ProgressState {
  produced: number;
  /** Receive time of the last group handed to Kafka, epoch microseconds. */
  atMicros: number | undefined;
}

export class ReplayProgress {
  readonly #write: (line: string) => void;
  readonly #periodMs: number;
  readonly #range: { fromMicros: number | undefined; toMicros: number | undefined };
  readonly #startedMs = performance.now();
  #lastMs = this.#startedMs;
  #firstMicros: number | undefined;

  constructor(
    write: (line: string) => void,
    range: { fromMicros: number | undefined; toMicros: number | undefined },
    periodMs = 2_000,
  ) {
    this.#write = write;
    this.#range = range;
    this.#periodMs = periodMs;
  }

  /** Says where the replay is, when a period has passed since the last line. */
  note(state: ProgressState): void {
    if (state.atMicros !== undefined) this.#firstMicros ??= state.atMicros;
    const now = performance.now();
    if (now - this.#lastMs < this.#periodMs) return;
    this.#lastMs = now;
    this.#write(this.line(state, now));
  }

  /** The last line, always written. */
  done(state: ProgressState): void {
    this.#write(`${this.line(state, performance.now())} (done)`);
  }

  line(state: ProgressState, nowMs: number): string {
    const seconds = (nowMs - this.#startedMs) / 1000;
    const rate = seconds > 0 ? Math.round(state.produced / seconds) : 0;
    let text = `replay: ${state.produced} records in ${seconds.toFixed(1)} s (${rate}/s)`;
    if (state.atMicros === undefined) return `${text}, nothing in the range yet`;
    text += `, at ${new Date(state.atMicros / 1000).toISOString()}`;
    const from = this.#range.fromMicros ?? this.#firstMicros;
    const to = this.#range.toMicros;
    if (from !== undefined && to !== undefined && to > from) {
      const share = Math.min(1, Math.max(0, (state.atMicros - from) / (to - from)));
      text += `, ${(share * 100).toFixed(1)}% of the range`;
    }
    return text;
  }
}
