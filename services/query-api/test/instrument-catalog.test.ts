/**
 * The instrument catalog answers known ids from memory even when its periodic refresh is due (the
 * refresh runs behind the answer), and makes only a lookup of an unknown id wait for a refresh.
 */
import { describe, expect, it } from 'vitest';
import { InstrumentCatalog } from '../src/analytics/instrument-catalog.js';
import type { QueryRunner } from '../src/query/query-runner.js';

/** A runner whose every catalog query waits until the test answers it. */
function scriptedRunner() {
  const pending: Array<(ids: number[]) => void> = [];
  const runner = {
    rows: () =>
      new Promise<{ security_id: number }[]>((resolve) => {
        pending.push((ids) => resolve(ids.map((security_id) => ({ security_id }))));
      }),
  } as unknown as QueryRunner;
  return { runner, pending };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('instrument catalog', () => {
  it('answers a known id at once when the refresh is due, and refreshes behind the answer', async () => {
    let now = 0;
    const { runner, pending } = scriptedRunner();
    const catalog = new InstrumentCatalog(runner, [], {
      refreshMs: 30_000,
      minRefreshMs: 1_000,
      now: () => now,
    });

    const first = catalog.has(7);
    await settle();
    expect(pending).toHaveLength(1);
    pending[0]?.([7, 8]);
    expect(await first).toBe(true);

    now = 60_000; // the periodic refresh is due
    let answered: boolean | undefined;
    void catalog.has(7).then((known) => {
      answered = known;
    });
    await settle();
    // Answered from memory while the refresh it started is still running.
    expect(answered).toBe(true);
    expect(pending).toHaveLength(2);
    // Lookups meanwhile share that one refresh.
    expect(await catalog.has(8)).toBe(true);
    expect(pending).toHaveLength(2);
    pending[1]?.([8]);
    await settle();
    expect(await catalog.has(8)).toBe(true);
  });

  it('makes a lookup of an unknown id wait for a refresh, at most one per minRefreshMs', async () => {
    let now = 0;
    const { runner, pending } = scriptedRunner();
    const catalog = new InstrumentCatalog(runner, [{ securityId: 99 }], {
      refreshMs: 30_000,
      minRefreshMs: 1_000,
      now: () => now,
    });
    expect(await catalog.has(99)).toBe(true); // static: no query
    expect(pending).toHaveLength(0);

    const lookup = catalog.has(5);
    let answered = false;
    void lookup.then(() => {
      answered = true;
    });
    await settle();
    expect(answered).toBe(false); // waiting for the refresh
    pending[0]?.([1]);
    expect(await lookup).toBe(false);

    now = 500; // within minRefreshMs: unknown again, but no new query
    expect(await catalog.has(5)).toBe(false);
    expect(pending).toHaveLength(1);

    now = 2_000;
    const later = catalog.has(5);
    await settle();
    pending[1]?.([1, 5]);
    expect(await later).toBe(true);
  });
});
