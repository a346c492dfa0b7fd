/** The shared retry loop: bounded, paced by Backoff with jitter and a cap, selective, abortable. */
import { describe, expect, it } from 'vitest';
import { Backoff, retry, sleep } from '../src/index.js';

describe('Backoff', () => {
  it('grows by the factor up to the cap, with the floor kept and the rest jittered', () => {
    const top = new Backoff({ initialMs: 100, maxMs: 500, factor: 2, floor: 0.5, random: () => 0.999_999 });
    expect([1, 2, 3, 4, 5].map(() => top.next())).toEqual([100, 200, 400, 500, 500]);
    const bottom = new Backoff({ initialMs: 100, maxMs: 500, factor: 2, floor: 0.5, random: () => 0 });
    expect([1, 2, 3, 4].map(() => bottom.next())).toEqual([50, 100, 200, 250]);
    bottom.reset();
    expect(bottom.attempts).toBe(0);
    expect(bottom.next()).toBe(50);
  });
});

describe('retry', () => {
  it('retries until the attempt succeeds, waiting as the backoff says', async () => {
    const waits: number[] = [];
    let calls = 0;
    const value = await retry(
      async (n) => {
        calls += 1;
        if (n < 3) throw new Error(`fail ${n}`);
        return 'ok';
      },
      { attempts: 5, initialMs: 2, maxMs: 4, floor: 1, onRetry: (_e, _n, delay) => void waits.push(delay) },
    );
    expect(value).toBe('ok');
    expect(calls).toBe(3);
    expect(waits).toEqual([2, 4]);
  });

  it('throws the last error once the attempts are spent', async () => {
    let calls = 0;
    await expect(
      retry(
        async () => {
          calls += 1;
          throw new Error(`fail ${calls}`);
        },
        { attempts: 3, initialMs: 1, maxMs: 1 },
      ),
    ).rejects.toThrow('fail 3');
    expect(calls).toBe(3);
  });

  it('throws at once an error that is not retryable', async () => {
    let calls = 0;
    await expect(
      retry(
        async () => {
          calls += 1;
          throw new Error('fatal');
        },
        { attempts: 5, initialMs: 1, retryable: (e) => (e as Error).message !== 'fatal' },
      ),
    ).rejects.toThrow('fatal');
    expect(calls).toBe(1);
  });

  it('stops waiting when aborted', async () => {
    const abort = new AbortController();
    const started = Date.now();
    const run = retry(
      async () => {
        throw new Error('down');
      },
      { attempts: 10, initialMs: 60_000, floor: 1, signal: abort.signal },
    );
    setTimeout(() => abort.abort(), 20);
    await expect(run).rejects.toThrow('down');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses an unbounded or empty count of attempts by mistake', async () => {
    await expect(retry(async () => 1, { attempts: 0 })).rejects.toThrow(RangeError);
    await expect(retry(async () => 1, { attempts: Number.NaN })).rejects.toThrow(RangeError);
  });

  it('sleep resolves early on abort', async () => {
    const abort = new AbortController();
    abort.abort();
    const started = Date.now();
    await sleep(60_000, abort.signal);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
