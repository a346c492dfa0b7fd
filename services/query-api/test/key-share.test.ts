/** Each key's share of the engine's sessions for caller SQL (src/query/key-share.ts). */
import { describe, expect, it } from 'vitest';
import { KeyShare } from '../src/query/key-share.js';

/** Whether a promise has settled, without waiting for it. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('KeyShare', () => {
  it('lets a key run its share at once, queues its next statement, and never delays another key', async () => {
    const shares = new KeyShare({ perKey: 1, maxWaiting: 4, maxWaitMs: 60_000 });
    const a1 = await shares.acquire('a');
    const a2 = shares.acquire('a');
    expect(await settled(a2)).toBe(false);
    // Key b is not behind key a's line: the engine's other session is its.
    const b1 = await shares.acquire('b');
    expect(shares.running('a')).toBe(1);
    expect(shares.running('b')).toBe(1);
    a1();
    a1(); // idempotent: the share passes once
    const release = await a2;
    expect(shares.running('a')).toBe(1);
    release();
    b1();
    expect([shares.running('a'), shares.running('b')]).toEqual([0, 0]);
  });

  it('refuses with 429 past the line length and past the wait, and keeps the line working', async () => {
    const shares = new KeyShare({ perKey: 1, maxWaiting: 1, maxWaitMs: 50 });
    const first = await shares.acquire('a');
    const waiting = shares.acquire('a');
    await expect(shares.acquire('a')).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      status: 429,
      retryAfterSec: 1,
    });
    await expect(waiting).rejects.toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    first();
    expect(shares.running('a')).toBe(0);
    const again = await shares.acquire('a');
    expect(shares.running('a')).toBe(1);
    again();
  });
});
