import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  defaultCategoryOf,
  ManualClock,
  RATE_GRANT_CHANNEL,
  type RateGrantEvent,
  RateLimiter,
} from '../src/index.js';
import { maxInWindow, runWithClock } from './helpers.js';

const DAY = 86_400_000;

/** Fires `count` acquisitions at once and returns the simulated time each one was granted. */
async function grantTimes(
  limiter: RateLimiter,
  clock: ManualClock,
  count: number,
  category: 'order' | 'data' | 'quote' | 'nonTrading',
  maxSimMs: number,
): Promise<number[]> {
  const times: number[] = [];
  const all = Promise.all(
    Array.from({ length: count }, () =>
      limiter.acquire(category, 'POST /orders').then((release) => {
        times.push(clock.now());
        // The answer comes back at once; the slot is held until a window after that.
        release();
      }),
    ),
  );
  await runWithClock(clock, all, maxSimMs);
  return times;
}

describe('RateLimiter', () => {
  it('keeps orders within 10 per second and 250 per minute, in sliding windows', async () => {
    const clock = new ManualClock(1_000_000);
    const limiter = new RateLimiter({ clock, windowMarginMs: 0 });
    const times = await grantTimes(limiter, clock, 300, 'order', 10 * 60_000);
    expect(times).toHaveLength(300);
    expect(maxInWindow(times, 1000)).toBe(10);
    expect(maxInWindow(times, 60_000)).toBe(250);
    // The first ten go at once, the eleventh exactly one window later.
    expect(times.slice(0, 10).every((t) => t === 1_000_000)).toBe(true);
    expect(times[10]).toBe(1_001_000);
    // The 251st waits for the minute window: 60 s after the first.
    expect(times[250]).toBe(1_060_000);
  });

  it('counts a category listed in countFromSend from each send, whatever the answer takes', async () => {
    const clock = new ManualClock(0);
    const limiter = new RateLimiter({ clock, windowMarginMs: 5, countFromSend: ['quote'] });
    const granted: number[] = [];
    const releases: Array<() => void> = [];
    const all = Promise.all(
      Array.from({ length: 4 }, () =>
        limiter.acquire('quote', 'POST /marketfeed/quote').then((release) => {
          granted.push(clock.now());
          // Answers stay out: the next slot does not wait for them.
          releases.push(release);
        }),
      ),
    );
    await runWithClock(clock, all, 10_000);
    expect(granted).toEqual([0, 1005, 2010, 3015]);
    // A request that leaves later than its grant moves its slot: the next waits a window from then.
    limiter.markSent('quote', 3045);
    const late = limiter.acquire('quote', 'POST /marketfeed/quote').then((release) => {
      granted.push(clock.now());
      release();
    });
    await runWithClock(clock, late, 10_000);
    expect(granted[4]).toBe(4050);
    expect(limiter.stats().quote.inFlight).toBe(0);
    for (const release of releases) release();
    // The other categories still count from the answer.
    expect(() => new RateLimiter({ countFromSend: ['bulk' as 'quote'] })).toThrow(/countFromSend/);
  });

  it('waits for a slot counted from the send with the clock precise wait, for others with sleep', async () => {
    const precise: number[] = [];
    class PreciseClock extends ManualClock {
      sleepUntil(at: number, signal?: AbortSignal): Promise<void> {
        precise.push(at);
        return this.sleep(at - this.now(), signal);
      }
    }
    const clock = new PreciseClock(0);
    const limiter = new RateLimiter({ clock, windowMarginMs: 5, countFromSend: ['quote'] });
    const quotes = await grantTimes(limiter, clock, 3, 'quote', 10_000);
    expect(quotes).toEqual([0, 1005, 2010]);
    expect(precise).toEqual([1005, 2010]);
    // The data category counts from the answer and waits with sleep.
    const data = await grantTimes(limiter, clock, 7, 'data', 10_000);
    expect(data[5]).toBe((data[0] as number) + 1005);
    expect(precise).toEqual([1005, 2010]);
  });

  it('publishes each grant with when it was asked for and when its slot was due', async () => {
    const grants: RateGrantEvent[] = [];
    const listen = (message: unknown): void => {
      grants.push(message as RateGrantEvent);
    };
    subscribe(RATE_GRANT_CHANNEL, listen);
    try {
      const clock = new ManualClock(0);
      const limiter = new RateLimiter({ clock, windowMarginMs: 5, countFromSend: ['quote'] });
      await grantTimes(limiter, clock, 2, 'quote', 10_000);
      expect(grants).toEqual([
        { category: 'quote', route: 'POST /orders', askedAt: 0, dueAt: 0, grantedAt: 0 },
        { category: 'quote', route: 'POST /orders', askedAt: 0, dueAt: 1005, grantedAt: 1005 },
      ]);
    } finally {
      unsubscribe(RATE_GRANT_CHANNEL, listen);
    }
  });

  it('counts a first request, or one after a pause, from its answer: its path may be cold', async () => {
    const clock = new ManualClock(0);
    const limiter = new RateLimiter({ clock, windowMarginMs: 5, countFromSend: ['quote'] });
    const grantAfter = async (answerMs: number): Promise<number> => {
      const release = await limiter.acquire('quote', 'POST /marketfeed/quote');
      const at = clock.now();
      await clock.advance(answerMs);
      release();
      return at;
    };
    const times: number[] = [];
    const run = (async () => {
      times.push(await grantAfter(300)); // cold: counted from 300
      times.push(await grantAfter(300)); // warm: counted from its send
      times.push(await grantAfter(10));
    })();
    await runWithClock(clock, run, 20_000);
    expect(times).toEqual([0, 1305, 2310]);
    await clock.advance(10_000); // a pause: cold again
    const after = (async () => {
      times.push(await grantAfter(200));
      times.push(await grantAfter(0));
    })();
    await runWithClock(clock, after, 20_000);
    expect((times[4] as number) - (times[3] as number)).toBe(1205);
  });

  it('judges a request seen written by its connection: fresh from its answer, reused from its send', async () => {
    const clock = new ManualClock(0);
    const limiter = new RateLimiter({ clock, windowMarginMs: 5, countFromSend: ['quote'] });
    const sendOn = async (connection: 'fresh' | 'reused', answerMs: number): Promise<number> => {
      const release = await limiter.acquire('quote', 'POST /marketfeed/quote');
      const at = clock.now();
      limiter.markSent('quote', at, connection);
      await clock.advance(answerMs);
      release();
      return at;
    };
    const times: number[] = [];
    const run = (async () => {
      // The lane's first request, but on a connection that carried one before: from its send.
      times.push(await sendOn('reused', 300));
      times.push(await sendOn('fresh', 200)); // a new connection: from its answer
      times.push(await sendOn('reused', 0));
    })();
    await runWithClock(clock, run, 20_000);
    expect(times).toEqual([0, 1005, 2210]);
    await clock.advance(10_000); // a pause, on a connection kept open: still from the send
    const after = (async () => {
      times.push(await sendOn('reused', 200));
      times.push(await sendOn('reused', 0));
    })();
    await runWithClock(clock, after, 20_000);
    expect((times[4] as number) - (times[3] as number)).toBe(1005);
  });

  it('holds a slot while its request is in flight and counts the window from its end', async () => {
    const clock = new ManualClock(0);
    const limiter = new RateLimiter({ clock, windowMarginMs: 0 });
    const release = await limiter.acquire('quote', 'POST /marketfeed/ltp');
    let grantedAt: number | undefined;
    const next = limiter.acquire('quote', 'POST /marketfeed/ltp').then((r) => {
      grantedAt = clock.now();
      r();
    });
    await clock.advance(5000);
    expect(grantedAt).toBeUndefined();
    expect(limiter.stats().quote).toMatchObject({ inFlight: 1, waiting: 1 });
    release();
    await runWithClock(clock, next, 10_000);
    // The slow answer ended at 5000 ms; the service may have counted it as late as that.
    expect(grantedAt).toBe(6000);
  });

  it('adds the safety margin after a full window', async () => {
    const clock = new ManualClock(0);
    const limiter = new RateLimiter({ clock, windowMarginMs: 50 });
    const times = await grantTimes(limiter, clock, 3, 'quote', 10_000);
    expect(times).toEqual([0, 1050, 2100]);
  });

  it('paces the data category at 5 per second and quotes at 1 per second', async () => {
    const clock = new ManualClock(0);
    const limiter = new RateLimiter({ clock, windowMarginMs: 0 });
    const data = await grantTimes(limiter, clock, 23, 'data', 60_000);
    expect(maxInWindow(data, 1000)).toBe(5);
    expect(Math.max(...data)).toBe(4000);
    const quotes = await grantTimes(limiter, clock, 4, 'quote', 60_000);
    expect(maxInWindow(quotes, 1000)).toBe(1);
  });

  it('fails fast with BUDGET_EXHAUSTED and retryAt when a day budget is spent', async () => {
    const clock = new ManualClock(5_000);
    const limiter = new RateLimiter({
      clock,
      windowMarginMs: 0,
      limits: { data: [{ windowMs: DAY, max: 3 }] },
    });
    for (let i = 0; i < 3; i++) (await limiter.acquire('data', 'POST /charts/intraday'))();
    const error = await limiter.acquire('data', 'POST /charts/intraday').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'BUDGET_EXHAUSTED', retryAt: 5_000 + DAY, retryable: true });
    expect(clock.pendingSleeps).toBe(0);
    await clock.advance(DAY);
    await expect(limiter.acquire('data', 'POST /charts/intraday')).resolves.toBeTypeOf('function');
  });

  it('keeps identical option-chain requests 3 s apart but lets different ones through', async () => {
    const clock = new ManualClock(0);
    const limiter = new RateLimiter({ clock, windowMarginMs: 0 });
    const times: Record<string, number[]> = { a: [], b: [] };
    const work = Promise.all([
      ...[1, 2, 3].map(() =>
        limiter.acquireKeyed('data', 'POST /optionchain', 'a').then((release) => {
          times.a?.push(clock.now());
          release();
        }),
      ),
      limiter.acquireKeyed('data', 'POST /optionchain', 'b').then((release) => {
        times.b?.push(clock.now());
        release();
      }),
    ]);
    await runWithClock(clock, work, 60_000);
    expect(times.a).toEqual([0, 3000, 6000]);
    expect(times.b).toEqual([0]);
  });

  it('allows 25 modifications per order and refuses the 26th', () => {
    const limiter = new RateLimiter();
    for (let i = 0; i < 25; i++) limiter.modifications.take('42', 'PUT /orders/{order-id}');
    expect(() => limiter.modifications.take('42', 'PUT /orders/{order-id}')).toThrow(
      expect.objectContaining({ code: 'MODIFICATION_LIMIT' }),
    );
    expect(() => limiter.modifications.take('43', 'PUT /orders/{order-id}')).not.toThrow();
  });

  it('refuses more waiting calls than maxQueued', async () => {
    const clock = new ManualClock(0);
    const limiter = new RateLimiter({ clock, maxQueued: 2, limits: { quote: [{ windowMs: 1000, max: 1 }] } });
    const first = limiter.acquire('quote', 'POST /marketfeed/ltp').then((release) => release());
    const second = limiter.acquire('quote', 'POST /marketfeed/ltp').then((release) => release());
    await expect(limiter.acquire('quote', 'POST /marketfeed/ltp')).rejects.toMatchObject({
      code: 'QUEUE_FULL',
    });
    await runWithClock(clock, Promise.all([first, second]), 10_000);
  });

  it('lets a caller abort a call that waits for its slot', async () => {
    const clock = new ManualClock(0);
    const limiter = new RateLimiter({ clock });
    (await limiter.acquire('quote', 'POST /marketfeed/ltp'))();
    const controller = new AbortController();
    const waiting = limiter.acquire('quote', 'POST /marketfeed/ltp', controller.signal);
    await clock.advance(10);
    expect(clock.pendingSleeps).toBe(1);
    controller.abort();
    await expect(waiting).rejects.toBeDefined();
    expect(clock.pendingSleeps).toBe(0);
  });

  it('maps routes to the documented default categories, with overrides', () => {
    expect(defaultCategoryOf('POST /orders')).toBe('order');
    expect(defaultCategoryOf('PUT /orders/{order-id}')).toBe('order');
    expect(defaultCategoryOf('POST /orders/slicing')).toBe('order');
    expect(defaultCategoryOf('DELETE /super/orders/{order-id}/{order-leg}')).toBe('order');
    expect(defaultCategoryOf('POST /alerts/multi/orders')).toBe('order');
    expect(defaultCategoryOf('PUT /globalstocks/orders/{order-id}')).toBe('order');
    expect(defaultCategoryOf('GET /orders')).toBe('nonTrading');
    expect(defaultCategoryOf('POST /charts/intraday')).toBe('data');
    expect(defaultCategoryOf('POST /optionchain/expirylist')).toBe('data');
    expect(defaultCategoryOf('POST /marketfeed/quote')).toBe('quote');
    expect(defaultCategoryOf('GET /fundlimit')).toBe('nonTrading');
    const limiter = new RateLimiter({ categories: { 'GET /ledger': 'data' } });
    expect(limiter.categoryOf('GET /ledger')).toBe('data');
    expect(limiter.categoryOf('GET /holdings')).toBe('nonTrading');
  });

  it('rejects unknown and invalid options at construction', () => {
    expect(() => new RateLimiter({ perSecond: 3 } as never)).toThrow(
      'RateLimiter options: unknown option "perSecond" (allowed: enabled, windowMarginMs, maxWaitMs, maxQueued, optionChainIntervalMs, maxModificationsPerOrder, limits, categories, clock, countFromSend, sharedSlots)',
    );
    expect(() => new RateLimiter({ limits: { orders: [] } } as never)).toThrow(/unknown option "orders"/);
    expect(() => new RateLimiter({ limits: { data: [{ windowMs: 0, max: 5 }] } })).toThrow(/windowMs/);
    expect(() => new RateLimiter({ categories: { 'GET /x': 'fast' } } as never)).toThrow(
      /must map to one of/,
    );
  });

  it('keeps every window whatever the answer delays, counting from each end (property)', async () => {
    const windows = [
      { windowMs: 1000, max: 3 },
      { windowMs: 5000, max: 8 },
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 700 })), {
          minLength: 1,
          maxLength: 40,
        }),
        async (arrivals) => {
          const clock = new ManualClock(0);
          const limiter = new RateLimiter({ clock, windowMarginMs: 0, limits: { order: windows } });
          const spans: { start: number; end: number }[] = [];
          const work = Promise.all(
            arrivals.map(async ([arrival, latency]) => {
              await clock.sleep(arrival);
              const release = await limiter.acquire('order', 'POST /orders');
              const span = { start: clock.now(), end: Number.NaN };
              await clock.sleep(latency);
              span.end = clock.now();
              spans.push(span);
              release();
            }),
          );
          await runWithClock(clock, work, 600_000);
          expect(spans).toHaveLength(arrivals.length);
          // The service may count each request anywhere in [start, end]. Whatever it picks, no
          // window may hold more than max: so at each start, the requests that started before and
          // ended within the window before it (or later) must number fewer than max.
          for (const { windowMs, max } of windows) {
            for (const j of spans) {
              const overlapping = spans.filter(
                (i) => i !== j && i.start <= j.start && i.end > j.start - windowMs,
              );
              expect(overlapping.length).toBeLessThan(max);
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
