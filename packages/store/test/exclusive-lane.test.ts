/**
 * The lane's queue on its own (the store's tests cover it under real statements): slots, arrival
 * order, a freed slot handed straight to the oldest waiter, bounded waits and a bounded queue. The
 * query API uses the same class for its turns before result reservations.
 */
import { describe, expect, it, vi } from 'vitest';
import { ExclusiveLane } from '../src/embedded/exclusive-lane.js';

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A task that holds its slot until `finish()` is called. */
function heldTask(lane: ExclusiveLane, name: string, started: string[]) {
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const result = lane.run(async (slot) => {
    started.push(name);
    await done;
    return slot;
  });
  return { result, finish: () => finish() };
}

describe('exclusive lane', () => {
  it('runs as many tasks as there are slots and hands each freed slot to the oldest waiter', async () => {
    const lane = new ExclusiveLane('test', { sessions: 2, maxWaitMs: 60_000, maxQueued: 10 });
    const started: string[] = [];
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => heldTask(lane, name, started)) as [
      ReturnType<typeof heldTask>,
      ReturnType<typeof heldTask>,
      ReturnType<typeof heldTask>,
      ReturnType<typeof heldTask>,
    ];
    await settle();
    expect(started).toEqual(['a', 'b']);
    expect(lane.stats).toMatchObject({ running: 2, queued: 2 });

    b.finish();
    const slotOfB = await b.result;
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);
    expect(lane.stats).toMatchObject({ running: 2, queued: 1 });

    a.finish();
    await a.result;
    await settle();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    c.finish();
    d.finish();
    // c took the slot b freed: handed over, never free in between.
    expect(await c.result).toBe(slotOfB);
    await d.result;
    expect(lane.stats).toMatchObject({ running: 0, queued: 0, completed: 4, refused: 0 });
  });

  it('lets no newcomer past a waiter when a slot frees', async () => {
    const lane = new ExclusiveLane('test', { sessions: 1, maxWaitMs: 60_000, maxQueued: 10 });
    const started: string[] = [];
    const first = heldTask(lane, 'first', started);
    const waiter = heldTask(lane, 'waiter', started);
    await settle();
    first.finish();
    const newcomer = heldTask(lane, 'newcomer', started);
    await first.result;
    await settle();
    expect(started).toEqual(['first', 'waiter']);
    waiter.finish();
    await waiter.result;
    await settle();
    expect(started).toEqual(['first', 'waiter', 'newcomer']);
    newcomer.finish();
    await newcomer.result;
  });

  it('refuses with STORE_BUSY when the queue is full or a wait runs out, and never starts those', async () => {
    vi.useFakeTimers();
    try {
      const lane = new ExclusiveLane('test', { sessions: 1, maxWaitMs: 1_000, maxQueued: 1 });
      const started: string[] = [];
      const holder = heldTask(lane, 'holder', started);
      const late = heldTask(lane, 'late', started);
      const lateOutcome = late.result.catch((e: unknown) => e);
      await expect(lane.run(async () => 'extra')).rejects.toMatchObject({ code: 'STORE_BUSY' });
      await vi.advanceTimersByTimeAsync(1_000);
      expect(await lateOutcome).toMatchObject({ code: 'STORE_BUSY' });
      expect(lane.stats).toMatchObject({ running: 1, queued: 0, refused: 2 });
      holder.finish();
      await holder.result;
      expect(started).toEqual(['holder']);
      expect(lane.stats).toMatchObject({ running: 0, completed: 1 });
    } finally {
      vi.useRealTimers();
    }
  });
});
