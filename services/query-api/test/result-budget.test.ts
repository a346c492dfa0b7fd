/**
 * The result budget's line: first fit in arrival order, until the oldest waiter has waited half of
 * its allowance; from then on nobody passes it. (The same budget under real queries is in
 * query-limits.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { ResultBudget, type ResultLease } from '../src/query/result-budget.js';

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('result budget line', () => {
  it('lets small reservations pass a large waiting one, until that one has waited half its time', async () => {
    let now = 0;
    const budget = new ResultBudget(
      { totalBytes: 100, reserveBytes: 10, streamBytes: 1, waitMs: 10_000 },
      () => now,
    );
    const held = await budget.acquire(60);

    let large: ResultLease | undefined;
    void budget.acquire(50).then((lease) => {
      large = lease;
    });
    expect(budget.waiting).toBe(1);
    // First fit: a small one that fits goes on at once, past the large one.
    const small = await budget.acquire(30);
    expect(budget.usedBytes).toBe(90);

    now = 5_000; // the large one has waited half of its 10 s
    let late: ResultLease | undefined;
    void budget.acquire(5).then((lease) => {
      late = lease;
    });
    await settle();
    expect(late).toBeUndefined(); // it would fit, but may not pass the large one any more
    expect(budget.waiting).toBe(2);

    small.release(); // 60 used: still no room for 50, and the 5 stays behind it
    await settle();
    expect(large).toBeUndefined();
    expect(late).toBeUndefined();

    held.release(); // room for both, in order
    await settle();
    expect(large?.bytes).toBe(50);
    expect(late?.bytes).toBe(5);
    expect(budget).toMatchObject({ usedBytes: 55, waiting: 0 });
  });

  it('refuses at once without a wait allowance, and when the line is full', async () => {
    const strict = new ResultBudget({ totalBytes: 10, reserveBytes: 10, streamBytes: 1 });
    await strict.acquire(10);
    await expect(strict.acquire(1)).rejects.toMatchObject({ code: 'OVERLOADED', status: 503 });

    const short = new ResultBudget({
      totalBytes: 10,
      reserveBytes: 10,
      streamBytes: 1,
      waitMs: 60_000,
      maxWaiting: 1,
    });
    const first = await short.acquire(10);
    const waiting = short.acquire(5);
    await expect(short.acquire(5)).rejects.toMatchObject({ code: 'OVERLOADED' });
    expect(short.waiting).toBe(1);
    first.release();
    expect((await waiting).bytes).toBe(5);
  });
});
