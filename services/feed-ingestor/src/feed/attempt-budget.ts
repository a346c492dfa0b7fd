/**
 * The budget of connection attempts of one client id, shared by every connection of the process
 * (spec: "more than 10 repeated invalid connection attempts may temporarily block the source IP").
 *
 * Every attempt takes a slot when it starts; a slot is given back once the attempt proves valid (the
 * feed answered with a ping or data), so only failed or unproven attempts stay counted. Slots live
 * for `windowMs`; at most `maxAttempts` exist at once, so no `windowMs` span ever holds more attempts
 * that could count as invalid than that, whatever the connections do. On top:
 * - after a failure, further attempts wait one shared, exponentially growing, fully jittered delay
 *   (capped), and only one attempt is in flight at a time until one succeeds: five connections
 *   probe one by one instead of burning five slots per round;
 * - a spent budget is a wait (until the oldest slot leaves the window), never a verdict: giving up
 *   is for failures that cannot heal (failure-class.ts).
 */
import { given, type OptionsSchema, readOptions } from '@feedpipe/config';
import { Backoff } from '@feedpipe/retry';
import { IngestorError } from '../errors.js';

export interface AttemptBudgetOptions {
  /**
   * Attempts that may be counted within `windowMs`; never exceeded. Default 8: the spec's threshold is
   * "more than 10", and two are left for attempts this process cannot see (another process on the
   * same address, a tool run by hand).
   */
  maxAttempts?: number;
  /** The sliding window, ms. Default 60 000 (the spec names no window; 60 s is the simulator's). */
  windowMs?: number;
  /** Shared delay after the first failure, ceiling of its full jitter. Default 500 ms. */
  initialBackoffMs?: number;
  /** Cap of the shared delay. Default 30 000 ms. */
  maxBackoffMs?: number;
  /** While a probe is in flight after failures, others look again after about this long. Default 250 ms. */
  probePollMs?: number;
  /** Random source in [0, 1), for tests. */
  random?: () => number;
  /** Clock, epoch ms, for tests. */
  now?: () => number;
}

/** Every option, with its range and default (AttemptBudgetOptions documents each). */
const ATTEMPT_BUDGET_OPTIONS = {
  // Above 10 the budget itself would allow what the spec says may block the address.
  maxAttempts: { kind: 'integer', min: 1, max: 10, default: 8 },
  windowMs: { kind: 'integer', min: 1, max: Number.MAX_SAFE_INTEGER, default: 60_000 },
  initialBackoffMs: { kind: 'number', min: 0, max: Number.MAX_SAFE_INTEGER, default: 500 },
  maxBackoffMs: { kind: 'number', min: 0, max: Number.MAX_SAFE_INTEGER, default: 30_000 },
  probePollMs: { kind: 'number', min: 0, max: Number.MAX_SAFE_INTEGER, default: 250 },
  ...given('random', 'now'),
} as const satisfies OptionsSchema;

export interface AttemptTicket {
  /** The attempt proved valid: its slot is given back and the shared backoff resets. */
  succeeded(): void;
  /** The attempt failed; `blocked` (HTTP 429) holds every attempt off for the whole window. */
  failed(blocked?: boolean): void;
}

interface Slot {
  at: number;
  state: 'pending' | 'failed';
}

export class AttemptBudget {
  readonly maxAttempts: number;
  readonly windowMs: number;
  private readonly probePollMs: number;
  private readonly now: () => number;
  private readonly backoff: Backoff;
  /** Oldest first; at most `maxAttempts`. */
  private readonly slots: Slot[] = [];
  private notBefore = 0;
  /** Start of the attempt whose failure last advanced the backoff: concurrent failures advance it once. */
  private lastAdvancedFor = Number.NEGATIVE_INFINITY;
  /** Attempts started, all time. */
  started = 0;
  /** Attempts that failed, all time. */
  failures = 0;

  constructor(options: AttemptBudgetOptions = {}) {
    const o = readOptions(ATTEMPT_BUDGET_OPTIONS, options, {
      where: 'attemptBudget',
      fail: (message) => new IngestorError('CONFIG_INVALID', message),
    });
    this.maxAttempts = o.maxAttempts;
    this.windowMs = o.windowMs;
    this.probePollMs = o.probePollMs;
    this.now = options.now ?? Date.now;
    this.backoff = new Backoff({
      initialMs: o.initialBackoffMs,
      maxMs: o.maxBackoffMs,
      floor: 0,
      random: options.random,
    });
  }

  /** Slots counted now (attempts in flight or failed within the window). */
  get counted(): number {
    this.prune(this.now());
    return this.slots.length;
  }

  /** 0 when an attempt may start now, else how long to wait before asking again. */
  delayMs(): number {
    const now = this.now();
    this.prune(now);
    let wait = Math.max(0, this.notBefore - now);
    const oldest = this.slots[0];
    const pending = this.slots.some((s) => s.state === 'pending');
    if (oldest && this.slots.length >= this.maxAttempts) {
      // Full: a pending slot may come back at any moment (its attempt proving valid), so look again
      // soon; only failed slots make the wait last until the oldest leaves the window.
      wait = Math.max(wait, pending ? this.probePollMs : oldest.at + this.windowMs - now);
    } else if (pending && this.failing()) {
      wait = Math.max(wait, this.probePollMs);
    }
    return wait;
  }

  /** A ticket when an attempt may start now (its slot is taken), else undefined: wait `delayMs()`. */
  tryBegin(): AttemptTicket | undefined {
    if (this.delayMs() > 0) return undefined;
    const slot: Slot = { at: this.now(), state: 'pending' };
    this.slots.push(slot);
    this.started += 1;
    let settled = false;
    return {
      succeeded: () => {
        if (settled) return;
        settled = true;
        const at = this.slots.indexOf(slot);
        if (at >= 0) this.slots.splice(at, 1);
        this.backoff.reset();
        this.notBefore = 0;
      },
      failed: (blocked = false) => {
        if (settled) return;
        settled = true;
        slot.state = 'failed';
        this.failures += 1;
        const now = this.now();
        if (blocked) {
          this.notBefore = Math.max(this.notBefore, now + this.windowMs);
        } else if (slot.at > this.lastAdvancedFor) {
          this.lastAdvancedFor = now;
          this.notBefore = Math.max(this.notBefore, now + this.backoff.next());
        }
      },
    };
  }

  private failing(): boolean {
    return this.slots.some((s) => s.state === 'failed');
  }

  private prune(now: number): void {
    while (this.slots.length > 0 && (this.slots[0] as Slot).at + this.windowMs <= now) this.slots.shift();
  }
}

/** Budgets by client id, shared by every pool of the process; bounded (client ids are few). */
const SHARED = new Map<string, AttemptBudget>();
const MAX_SHARED = 64;

/**
 * The process-wide budget of a client id. The first caller's options shape it; later callers share
 * it as it is.
 */
export function sharedAttemptBudget(clientId: string, options?: AttemptBudgetOptions): AttemptBudget {
  let budget = SHARED.get(clientId);
  if (!budget) {
    if (SHARED.size >= MAX_SHARED) {
      const oldest = SHARED.keys().next().value;
      if (oldest !== undefined) SHARED.delete(oldest);
    }
    budget = new AttemptBudget(options);
    SHARED.set(clientId, budget);
  }
  return budget;
}
