/**
 * Delivers postbacks: every order-side event of an account with a registered URL is POSTed there
 * as JSON. Updates of one order id (per URL) form a lane and go strictly one after another, so a
 * receiver sees each order's transitions in order; different lanes run side by side up to
 * `maxConcurrent`. A failed POST (network error, timeout, 408, 425, 429, 5xx) is retried with
 * exponential backoff and jitter until the update has waited `giveUpAfterMs`, then it is dropped
 * and counted; any other 4xx answer is final (the receiver refused it: retrying cannot help).
 * Everything is bounded: `maxQueued` updates wait at most, beyond that new ones are counted in
 * `overflow`, and every retry loop ends at the give-up time.
 */
import type { OrderEvents } from '../accounts/registry.js';
import type { ResolvedPostbackOptions } from './options.js';
import { alertUpdate, foreverUpdate, orderUpdate, type PostbackUpdate, usOrderUpdate } from './payload.js';
import type { PostbackRegistry } from './registry.js';

export interface PostbackStats {
  /** POSTs answered 2xx. */
  delivered: number;
  /** Failed attempts that were scheduled again. */
  retries: number;
  /** Updates dropped after retrying for `giveUpAfterMs`. */
  gaveUp: number;
  /** Updates the receiver refused with a final 4xx. */
  refused: number;
  /** Updates not queued because `maxQueued` were already waiting. */
  overflow: number;
  /** gaveUp + refused + overflow: updates the receiver will never get from this simulator. */
  dropped: number;
  /** Updates waiting or in flight now. */
  queued: number;
  inFlight: number;
}

export interface DispatcherDeps {
  /** Default globalThis.fetch. */
  fetch?: typeof fetch;
  /** Real clock in epoch ms for give-up times. Default Date.now. */
  now?: () => number;
  /** Jitter source in [0, 1). Default Math.random. */
  random?: () => number;
}

interface Item {
  readonly url: string;
  readonly update: PostbackUpdate;
  readonly queuedAt: number;
}

interface Lane {
  readonly id: string;
  readonly items: Item[];
  /** Failed attempts of the head item. */
  attempt: number;
  busy: boolean;
  timer: ReturnType<typeof setTimeout> | undefined;
}

type Outcome = 'ok' | 'retry' | 'final';

export class PostbackDispatcher {
  private readonly lanes = new Map<string, Lane>();
  /** Lanes whose head can be sent now, oldest first (a Set: O(1) removal of the first). */
  private readonly ready = new Set<Lane>();
  private readonly abort = new AbortController();
  private readonly counters = { delivered: 0, retries: 0, gaveUp: 0, refused: 0, overflow: 0 };
  private queued = 0;
  private inFlight = 0;
  private closed = false;
  private readonly fetchImpl: typeof fetch;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly detach: () => void;

  constructor(
    events: OrderEvents,
    private readonly registry: PostbackRegistry,
    private readonly options: ResolvedPostbackOptions,
    deps: DispatcherDeps = {},
  ) {
    this.fetchImpl = deps.fetch ?? fetch;
    this.now = deps.now ?? Date.now;
    this.random = deps.random ?? Math.random;
    const onOrder = (...a: Parameters<typeof orderUpdate>) => this.publish(orderUpdate(...a));
    const onUs = (...a: Parameters<typeof usOrderUpdate>) => this.publish(usOrderUpdate(...a));
    const onForever = (...a: Parameters<typeof foreverUpdate>) => this.publish(foreverUpdate(...a));
    const onAlert = (...a: Parameters<typeof alertUpdate>) => this.publish(alertUpdate(...a));
    events.on('order', onOrder).on('usOrder', onUs).on('forever', onForever).on('alert', onAlert);
    this.detach = () => {
      events.off('order', onOrder).off('usOrder', onUs).off('forever', onForever).off('alert', onAlert);
    };
  }

  stats(): PostbackStats {
    const c = this.counters;
    return {
      ...c,
      dropped: c.gaveUp + c.refused + c.overflow,
      queued: this.queued,
      inFlight: this.inFlight,
    };
  }

  /** Queues `update` for every URL registered for its account. */
  publish(update: PostbackUpdate): void {
    if (this.closed) return;
    for (const url of this.registry.targets(update.clientId)) {
      if (this.queued >= this.options.maxQueued) {
        this.counters.overflow += 1;
        continue;
      }
      const id = `${url}\n${update.key}`;
      let lane = this.lanes.get(id);
      if (!lane) {
        lane = { id, items: [], attempt: 0, busy: false, timer: undefined };
        this.lanes.set(id, lane);
      }
      lane.items.push({ url, update, queuedAt: this.now() });
      this.queued += 1;
      if (lane.items.length === 1 && !lane.busy && lane.timer === undefined) this.markReady(lane);
    }
  }

  /** Stops listening and delivering; updates still queued are discarded. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.detach();
    this.abort.abort();
    for (const lane of this.lanes.values()) if (lane.timer) clearTimeout(lane.timer);
    this.lanes.clear();
    this.ready.clear();
  }

  private markReady(lane: Lane): void {
    this.ready.add(lane);
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.inFlight < this.options.maxConcurrent) {
      const next = this.ready.values().next();
      if (next.done) return;
      this.ready.delete(next.value);
      this.send(next.value);
    }
  }

  private send(lane: Lane): void {
    const item = lane.items[0];
    if (!item) return;
    lane.busy = true;
    this.inFlight += 1;
    void this.attempt(item).then((outcome) => {
      this.inFlight -= 1;
      lane.busy = false;
      if (!this.closed) this.settle(lane, item, outcome);
      this.pump();
    });
  }

  private settle(lane: Lane, item: Item, outcome: Outcome): void {
    if (outcome === 'retry') {
      lane.attempt += 1;
      const delay = this.backoff(lane.attempt);
      if (this.now() + delay - item.queuedAt <= this.options.giveUpAfterMs) {
        this.counters.retries += 1;
        lane.timer = setTimeout(() => {
          lane.timer = undefined;
          this.markReady(lane);
        }, delay);
        lane.timer.unref?.();
        return;
      }
      this.counters.gaveUp += 1;
    } else if (outcome === 'ok') {
      this.counters.delivered += 1;
    } else {
      this.counters.refused += 1;
    }
    lane.items.shift();
    this.queued -= 1;
    lane.attempt = 0;
    if (lane.items.length > 0) this.markReady(lane);
    else this.lanes.delete(lane.id);
  }

  /** Exponential with "equal jitter": half the step is fixed, half random, so retries spread out. */
  private backoff(attempt: number): number {
    const step = Math.min(this.options.retryMaxMs, this.options.retryBaseMs * 2 ** Math.min(attempt - 1, 30));
    return Math.max(1, Math.round(step / 2 + (this.random() * step) / 2));
  }

  private async attempt(item: Item): Promise<Outcome> {
    try {
      const signal = AbortSignal.any([this.abort.signal, AbortSignal.timeout(this.options.requestTimeoutMs)]);
      const res = await this.fetchImpl(item.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: item.update.body,
        signal,
      });
      // Read the answer to the end so the connection goes back to the pool.
      await res.arrayBuffer().catch(() => undefined);
      if (res.status >= 200 && res.status < 300) return 'ok';
      if (res.status === 408 || res.status === 425 || res.status === 429 || res.status >= 500) return 'retry';
      return 'final';
    } catch {
      return 'retry';
    }
  }
}
