/**
 * End to end against the simulator with its limits on: every row the simulator serves for a small
 * plan is stored exactly once, permanent errors are recorded and skipped, a second run finds
 * nothing to do, and loading everything again leaves one copy of each row under FINAL.
 */

import { HISTORY_TABLES } from '@feedpipe/contracts';
import { createStore, type Store } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSpentBudget } from '../src/budget.js';
import { createHistoryLoader, type RunResult } from '../src/index.js';
import { expectedRows } from './support/expected.js';
import { fingerprints } from './support/fingerprints.js';
import { TEST_UNIVERSE, testPlan } from './support/plan.js';
import { startTestSim, type TestSim } from './support/sim.js';

let sim: TestSim;
let reference: TestSim;
let store: Store;
const plan = testPlan();

async function load(): Promise<RunResult> {
  const loader = createHistoryLoader(
    { broker: sim.broker, universe: [...TEST_UNIVERSE], plan, retryBaseMs: 50 },
    { clickhouse: store.internal, accessToken: sim.accessToken },
  );
  return loader.run();
}

async function count(query: string): Promise<number> {
  const [row] = await store.internal.rows<{ n: number | string }>(query);
  return Number(row?.n ?? 0);
}

/** Rows as arrays in column order (JSONCompactEachRow), as the reference rows are. */
async function compactRows(query: string): Promise<unknown[][]> {
  const chunks: Buffer[] = [];
  for await (const chunk of await store.internal.stream(query, {}, 'JSONCompactEachRow')) {
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as unknown[]);
}

beforeAll(async () => {
  sim = await startTestSim();
  reference = await startTestSim({ rateLimits: false });
  store = createStore({ dataDir: tempDir('history-e2e') });
});

afterAll(async () => {
  await store?.close();
  await sim?.close();
  await reference?.close();
});

describe('history loader against the simulator', () => {
  it('stores every row the simulator serves for the plan exactly once, without a single 429', async () => {
    const result = await load();
    expect(result.state).toBe('done');
    expect(result.throttled).toBe(0);
    expect(result.unitsFailed).toBeGreaterThan(0);
    const expected = await expectedRows(reference, plan);
    for (const [table, rows] of Object.entries(expected)) {
      const stored = (await compactRows(rows.query)).map((r) => JSON.stringify(r));
      expect(new Set(stored).size, table).toBe(stored.length);
      expect(stored.length, table).toBe(rows.rows.length);
      expect(stored.sort(), table).toEqual(rows.rows.map((r) => JSON.stringify(r)).sort());
    }
  });

  it('records the bad security id as failed, and a second run plans nothing', async () => {
    const failed = await count(
      `SELECT count() AS n FROM ${HISTORY_TABLES.loadUnits.name} FINAL WHERE security_id = 99999 AND status = 'failed' AND error LIKE '%813%'`,
    );
    expect(failed).toBeGreaterThan(0);
    const again = await load();
    expect(again.unitsTotal).toBe(0);
    expect(again.requests).toBe(0);
    expect(again.unitsSkipped).toBeGreaterThan(0);
  });

  it('leaves one copy of each row under FINAL when everything is loaded twice', async () => {
    const before = await fingerprints(store.internal);
    const tables = [
      HISTORY_TABLES.candlesDaily.name,
      HISTORY_TABLES.candlesIntraday.name,
      HISTORY_TABLES.expiredOptions.name,
    ];
    // Background merges would fold the second copy away before we could see that it was written.
    for (const table of tables) await store.internal.command(`SYSTEM STOP MERGES ${table}`);
    await store.internal.command(`TRUNCATE TABLE ${HISTORY_TABLES.loadUnits.name}`);
    const result = await load();
    expect(result.throttled).toBe(0);
    const after = await fingerprints(store.internal);
    for (const table of tables) {
      expect(after[table]?.rows, table).toBe(before[table]?.rows);
      expect(after[table]?.checksum, table).toBe(before[table]?.checksum);
      // The second copy really was inserted; FINAL is what folds it away.
      expect(after[table]?.rawRows ?? 0, table).toBeGreaterThan(before[table]?.rows ?? 0);
    }
    for (const table of tables) await store.internal.command(`SYSTEM START MERGES ${table}`);
    // A snapshot taken again in the same slot replaces it strike by strike; strikes that moved out
    // of the chain stay, so readers take the rows of the slot's latest snapshot_at.
    const latest = await count(
      `SELECT count() AS n FROM ${HISTORY_TABLES.optionChainSnapshots.name} FINAL
       WHERE snapshot_at = (SELECT max(snapshot_at) FROM ${HISTORY_TABLES.optionChainSnapshots.name})`,
    );
    expect(latest).toBe(before[HISTORY_TABLES.optionChainSnapshots.name]?.rows);
  });

  it('stops cleanly when the day budget is spent, and says when it can go on', async () => {
    const { spent, oldestAt } = await readSpentBudget(store.internal, sim.broker.clientId, Date.now());
    expect(spent).toBeGreaterThan(0);
    const none = await createHistoryLoader(
      { broker: sim.broker, universe: [...TEST_UNIVERSE], plan, dailyBudget: spent },
      { clickhouse: store.internal, accessToken: sim.accessToken },
    ).run();
    expect(none.state).toBe('budget_exhausted');
    expect(none.requests).toBe(0);
    expect(none.resumeAt).toBe((oldestAt ?? 0) + 86_400_000);

    await store.internal.command(`TRUNCATE TABLE ${HISTORY_TABLES.loadUnits.name}`);
    const some = await createHistoryLoader(
      { broker: sim.broker, universe: [...TEST_UNIVERSE], plan, dailyBudget: spent + 3 },
      { clickhouse: store.internal, accessToken: sim.accessToken },
    ).run();
    expect(some.state).toBe('budget_exhausted');
    expect(some.requests).toBe(3);
    expect(some.throttled).toBe(0);
    expect(some.resumeAt ?? 0).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    const recorded = await count(`SELECT count() AS n FROM ${HISTORY_TABLES.loadUnits.name} FINAL`);
    expect(recorded).toBe(3);
  });
});
