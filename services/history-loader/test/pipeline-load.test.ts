/**
 * The history load `npm start` runs (scripts/start.ts builds it with pipelineLoadOptions from its
 * environment): started the same way against the REST simulator with its rate limits, it loads
 * what services/history-loader/universe/demo.json plans (intervals, date ranges, strikes), not the
 * library's defaults.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRestServer, MarketModel, type RestServer, SIM_TEST_ACCOUNTS } from '@feedpipe/broker-sim';
import { HISTORY_TABLES } from '@feedpipe/contracts';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOAD_UNITS_TABLE } from '../src/checkpoints.js';
import {
  type BrokerOptions,
  createHistoryLoader,
  LoaderError,
  pipelineLoadOptions,
  type RunResult,
  resolveOptions,
} from '../src/index.js';
import { DEMO_UNIVERSE_FILE } from '../src/pipeline-load.js';

const root = join(import.meta.dirname, '..', '..', '..');
const demo = JSON.parse(readFileSync(join(root, DEMO_UNIVERSE_FILE), 'utf8')) as {
  instruments: Array<{ securityId: number; inceptionDate?: string }>;
  plan: {
    daily: { from: string };
    intraday: { intervals: number[]; days: number };
    expiredOptions: { strikes: number; interval: number; days: number };
  };
};
const DAY_S = 86_400;

let server: RestServer;
let broker: BrokerOptions;
let accessToken: string;
let store: Store;
let result: RunResult;

beforeAll(async () => {
  const account = SIM_TEST_ACCOUNTS[0];
  if (account?.webToken === undefined) throw new Error('the simulator has no test account with a web token');
  server = await createRestServer({ model: new MarketModel({ seed: 1, instruments: 10 }), rateLimits: true });
  broker = { baseUrl: server.baseUrl, clientId: account.clientId };
  accessToken = account.webToken;
  store = createStore({ dataDir: tempDir('pipeline-load') });
  await runMigrations(store.internal);
});

afterAll(async () => {
  await store?.close();
  await server?.close();
});

async function rows<T>(sql: string): Promise<T[]> {
  return store.internal.rows<T>(sql);
}

describe("npm start's history load", () => {
  it('takes the plan of the universe file, not the defaults', () => {
    const options = pipelineLoadOptions({}, broker, root);
    expect(options?.universe).toBe(join(root, DEMO_UNIVERSE_FILE));
    expect(options?.plan).toEqual(demo.plan);
    expect(options?.maxSeconds).toBe(120);
    const resolved = resolveOptions(options ?? { broker, universe: [] });
    expect(resolved.plan.daily.from).toBe(demo.plan.daily.from);
    expect(resolved.plan.intraday.intervals).toEqual(demo.plan.intraday.intervals);
    expect(resolved.plan.expiredOptions).toMatchObject(demo.plan.expiredOptions);
  });

  it('is off with HISTORY_LOAD=off and names a bad variable', () => {
    expect(pipelineLoadOptions({ HISTORY_LOAD: 'off' }, broker, root)).toBeUndefined();
    expect(() => pipelineLoadOptions({ HISTORY_MAX_SECONDS: 'soon' }, broker, root)).toThrow(
      /HISTORY_MAX_SECONDS/,
    );
    expect(() => pipelineLoadOptions({ HISTORY_UNIVERSE_FILE: 'no/such/file.json' }, broker, root)).toThrow(
      LoaderError,
    );
  });

  it('loads what the plan says: intervals, date ranges and strikes', async () => {
    const options = pipelineLoadOptions({}, broker, root);
    if (!options) throw new Error('the load is on by default');
    const loader = createHistoryLoader(options, { clickhouse: store.internal, accessToken });
    result = await loader.run();
    expect(result.state, JSON.stringify(result)).toBe('done');
    const now = Date.now() / 1000;

    // Dailies: asked from each instrument's inception date where the file gives one, else from the
    // plan's `from` (the service answers from its own first day on: the simulator's 2885 starts later).
    const asked = await rows<{ security_id: number; first: string; stored: string }>(
      `SELECT u.security_id AS security_id, u.first AS first, toString(d.first) AS stored
       FROM (SELECT security_id, toString(min(toDate(window_from, 'Asia/Kolkata'))) AS first
             FROM ${LOAD_UNITS_TABLE} FINAL WHERE kind = 'daily' AND status = 'done' GROUP BY security_id) AS u
       JOIN (SELECT security_id, min(toDate(ts, 'Asia/Kolkata')) AS first
             FROM ${HISTORY_TABLES.candlesDaily.name} FINAL GROUP BY security_id) AS d USING (security_id)
       ORDER BY security_id`,
    );
    expect(asked.map((r) => r.security_id)).toEqual(
      demo.instruments.map((i) => i.securityId).sort((a, b) => a - b),
    );
    for (const row of asked) {
      const instrument = demo.instruments.find((i) => i.securityId === row.security_id);
      expect(row.first, `${row.security_id}`).toBe(instrument?.inceptionDate ?? demo.plan.daily.from);
      expect(row.stored >= row.first, `${row.security_id}: stored from ${row.stored}`).toBe(true);
    }

    // Intraday: the planned intervals only, over the planned days back.
    const intraday = await rows<{ interval: number; oldest: number }>(
      `SELECT interval, toUnixTimestamp(min(ts)) AS oldest
       FROM ${HISTORY_TABLES.candlesIntraday.name} FINAL GROUP BY interval ORDER BY interval`,
    );
    expect(intraday.map((r) => r.interval)).toEqual(demo.plan.intraday.intervals);
    for (const row of intraday)
      expect(now - row.oldest).toBeLessThanOrEqual((demo.plan.intraday.days + 2) * DAY_S);

    // Expired options: the planned interval, ATM±strikes, the planned days back.
    const [expired] = await rows<{ intervals: number[]; lo: number; hi: number; oldest: number; n: number }>(
      `SELECT groupUniqArray(interval) AS intervals, min(strike_offset) AS lo, max(strike_offset) AS hi,
              toUnixTimestamp(min(ts)) AS oldest, count() AS n
       FROM ${HISTORY_TABLES.expiredOptions.name} FINAL`,
    );
    const plan = demo.plan.expiredOptions;
    expect(expired?.n).toBeGreaterThan(0);
    expect(expired?.intervals).toEqual([plan.interval]);
    expect(expired?.lo).toBe(-plan.strikes);
    expect(expired?.hi).toBe(plan.strikes);
    expect(now - (expired?.oldest ?? 0)).toBeLessThanOrEqual((plan.days + 2) * DAY_S);
  });
});
