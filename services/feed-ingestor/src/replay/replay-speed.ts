/**
 * How fast a replay goes: a factor of the recorded pace (`1x` waits out the recorded gaps between
 * records, `10x` a tenth of them) or `max` (no waiting). The pacer holds each group of records
 * (one received frame, or the stored rows of one receive time) until its recorded offset from the
 * first, divided by the factor, has passed on the wall clock; it never hurries to catch up by
 * skipping, so a slow Kafka makes the replay late, never lossy.
 */
import { IngestorError } from '../errors.js';

/** A factor of the recorded pace, or undefined for `max`. */
export type ReplaySpeed = { factor: number } | 'max';

/** At most this much faster than recorded: beyond it, `max` is what is meant. */
const MAX_FACTOR = 1_000_000;

/** `1x`, `10x`, `0.5x`, `max`; `recorded` is the earlier spelling of `1x`. */
export function parseReplaySpeed(text: string): ReplaySpeed {
  if (text === 'max') return 'max';
  if (text === 'recorded') return { factor: 1 };
  const match = /^(\d+(?:\.\d+)?)x$/.exec(text);
  const factor = match ? Number(match[1]) : Number.NaN;
  if (!(factor > 0 && factor <= MAX_FACTOR)) {
    throw new IngestorError(
      'REPLAY_INVALID',
      `--speed must be a factor of the recorded pace such as 1x or 10x (above 0, at most ${MAX_FACTOR}x), or max; got "${text}"`,
    );
  }
  return { factor };
}

export interface PacerClock {
  /** Milliseconds, monotonic. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

const SYSTEM_CLOCK: PacerClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export class ReplayPacer {
  readonly #factor: number | undefined;
  readonly #clock: PacerClock;
  #firstMicros: number | undefined;
  #startedMs = 0;

  constructor(speed: ReplaySpeed, clock: PacerClock = SYSTEM_CLOCK) {
    this.#factor = speed === 'max' ? undefined : speed.factor;
    this.#clock = clock;
  }

  /** How long until the group recorded at `micros` is due (0 when due now or at max speed). */
  delayOf(micros: number): number {
    if (this.#factor === undefined) return 0;
    if (this.#firstMicros === undefined) {
      this.#firstMicros = micros;
      this.#startedMs = this.#clock.now();
    }
    const dueMs = this.#startedMs + (micros - this.#firstMicros) / 1000 / this.#factor;
    return Math.max(0, dueMs - this.#clock.now());
  }

  /** Waits until the group recorded at `micros` is due. */
  async waitFor(micros: number): Promise<void> {
    const delay = this.delayOf(micros);
    // Below a millisecond a timer only adds its own lateness.
    if (delay >= 1) await this.#clock.sleep(delay);
  }
}
