/**
 * One task at a time per slot, in arrival order, with a bounded queue: the unit of isolation of the
 * embedded engine. A slot stands for one engine session; a task's whole life (the statement, and
 * after a failure the clean-up of its session) runs inside its turn on its slot, so nothing else can
 * observe that session in between. With several slots (a lane of several sessions) tasks run in
 * parallel, each on a session of its own, and wait in one queue for whichever slot frees first.
 *
 * Limits and their behaviour: at most `maxQueued` tasks wait (the next one is refused with
 * STORE_BUSY at once, never queued), and a task still waiting after `maxWaitMs` is refused with
 * STORE_BUSY then and there, and never starts (its caller has been told no; running it later would
 * spend the engine on an answer nobody reads).
 */
import { StoreError } from '../errors.js';

export interface LaneLimits {
  /** Tasks allowed to wait for their turn. */
  maxQueued: number;
  /** Longest wait for a turn, ms. */
  maxWaitMs: number;
  /** Embedded chDB: sessions of the lane, i.e. statements it runs at once (ignored on a server). */
  sessions: number;
}

export interface LaneStats {
  /** Tasks holding a slot. */
  running: number;
  queued: number;
  /** Tasks refused because the queue was full or the wait too long. */
  refused: number;
  /** Tasks run to the end (successfully or not). */
  completed: number;
}

interface Waiter {
  start: (slot: number) => void;
  timer: ReturnType<typeof setTimeout>;
  /** Set when the wait timed out: the waiter stays in the queue but is skipped. */
  gone: boolean;
}

export class ExclusiveLane {
  readonly #name: string;
  readonly #limits: LaneLimits;
  readonly #now: () => number;
  // A plain array with a moving head: the queue is bounded by maxQueued, and the head is
  // compacted away once it passes half the array, so the memory stays bounded too.
  #queue: Waiter[] = [];
  #head = 0;
  /** Slots no task holds. */
  readonly #free: number[];
  readonly #slots: number;
  #closed = false;
  #refused = 0;
  #completed = 0;

  constructor(name: string, limits: LaneLimits, now: () => number = Date.now) {
    this.#name = name;
    this.#limits = limits;
    this.#now = now;
    this.#slots = limits.sessions;
    this.#free = Array.from({ length: limits.sessions }, (_, i) => limits.sessions - 1 - i);
  }

  /** Slots of the lane: sessions a caller must open, one per slot index. */
  get slots(): number {
    return this.#slots;
  }

  get stats(): LaneStats {
    return {
      running: this.#slots - this.#free.length,
      queued: this.#waiting(),
      refused: this.#refused,
      completed: this.#completed,
    };
  }

  /**
   * Runs `task` on a free slot (given to it); the slot stays held until the task's promise
   * settles, then goes straight to the next waiter.
   */
  async run<T>(task: (slot: number) => Promise<T>): Promise<T> {
    if (this.#closed) throw new StoreError('STORE_CLOSED', `the store's ${this.#name} lane is closed`);
    const slot = this.#free.length > 0 ? (this.#free.pop() as number) : await this.#wait();
    try {
      return await task(slot);
    } finally {
      this.#completed += 1;
      this.#next(slot);
    }
  }

  /** Refuses new tasks; resolves once the running task and those already queued are done. */
  async close(): Promise<void> {
    this.#closed = true;
    for (let i = 0; i < 100_000 && (this.#free.length < this.#slots || this.#waiting() > 0); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  #wait(): Promise<number> {
    if (this.#waiting() >= this.#limits.maxQueued) {
      this.#refused += 1;
      throw new StoreError(
        'STORE_BUSY',
        `the store's ${this.#name} lane has ${this.#limits.maxQueued} queries waiting; try again later`,
        { retryable: true },
      );
    }
    const enqueuedAt = this.#now();
    return new Promise<number>((start, refuse) => {
      const waiter: Waiter = {
        start,
        gone: false,
        timer: setTimeout(() => {
          waiter.gone = true;
          this.#refused += 1;
          refuse(
            new StoreError(
              'STORE_BUSY',
              `waited ${this.#now() - enqueuedAt} ms for the store's ${this.#name} lane (limit ${this.#limits.maxWaitMs} ms); try again later`,
              { retryable: true },
            ),
          );
        }, this.#limits.maxWaitMs),
      };
      this.#queue.push(waiter);
    });
  }

  #waiting(): number {
    let n = 0;
    for (let i = this.#head; i < this.#queue.length; i++) if (!(this.#queue[i] as Waiter).gone) n += 1;
    return n;
  }

  /** Hands the freed `slot` to the first live waiter, or marks it free. */
  #next(slot: number): void {
    while (this.#head < this.#queue.length) {
      const waiter = this.#queue[this.#head] as Waiter;
      this.#head += 1;
      if (this.#head * 2 > this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head);
        this.#head = 0;
      }
      if (waiter.gone) continue;
      clearTimeout(waiter.timer);
      // Handed over directly: the slot never looks free between two tasks, so a newcomer cannot
      // overtake the queue.
      waiter.start(slot);
      return;
    }
    this.#free.push(slot);
  }
}
