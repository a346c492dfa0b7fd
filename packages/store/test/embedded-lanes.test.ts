/**
 * The embedded store's lanes of several sessions: the callers' lane runs as many statements at once
 * as it has sessions, parameterised ones included (their values are bound in the text, so chDB's
 * process-wide chain of parameterised statements does not serialise them), while the pipeline's
 * lane of one session keeps running one at a time. What the engine runs is read from its own
 * system.processes, not inferred from timings.
 */
import { randomUUID } from 'node:crypto';
import { tempDir, waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore, type Store, type StoreError } from '../src/index.js';

/** A statement that runs for about `seconds`, marked so system.processes can find it. */
const slow = (marker: string, seconds: number) =>
  `SELECT '${marker}' AS m, sleepEachRow(0.05) AS s, {p:UInt32} AS p FROM numbers(${Math.round(seconds / 0.05)}) SETTINGS max_block_size = 1`;

describe('embedded store lanes of several sessions', () => {
  let store: Store;

  beforeAll(() => {
    store = createStore({ dataDir: tempDir('store-lanes'), userLane: { sessions: 3 } });
  });
  afterAll(async () => {
    await store.close();
  });

  async function runningInEngine(marker: string): Promise<number> {
    const [row] = await store.internal.rows<{ n: number | string }>(
      `SELECT count() AS n FROM system.processes WHERE query LIKE '%${marker}%' AND query NOT LIKE '%system.processes%'`,
    );
    return Number(row?.n ?? 0);
  }

  it('runs parameterised statements of the callers’ lane at once, one per session', async () => {
    const marker = `lanes-${randomUUID()}`;
    const queries = [1, 2, 3].map((p) => store.user.rows<{ p: number }>(slow(marker, 3), { p }));
    let seen = 0;
    await waitFor(
      async () => {
        seen = Math.max(seen, await runningInEngine(marker));
        return seen === 3;
      },
      30_000,
      () => `three statements running in the engine at once (most seen: ${seen})`,
      50,
    );
    const answers = await Promise.all(queries);
    // Each got its own rows back.
    expect(answers.map((rows) => new Set(rows.map((r) => Number(r.p))))).toEqual([
      new Set([1]),
      new Set([2]),
      new Set([3]),
    ]);
    expect(store.load().user).toMatchObject({ running: 0, queued: 0, failures: 0 });
  });

  it('keeps the pipeline’s lane of one session to one statement at a time', async () => {
    const marker = `internal-${randomUUID()}`;
    const first = store.internal.rows(slow(marker, 1), { p: 1 });
    const second = store.internal.rows(slow(marker, 1), { p: 2 });
    await waitFor(
      () => store.load().internal.running === 1 && store.load().internal.queued === 1,
      30_000,
      () => `one running and one waiting on the internal lane (${JSON.stringify(store.load().internal)})`,
    );
    await Promise.all([first, second]);
    expect(store.load().internal).toMatchObject({ running: 0, queued: 0 });
  });

  it('refuses a lane without sessions, or with more than it can run, naming the option', () => {
    for (const sessions of [0, 17, 1.5]) {
      expect(() => createStore({ dataDir: tempDir('store-lanes-bad'), userLane: { sessions } })).toThrowError(
        expect.objectContaining({
          code: 'STORE_CONFIG_INVALID',
          message: expect.stringContaining('"userLane.sessions" must be an integer from 1 to 16'),
        }) as unknown as StoreError,
      );
    }
  });
});
