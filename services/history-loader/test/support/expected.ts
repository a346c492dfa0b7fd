/**
 * What the simulator serves for the test plan, fetched straight from a second simulator (same
 * seed, no rate limits) with plain HTTP and windows cut differently from the loader's, so the
 * comparison does not share the loader's planning or the client's merging.
 */

import { HISTORY_TABLES } from '@feedpipe/contracts';
import { formatDate, istDayOf, parseDate } from '../../src/calendar.js';
import type { PlanOptions } from '../../src/plan-options.js';
import { TEST_UNIVERSE } from './plan.js';
import type { TestSim } from './sim.js';

export interface ExpectedTable {
  /** Stored rows in the same projection, for JSONCompactEachRow. */
  query: string;
  rows: unknown[][];
}

async function post(sim: TestSim, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${sim.broker.baseUrl}/v2${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'access-token': sim.accessToken,
      'client-id': sim.broker.clientId,
    },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status !== 200)
    throw new Error(`${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

function windows(from: number, to: number, size: number): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let a = from; a < to; a += size) out.push([formatDate(a), formatDate(Math.min(a + size, to))]);
  return out;
}

type Cols = Record<string, number[]>;

export async function expectedRows(sim: TestSim, plan: PlanOptions): Promise<Record<string, ExpectedTable>> {
  const until = parseDate(plan.until ?? '') as number;
  const stocks = TEST_UNIVERSE.filter((u) => u.securityId !== 99_999);
  const daily: unknown[][] = [];
  for (const u of stocks) {
    const c = (await post(sim, '/charts/historical', {
      securityId: String(u.securityId),
      exchangeSegment: u.segment,
      instrument: u.instrument,
      fromDate: plan.daily?.from,
      toDate: formatDate(until),
    })) as Cols;
    c.timestamp?.forEach((ts, i) => {
      daily.push([
        u.securityId,
        u.segment,
        ts,
        c.open?.[i],
        c.high?.[i],
        c.low?.[i],
        c.close?.[i],
        Math.round(c.volume?.[i] ?? 0),
        0,
      ]);
    });
  }
  const intraday: unknown[][] = [];
  const interval = plan.intraday?.intervals?.[0] ?? 5;
  for (const u of stocks) {
    for (const [fromDate, toDate] of windows(until - (plan.intraday?.days ?? 90), until, 30)) {
      const c = (await post(sim, '/charts/intraday', {
        securityId: String(u.securityId),
        exchangeSegment: u.segment,
        instrument: u.instrument,
        interval: String(interval),
        fromDate,
        toDate,
      })) as Cols;
      c.timestamp?.forEach((ts, i) => {
        intraday.push([
          u.securityId,
          u.segment,
          interval,
          ts,
          c.open?.[i],
          c.high?.[i],
          c.low?.[i],
          c.close?.[i],
          Math.round(c.volume?.[i] ?? 0),
          0,
        ]);
      });
    }
  }
  const expired: unknown[][] = [];
  const e = plan.expiredOptions ?? {};
  const strikes = e.strikes ?? 10;
  for (const u of stocks.filter((s) => 'expiredOptions' in s && s.expiredOptions)) {
    for (const side of ['CALL', 'PUT'] as const) {
      for (let offset = -strikes; offset <= strikes; offset++) {
        const strike = offset === 0 ? 'ATM' : offset > 0 ? `ATM+${offset}` : `ATM${offset}`;
        for (const [fromDate, toDate] of windows(until - (e.days ?? 90), until, 20)) {
          const answer = await post(sim, '/charts/rollingoption', {
            exchangeSegment: 'NSE_FNO',
            interval: String(e.interval ?? 1),
            securityId: String(u.securityId),
            instrument: 'OPTIDX',
            expiryFlag: 'WEEK',
            expiryCode: 1,
            strike,
            drvOptionType: side,
            requiredData: ['open', 'high', 'low', 'close', 'iv', 'volume', 'strike', 'oi', 'spot'],
            fromDate,
            toDate,
          });
          const data = answer.data as { ce: Cols | null; pe: Cols | null };
          const c = (side === 'CALL' ? data.ce : data.pe) ?? {};
          c.timestamp?.forEach((ts, i) => {
            expired.push([
              u.securityId,
              'NSE_FNO',
              'OPTIDX',
              'WEEK',
              1,
              side,
              offset,
              e.interval ?? 1,
              ts,
              c.open?.[i],
              c.high?.[i],
              c.low?.[i],
              c.close?.[i],
              c.iv?.[i],
              Math.round(c.volume?.[i] ?? 0),
              Math.round(c.oi?.[i] ?? 0),
              c.strike?.[i],
              c.spot?.[i],
            ]);
          });
        }
      }
    }
  }
  const lists: unknown[][] = [];
  const today = formatDate(istDayOf(Date.now()));
  for (const u of stocks.filter((s) => 'optionChain' in s && s.optionChain)) {
    const answer = await post(sim, '/optionchain/expirylist', {
      UnderlyingScrip: u.securityId,
      UnderlyingSeg: u.segment,
    });
    for (const expiry of answer.data as string[]) lists.push([u.securityId, u.segment, today, expiry]);
  }
  return {
    daily: {
      query: `SELECT security_id, segment, toUInt32(ts), open, high, low, close, toFloat64(volume), toFloat64(open_interest)
              FROM ${HISTORY_TABLES.candlesDaily.name} FINAL`,
      rows: daily,
    },
    intraday: {
      query: `SELECT security_id, segment, interval, toUInt32(ts), open, high, low, close, toFloat64(volume),
                toFloat64(open_interest) FROM ${HISTORY_TABLES.candlesIntraday.name} FINAL`,
      rows: intraday,
    },
    expired: {
      query: `SELECT underlying_id, exchange_segment, instrument, expiry_flag, expiry_code, option_type, strike_offset,
                interval, toUInt32(ts), open, high, low, close, iv, toFloat64(volume), toFloat64(oi), strike, spot
              FROM ${HISTORY_TABLES.expiredOptions.name} FINAL`,
      rows: expired,
    },
    expiryLists: {
      query: `SELECT underlying_id, underlying_segment, toString(as_of), toString(expiry) FROM ${HISTORY_TABLES.expiryLists.name} FINAL`,
      rows: lists,
    },
  };
}
