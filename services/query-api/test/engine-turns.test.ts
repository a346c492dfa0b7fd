/** The engine's turns: slots, arrival order, a turn passed straight on, bounded waits and line. */
import { describe, expect, it, vi } from 'vitest';
import { EngineTurns } from '../src/query/engine-turns.js';

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('engine turns', () => {
  it('runs as many as there are slots and hands each ended turn to the oldest waiter', async () => {
    const turns = new EngineTurns({ slots: 2, waitMs: 60_000, maxWaiting: 10 });
    const endA = await turns.acquire();
    const endB = await turns.acquire();
    const order: string[] = [];
    const c = turns.acquire().then((end) => {
      order.push('c');
      return end;
    });
    const d = turns.acquire().then((end) => {
      order.push('d');
      return end;
    });
    await settle();
    expect(turns).toMatchObject({ running: 2, waiting: 2 });
    expect(order).toEqual([]);

    endB();
    endB(); // a second call ends nothing more
    await settle();
    expect(order).toEqual(['c']);
    expect(turns).toMatchObject({ running: 2, waiting: 1 });

    endA();
    const endC = await c;
    const endD = await d;
    expect(order).toEqual(['c', 'd']);
    endC();
    endD();
    expect(turns).toMatchObject({ running: 0, waiting: 0 });
  });

  it('takes no turn past a waiter, even with a slot about to free', async () => {
    const turns = new EngineTurns({ slots: 1, waitMs: 60_000, maxWaiting: 10 });
    const end = await turns.acquire();
    const first = turns.acquire();
    const second = turns.acquire();
    end();
    const endFirst = await first;
    let secondGot = false;
    void second.then(() => {
      secondGot = true;
    });
    await settle();
    expect(secondGot).toBe(false);
    endFirst();
    (await second)();
    expect(turns.running).toBe(0);
  });

  it('refuses with 503 OVERLOADED when the line is full or a wait runs out', async () => {
    vi.useFakeTimers();
    try {
      const turns = new EngineTurns({ slots: 1, waitMs: 1_000, maxWaiting: 1 });
      const end = await turns.acquire();
      const waiting = turns.acquire().catch((e: unknown) => e);
      await expect(turns.acquire()).rejects.toMatchObject({ code: 'OVERLOADED', status: 503 });
      await vi.advanceTimersByTimeAsync(1_000);
      expect(await waiting).toMatchObject({ code: 'OVERLOADED', status: 503, retryAfterSec: 2 });
      expect(turns).toMatchObject({ running: 1, waiting: 0 });
      end();
      expect(turns.running).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('needs at least one slot', () => {
    expect(() => new EngineTurns({ slots: 0, waitMs: 1, maxWaiting: 1 })).toThrow(RangeError);
  });
});
