/**
 * The scheduled loader against the simulator, on an injected clock shared by both: the first run
 * (after a weekday's close) loads the plan; a tick before the next close does nothing; the tick
 * after the next close loads only the new day (each candle series asks for one day, the expired
 * options for the day that just became final) and leaves the first day's rows as they were.
 */
import { createRestServer, MarketModel, SIM_TEST_ACCOUNTS } from '@feedpipe/broker-sim';
import { HISTORY_TABLES } from '@feedpipe/contracts';
import { createStore, type Store } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { istDayOf, istMidnight, weekday } from '../src/calendar.js';
import { ScheduledLoader, TradingCalendar } from '../src/index.js';
import { SIM_SEED } from './support/sim.js';

const DAY_MS = 86_400_000;
/** 16:00 IST of the Wednesday at least a week before today: after its close, within the test token's life. */
function lastWednesday(): number {
  let day = istDayOf(Date.now()) - 7;
  while (weekday(day) !== 3) day -= 1;
  return day;
}
const WED = lastWednesday();
const at = (day: number, hours: number) => (istMidnight(day) + hours * 3600) * 1000;

/** The injected clock: moves with real time (the simulator's rate windows need it to) from a settable base. */
let offset = 0;
const realStart = Date.now();
const now = () => at(WED, 16) + offset + (Date.now() - realStart);
const setClock = (ms: number) => {
  offset = ms - at(WED, 16) - (Date.now() - realStart);
};

const UNIVERSE = [
  { securityId: 2885, segment: 'NSE_EQ', instrument: 'EQUITY' },
  { securityId: 13, segment: 'IDX_I', instrument: 'INDEX', optionChain: true, expiredOptions: true },
];
const PLAN = {
  daily: { from: '2024-01-01', windowDays: 365 },
  intraday: { intervals: [15 as const], days: 10, windowDays: 90 },
  optionChain: { expiries: 1 },
  expiredOptions: { strikes: 0, sides: ['CALL' as const], interval: 15 as const, days: 5, windowDays: 45 },
};

let store: Store;
let close: () => Promise<void>;
let scheduler: ScheduledLoader;

async function rows<T>(query: string): Promise<T[]> {
  return store.internal.rows<T>(query);
}

interface UnitRow {
  kind: string;
  f: number | string;
  t: number | string;
  status: string;
  run_id: string;
}

beforeAll(async () => {
  const account = SIM_TEST_ACCOUNTS[0];
  if (account?.webToken === undefined) throw new Error('no simulator test account with a web token');
  const model = new MarketModel({ seed: SIM_SEED, instruments: 10, now });
  const server = await createRestServer({ model, rateLimits: true, now });
  close = () => server.close();
  store = createStore({ dataDir: tempDir('history-schedule') });
  scheduler = new ScheduledLoader(
    {
      loader: {
        broker: { baseUrl: server.baseUrl, clientId: account.clientId },
        universe: UNIVERSE,
        plan: PLAN,
        retryBaseMs: 50,
      },
      calendar: new TradingCalendar(),
      delayMs: 15 * 60_000,
    },
    { clickhouse: store.internal, accessToken: account.webToken, now },
  );
});

afterAll(async () => {
  await scheduler?.stop();
  await store?.close();
  await close?.();
});

describe('scheduled history loader', () => {
  it('loads the plan at start, then after the next close only the new day', async () => {
    const first = await scheduler.tick();
    expect(first?.state).toBe('done');
    expect(first?.throttled).toBe(0);
    // Wednesday's session closed at 15:30: its windows are final ('done'), none is partial.
    expect(first?.unitsPartial).toBe(0);
    const wedBars = await rows<{ n: string; loaded: string }>(
      `SELECT count() AS n, toString(max(loaded_at)) AS loaded FROM ${HISTORY_TABLES.candlesIntraday.name} FINAL
       WHERE security_id = 2885 AND toDate(ts, 'Asia/Kolkata') = toDate('${new Date(WED * DAY_MS).toISOString().slice(0, 10)}')`,
    );
    // 09:15-15:30 in 15-minute bars.
    expect(Number(wedBars[0]?.n)).toBe(25);

    // Next run: Thursday 15:45 IST, on /metrics too.
    expect(scheduler.nextRunAt).toBe(at(WED + 1, 15.75));
    const gauge = await scheduler.registry
      .getSingleMetric('history_loader_next_run_timestamp_seconds')
      ?.get();
    expect(gauge?.values[0]?.value).toBe(at(WED + 1, 15.75) / 1000);
    expect(scheduler.status().nextRunAt).toBe(at(WED + 1, 15.75));

    // Thursday before the close: not due.
    setClock(at(WED + 1, 15));
    expect(await scheduler.tick()).toBeUndefined();

    setClock(at(WED + 1, 16));
    const second = await scheduler.tick();
    expect(second?.state).toBe('done');
    expect(second?.throttled).toBe(0);
    const units = await rows<UnitRow>(
      `SELECT kind, toUInt32(window_from) AS f, toUInt32(window_to) AS t, status, run_id
       FROM ${HISTORY_TABLES.loadUnits.name} FINAL WHERE run_id = '${second?.runId}'`,
    );
    // One unit per candle series (2 daily, 2 intraday), one expired-options series, one expiry list, one chain.
    expect(units.map((u) => u.kind).sort()).toEqual([
      'daily',
      'daily',
      'expired_options',
      'expiry_list',
      'intraday',
      'intraday',
      'option_chain',
    ]);
    expect(units.every((u) => u.status === 'done')).toBe(true);
    for (const u of units) {
      const [from, to] = [Number(u.f), Number(u.t)];
      // Only the new day: Thursday for candles, lists and chains; Wednesday, now final, for expired options.
      const day = u.kind === 'expired_options' ? WED : WED + 1;
      expect([u.kind, from, to]).toEqual([u.kind, istMidnight(day), istMidnight(day + 1)]);
    }
    expect(second?.requests).toBe(units.length);

    const thuBars = await rows<{ n: string }>(
      `SELECT count() AS n FROM ${HISTORY_TABLES.candlesIntraday.name} FINAL
       WHERE security_id = 2885 AND toDate(ts, 'Asia/Kolkata') = toDate('${new Date((WED + 1) * DAY_MS).toISOString().slice(0, 10)}')`,
    );
    expect(Number(thuBars[0]?.n)).toBe(25);
    // Wednesday's rows were not asked for again: same count, same load time.
    const wedAgain = await rows<{ n: string; loaded: string }>(
      `SELECT count() AS n, toString(max(loaded_at)) AS loaded FROM ${HISTORY_TABLES.candlesIntraday.name} FINAL
       WHERE security_id = 2885 AND toDate(ts, 'Asia/Kolkata') = toDate('${new Date(WED * DAY_MS).toISOString().slice(0, 10)}')`,
    );
    expect(wedAgain).toEqual(wedBars);
    // Friday's run next, then (after Friday) Monday's.
    expect(scheduler.nextRunAt).toBe(at(WED + 2, 15.75));
  }, 180_000);
});
