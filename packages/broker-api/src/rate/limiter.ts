import { given, type OptionsSchema } from '@feedpipe/config';
import PQueue from 'p-queue';
import { type Clock, systemClock } from '../core/clock.js';
import { BrokerApiError, invalidArgument } from '../core/errors.js';
import { asRecord, readApiOptions, UNBOUNDED } from '../core/options.js';
import type { WrittenOn } from '../core/socket-write.js';
import {
  DEFAULT_LIMITS,
  DEFAULT_MAX_MODIFICATIONS_PER_ORDER,
  DEFAULT_OPTION_CHAIN_INTERVAL_MS,
  defaultCategoryOf,
  RATE_CATEGORIES,
  type RateCategory,
  type WindowLimit,
} from './categories.js';
import { publishGrant } from './grant-channel.js';
import { ModificationCounter } from './modification-counter.js';
import type { SharedSlots, SlotTicket } from './shared-slots.js';
import { WindowLog } from './window-log.js';

export interface RateLimiterOptions {
  /** Default true. With false every call goes at once (for a server without limits). */
  enabled?: boolean;
  /** Windows per category; a category given here replaces its defaults (see DEFAULT_LIMITS). */
  limits?: Partial<Record<RateCategory, readonly WindowLimit[]>>;
  /** Category per route, keyed `METHOD /path-template`, over the defaults of `defaultCategoryOf`. */
  categories?: Record<string, RateCategory>;
  /**
   * Default 20. Extra milliseconds after a full window before the next send, for clock granularity
   * at the service (windows already count from each request's end, see WindowLog).
   */
  windowMarginMs?: number;
  /**
   * Default 60,000. A call whose slot is further away than this fails at once with
   * BUDGET_EXHAUSTED (and `retryAt`) instead of waiting, e.g. when a day budget is spent.
   */
  maxWaitMs?: number;
  /** Default 10,000. Calls allowed to wait per category; more fail with QUEUE_FULL. */
  maxQueued?: number;
  /** Default 3,000. Minimum time between two identical option-chain requests. */
  optionChainIntervalMs?: number;
  /** Default 25. Modifications allowed per order. */
  maxModificationsPerOrder?: number;
  /** Default: the system clock. */
  clock?: Clock;
  /**
   * Categories whose windows count from each request's send instead of its answer. Default none.
   * The service counts a request when it arrives; counting from the answer (the default) is never
   * refused, whatever the delays, but leaves the request's round trip unused in every window: a
   * 1/s category then runs at 1 / (1 s + round trip + margin). Counting from the send uses the
   * whole window, and `windowMarginMs` must then cover how much later one request may arrive than
   * the one before it (a few ms on a local link, more across the internet).
   */
  countFromSend?: readonly RateCategory[];
  /**
   * Grants shared with the other processes of the account (see SharedSlots), for categories of
   * `countFromSend`: a slot is taken only when this process's lane and every process's grants
   * leave one. Default: none (the limiter paces its own process only).
   */
  sharedSlots?: SharedSlots;
}

/** Every key of RateLimiterOptions (documented there), with its range and default. */
const LIMITER_OPTIONS = {
  enabled: { kind: 'boolean', default: true },
  windowMarginMs: { kind: 'integer', min: 0, max: 10_000, default: 20 },
  maxWaitMs: { kind: 'integer', min: 0, max: UNBOUNDED, default: 60_000 },
  maxQueued: { kind: 'integer', min: 1, max: 10_000_000, default: 10_000 },
  optionChainIntervalMs: {
    kind: 'integer',
    min: 0,
    max: UNBOUNDED,
    default: DEFAULT_OPTION_CHAIN_INTERVAL_MS,
  },
  maxModificationsPerOrder: {
    kind: 'integer',
    min: 1,
    max: 1_000_000,
    default: DEFAULT_MAX_MODIFICATIONS_PER_ORDER,
  },
  // Each has a check of its own below (a map keyed by route or category, a port, a clock).
  ...given('limits', 'categories', 'clock', 'countFromSend', 'sharedSlots'),
} as const satisfies OptionsSchema;

/** One window of a category's limits. */
const WINDOW_OPTIONS = {
  windowMs: { kind: 'integer', min: 1, max: UNBOUNDED, required: true },
  max: { kind: 'integer', min: 1, max: 1_000_000, required: true },
} as const satisfies OptionsSchema;

/** Ends a request's hold on its slot; call once the request has ended. Idempotent. */
export type Release = () => void;

const noRelease: Release = () => undefined;

/** Wakes waiters whenever a request of the lane ends. */
class EndSignal {
  #waiters: (() => void)[] = [];

  wait(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = (): void => {
        this.#waiters = this.#waiters.filter((w) => w !== wake);
        reject(signal?.reason);
      };
      const wake = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.#waiters.push(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  notify(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}

interface Lane {
  readonly ended: EndSignal;
  readonly log: WindowLog;
  readonly limits: readonly WindowLimit[];
  /** Admission is FIFO and one at a time; the HTTP calls themselves then run concurrently. */
  readonly queue: PQueue;
  /** The window counts from the send (see RateLimiterOptions.countFromSend). */
  readonly fromSend: boolean;
  /** When the lane's latest request was granted (epoch ms of the clock). */
  lastGrant: number | undefined;
  /** What the lane's latest grant learnt of its request's connection (markSent). */
  latestPath: GrantPath | undefined;
  /** Where the lane's grants are shared with other processes, if they are. */
  readonly shared: SharedSlots | undefined;
  /** The shared slot of the lane's latest grant, moved when its request leaves. */
  lastTicket: SlotTicket | undefined;
}

/**
 * A request on a cold path (a connection just opened, whose first request the service reads after
 * accepting it) can arrive later after its send than the margin covers: a category counted from the
 * send counts such a request from its answer instead. Where the write was seen (markSent with its
 * connection), that decides; otherwise a request granted this long after the one before, or the
 * lane's first, is taken for cold, as its connection may have closed meanwhile.
 */
const COLD_AFTER_MS = 4_000;

interface GrantPath {
  readonly guessedCold: boolean;
  connection: WrittenOn | undefined;
}

const isCold = (path: GrantPath): boolean =>
  path.connection === undefined ? path.guessedCold : path.connection === 'fresh';

export interface CategoryStats {
  /** Calls waiting for a slot. */
  waiting: number;
  /** Calls sent and not yet ended. */
  inFlight: number;
  /** Slots granted within the last second and the last day. */
  lastSecond: number;
  lastDay: number;
}

/**
 * Paces calls per category so the client stays inside every sliding window of the spec. Calls wait
 * for their slot in FIFO order; a call that could only run after `maxWaitMs` fails fast.
 * One instance per account: share it between clients that use the same access token.
 */
export class RateLimiter {
  readonly enabled: boolean;
  readonly clock: Clock;
  readonly modifications: ModificationCounter;
  readonly #lanes = new Map<RateCategory, Lane>();
  readonly #categories: Record<string, RateCategory>;
  readonly #marginMs: number;
  readonly #maxWaitMs: number;
  readonly #maxQueued: number;
  readonly #keyIntervalMs: number;
  readonly #keyLast = new Map<string, number>();
  readonly #keyTails = new Map<string, Promise<void>>();

  constructor(options: RateLimiterOptions = {}) {
    const where = 'RateLimiter options';
    const v = readApiOptions(LIMITER_OPTIONS, options, where);
    this.enabled = v.enabled;
    this.#marginMs = v.windowMarginMs;
    this.#maxWaitMs = v.maxWaitMs;
    this.#maxQueued = v.maxQueued;
    this.#keyIntervalMs = v.optionChainIntervalMs;
    this.modifications = new ModificationCounter(v.maxModificationsPerOrder);
    this.clock = validateClock(options.clock) ?? systemClock;
    this.#categories = validateCategories(options.categories);
    const limits = validateLimits(options.limits);
    const fromSend = validateCountFromSend(options.countFromSend);
    const shared = validateSharedSlots(options.sharedSlots, fromSend);
    for (const category of RATE_CATEGORIES) {
      const windows = limits[category] ?? DEFAULT_LIMITS[category];
      this.#lanes.set(category, {
        limits: windows,
        log: new WindowLog(windows),
        ended: new EndSignal(),
        queue: new PQueue({ concurrency: 1 }),
        fromSend: fromSend.includes(category),
        lastGrant: undefined,
        latestPath: undefined,
        shared: shared?.categories.includes(category) ? shared : undefined,
        lastTicket: undefined,
      });
    }
  }

  /** Category of a route (`METHOD /path-template`). */
  categoryOf(route: string): RateCategory {
    return this.#categories[route] ?? defaultCategoryOf(route);
  }

  /** The windows in force for a category. */
  limitsOf(category: RateCategory): readonly WindowLimit[] {
    return this.#lane(category).limits;
  }

  /**
   * Waits for a slot in `category` and takes it. Call the returned release when the request has
   * ended (answer or failure): the slot stays taken until a window after that moment.
   */
  async acquire(category: RateCategory, route: string, signal?: AbortSignal): Promise<Release> {
    if (!this.enabled) return noRelease;
    const lane = this.#lane(category);
    const now = this.clock.now();
    if (lane.queue.size + lane.queue.pending >= this.#maxQueued) {
      throw new BrokerApiError({
        code: 'QUEUE_FULL',
        message: `${this.#maxQueued} calls already wait for a ${category} slot`,
        retryable: true,
        route,
      });
    }
    // Fail fast when a long budget (minute, hour, day) alone already pushes the call out too far.
    const longSlot = lane.log.nextSlot(now, this.#marginMs, this.#maxWaitMs);
    if (Number.isFinite(longSlot) && longSlot - now > this.#maxWaitMs) {
      throw budgetExhausted(category, route, longSlot);
    }
    let path: GrantPath | undefined;
    let ticket: SlotTicket | undefined;
    let dueAt = now;
    await lane.queue.add(
      async () => {
        // Bounded: each round grants the slot, fails, or waits for a time or for a request to end.
        for (let round = 0; round < 100_000; round++) {
          const t = this.clock.now();
          const at = lane.log.nextSlot(t, this.#marginMs);
          if (at <= t && lane.shared !== undefined) {
            // Another process of the account may hold the slot this one sees free.
            const claim = lane.shared.claim(category, lane.limits, t, this.#marginMs);
            if (!claim.granted) {
              if (claim.retryAt - t > this.#maxWaitMs) throw budgetExhausted(category, route, claim.retryAt);
              dueAt = claim.retryAt;
              await this.#sleepUntil(lane, Math.max(t + 1, claim.retryAt), signal);
              continue;
            }
            ticket = claim.ticket;
            lane.lastTicket = ticket;
          }
          if (at <= t) {
            // From the send: the slot is recorded as ended now, so it never counts as in flight.
            if (lane.fromSend) lane.log.end(t);
            else lane.log.begin();
            path = {
              guessedCold: lane.lastGrant === undefined || t - lane.lastGrant > COLD_AFTER_MS,
              connection: undefined,
            };
            lane.latestPath = path;
            lane.lastGrant = t;
            publishGrant({ category, route, askedAt: now, dueAt, grantedAt: t });
            return;
          }
          if (!Number.isFinite(at)) {
            await lane.ended.wait(signal);
            continue;
          }
          if (at - t > this.#maxWaitMs) throw budgetExhausted(category, route, at);
          dueAt = at;
          await this.#sleepUntil(lane, at, signal);
        }
        throw new BrokerApiError({ code: 'QUEUE_FULL', message: `no ${category} slot found`, route });
      },
      signal === undefined ? {} : { signal },
    );
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (!lane.fromSend) lane.log.end(this.clock.now());
      else if (path !== undefined && isCold(path)) {
        const now = this.clock.now();
        lane.log.delayLatest(now);
        if (ticket !== undefined) lane.shared?.moveLater(ticket, now);
      }
      lane.ended.notify();
    };
  }

  /**
   * A request of `category` is leaving now (`time`), after its slot was granted. For a category
   * counted from the send, its slot moves to this moment: a request held up between grant and send
   * (a busy event loop, a token fetch) must not let the next one follow it too closely. With
   * `connection`, the request was seen written on its socket: on a fresh connection it is counted
   * from its answer, on a reused one from its send (see COLD_AFTER_MS). A fresh write heard of
   * once stays fresh: another request's write told to this one can only make it more careful.
   */
  markSent(category: RateCategory, time: number, connection?: WrittenOn): void {
    const lane = this.#lanes.get(category);
    if (!lane?.fromSend) return;
    const path = lane.latestPath;
    if (connection !== undefined && path !== undefined && path.connection !== 'fresh')
      path.connection = connection;
    lane.log.delayLatest(time);
    if (lane.lastTicket !== undefined) lane.shared?.moveLater(lane.lastTicket, time);
  }

  /**
   * Like `acquire`, and also keeps identical requests (same `key`) at least
   * `optionChainIntervalMs` apart, counted from the end of the previous one: the option chain's
   * "one unique request per 3 s".
   */
  async acquireKeyed(
    category: RateCategory,
    route: string,
    key: string,
    signal?: AbortSignal,
  ): Promise<Release> {
    if (!this.enabled) return noRelease;
    const previous = this.#keyTails.get(key) ?? Promise.resolve();
    let finished: () => void = () => undefined;
    const tail = new Promise<void>((resolve) => {
      finished = resolve;
    });
    this.#keyTails.set(key, tail);
    let release: Release;
    try {
      await previous;
      const last = this.#keyLast.get(key);
      if (last !== undefined) {
        const wait = last + this.#keyIntervalMs + this.#marginMs - this.clock.now();
        if (wait > 0) await this.clock.sleep(wait, signal);
      }
      release = await this.acquire(category, route, signal);
    } catch (error) {
      this.#endKey(key, tail, finished);
      throw error;
    }
    return () => {
      release();
      this.#keyLast.set(key, this.clock.now());
      this.#pruneKeys();
      this.#endKey(key, tail, finished);
    };
  }

  #endKey(key: string, tail: Promise<void>, finished: () => void): void {
    if (this.#keyTails.get(key) === tail) this.#keyTails.delete(key);
    finished();
  }

  stats(): Record<RateCategory, CategoryStats> {
    const now = this.clock.now();
    const out = {} as Record<RateCategory, CategoryStats>;
    for (const category of RATE_CATEGORIES) {
      const lane = this.#lane(category);
      out[category] = {
        waiting: lane.queue.size + lane.queue.pending,
        inFlight: lane.log.inFlight,
        lastSecond: lane.log.countWithin(now, 1000),
        lastDay: lane.log.countWithin(now, 86_400_000),
      };
    }
    return out;
  }

  /**
   * Waits for a slot's time. A lane counted from the send waits with the clock's precise wait where
   * it has one: there a send late by a millisecond is a millisecond of the category given up.
   */
  #sleepUntil(lane: Lane, at: number, signal: AbortSignal | undefined): Promise<void> {
    if (lane.fromSend && this.clock.sleepUntil !== undefined) return this.clock.sleepUntil(at, signal);
    return this.clock.sleep(at - this.clock.now(), signal);
  }

  #lane(category: RateCategory): Lane {
    const lane = this.#lanes.get(category);
    if (lane === undefined) throw invalidArgument(`unknown rate category "${category}"`);
    return lane;
  }

  /** Keeps the identical-request map bounded: entries older than the interval no longer matter. */
  #pruneKeys(): void {
    if (this.#keyLast.size < 1000) return;
    const cutoff = this.clock.now() - this.#keyIntervalMs - this.#marginMs;
    for (const [key, at] of this.#keyLast) if (at < cutoff) this.#keyLast.delete(key);
  }
}

function budgetExhausted(category: RateCategory, route: string, at: number): BrokerApiError {
  return new BrokerApiError({
    code: 'BUDGET_EXHAUSTED',
    message: `the ${category} rate budget is spent; the call can run at ${new Date(at).toISOString()}`,
    retryable: true,
    retryAt: at,
    route,
  });
}

function validateClock(clock: unknown): Clock | undefined {
  if (clock === undefined) return undefined;
  const c = clock as Partial<Clock>;
  if (typeof c !== 'object' || typeof c.now !== 'function' || typeof c.sleep !== 'function') {
    throw invalidArgument('RateLimiter options: "clock" must have now() and sleep()');
  }
  return clock as Clock;
}

function validateCountFromSend(value: unknown): readonly RateCategory[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((c) => !RATE_CATEGORIES.includes(c as RateCategory))) {
    throw invalidArgument(
      `RateLimiter options: "countFromSend" must list categories of ${RATE_CATEGORIES.join(', ')}`,
    );
  }
  return [...(value as RateCategory[])];
}

function validateSharedSlots(value: unknown, fromSend: readonly RateCategory[]): SharedSlots | undefined {
  if (value === undefined) return undefined;
  const s = value as Partial<SharedSlots>;
  if (
    typeof s !== 'object' ||
    s === null ||
    typeof s.claim !== 'function' ||
    typeof s.moveLater !== 'function' ||
    !Array.isArray(s.categories)
  ) {
    throw invalidArgument('RateLimiter options: "sharedSlots" must have categories, claim() and moveLater()');
  }
  const notFromSend = s.categories.filter((c) => !fromSend.includes(c));
  if (notFromSend.length > 0) {
    throw invalidArgument(
      `RateLimiter options: "sharedSlots" shares ${notFromSend.join(', ')}, which "countFromSend" must list (a shared grant is one point in time)`,
    );
  }
  return value as SharedSlots;
}

function validateCategories(value: unknown): Record<string, RateCategory> {
  if (value === undefined) return {};
  const record = asRecord(value, 'RateLimiter options "categories"');
  for (const [route, category] of Object.entries(record)) {
    if (!/^(GET|POST|PUT|DELETE) \/\S*$/.test(route)) {
      throw invalidArgument(`RateLimiter options "categories": key "${route}" must be "METHOD /path"`);
    }
    if (!RATE_CATEGORIES.includes(category as RateCategory)) {
      throw invalidArgument(
        `RateLimiter options "categories": "${route}" must map to one of ${RATE_CATEGORIES.join(', ')}`,
      );
    }
  }
  return { ...(record as Record<string, RateCategory>) };
}

function validateLimits(value: unknown): Partial<Record<RateCategory, readonly WindowLimit[]>> {
  if (value === undefined) return {};
  const where = 'RateLimiter options "limits"';
  const record = asRecord(value, where);
  for (const key of Object.keys(record))
    if (!RATE_CATEGORIES.includes(key as RateCategory))
      throw invalidArgument(`${where}: unknown option "${key}" (allowed: ${RATE_CATEGORIES.join(', ')})`);
  const out: Partial<Record<RateCategory, readonly WindowLimit[]>> = {};
  for (const [category, windows] of Object.entries(record)) {
    if (!Array.isArray(windows)) throw invalidArgument(`${where}.${category} must be an array`);
    out[category as RateCategory] = windows.map((w, i) =>
      readApiOptions(WINDOW_OPTIONS, w, `${where}.${category}[${i}]`),
    );
  }
  return out;
}
