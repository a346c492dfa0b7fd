/**
 * The cross-section (GET and POST /v1/bars): each instrument's rows are exactly its own bars answer
 * (BARS_SQL), for a list of ids and for every instrument with trades; Arrow and Parquet come
 * as readable files; bad input is a 400 naming the field.
 */
import { FEED_TABLES } from '@feedpipe/contracts';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BARS_SQL } from '../src/analytics/bars-sql.js';
import { QueryRunner } from '../src/query/query-runner.js';
import { DAY, type Harness, LIVE_A, LIVE_B, startHarness } from './helpers.js';

let h: Harness;
const FROM = `${DAY}T09:00:00Z`;
const TO = `${DAY}T09:20:00Z`;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

async function barsCsv(id: number, step: number, from = FROM, to = TO): Promise<string[]> {
  const runner = new QueryRunner(h.store.user, 30);
  const fromSec = Date.parse(from) / 1000;
  const toSec = Date.parse(to) / 1000;
  const body = await runner.buffer({
    sql: BARS_SQL,
    params: { sid: id, step, fromSec, toSec },
    format: 'csv',
  });
  return body.body.toString().trimEnd().split('\n').slice(1);
}

describe('cross-section', () => {
  it('holds each instrument exactly as its bars answer, for a list and for all', async () => {
    const expected = [
      ...(await barsCsv(LIVE_A, 60)).map((r) => `${LIVE_A},${r}`),
      ...(await barsCsv(LIVE_B, 60)).map((r) => `${LIVE_B},${r}`),
    ];
    expect(expected.length).toBeGreaterThan(10);
    const listed = await h.api.app.inject({
      method: 'GET',
      url: `/v1/bars?ids=${LIVE_B},${LIVE_A}&from=${FROM}&to=${TO}&interval=1m&format=csv`,
      headers: h.read,
    });
    expect(listed.statusCode).toBe(200);
    const lines = listed.body.trimEnd().split('\n');
    expect(lines[0]).toBe('"security_id","time","open","high","low","close","volume","vwap","trades"');
    expect(lines.slice(1)).toEqual(expected);
    const all = await h.api.app.inject({
      method: 'POST',
      url: '/v1/bars',
      payload: { from: FROM, to: TO, interval: '1m', format: 'csv' },
      headers: h.read,
    });
    expect(all.statusCode).toBe(200);
    expect(all.body.trimEnd().split('\n').slice(1)).toEqual(expected);
  });

  it('answers from the 1-minute bars exactly as from ticks, through ties in receive time and late ticks', async () => {
    // Another day, so the cases above see none of it. Three ticks to each receive time (ties broken
    // by offset alone), inserted highest offset first; then late ticks, received minutes after the
    // minute they traded in (they close it).
    const day = '2024-03-05';
    const ids = [1_000_071, 1_000_072];
    const insert = (n: number, firstOffset: number, lagSec: number) =>
      h.store.internal.command(`INSERT INTO ${FEED_TABLES.ticks.name} (${FEED_TABLES.ticks.columns.join(', ')})
        SELECT ${ids[0]} + number % 2, 14, toFloat32(100 + (number * 7) % 13), toInt32((number + 1) * 10), toUInt32(10),
               toDateTime('${day} 09:00:00', 'UTC') + intDiv(number, 6) * 7 AS t, t,
               toDateTime64(t, 6, 'UTC') + toIntervalMicrosecond(${lagSec} * 1000000 + 250),
               0, ${firstOffset} + number, 'test'
        FROM numbers(${n}) ORDER BY number DESC`);
    await insert(600, 10_000, 0);
    await insert(60, 20_000, 900);
    const cases = [
      { from: `${day}T09:00:00Z`, to: `${day}T09:10:00Z`, step: 60, interval: '1m' },
      { from: `${day}T09:01:00Z`, to: `${day}T09:12:00Z`, step: 300, interval: '5m' },
      // Not whole minutes: answered from the ticks.
      { from: `${day}T09:00:30Z`, to: `${day}T09:09:10Z`, step: 60, interval: '1m' },
    ];
    for (const c of cases) {
      const expected: string[] = [];
      for (const id of ids)
        expected.push(...(await barsCsv(id, c.step, c.from, c.to)).map((r) => `${id},${r}`));
      expect(expected.length).toBeGreaterThan(2);
      const answer = await h.api.app.inject({
        method: 'POST',
        url: '/v1/bars',
        payload: { ids, from: c.from, to: c.to, interval: c.interval, format: 'csv' },
        headers: h.read,
      });
      expect(answer.statusCode).toBe(200);
      expect(answer.body.trimEnd().split('\n').slice(1)).toEqual(expected);
    }
    // The same column types from the bars as from the ticks (Arrow carries them).
    const types = async (c: (typeof cases)[number]) => {
      const arrow = await h.api.app.inject({
        method: 'POST',
        url: '/v1/bars',
        payload: { ids, from: c.from, to: c.to, interval: c.interval, format: 'arrow' },
        headers: h.read,
      });
      return tableFromIPC(arrow.rawPayload).schema.fields.map((f) => `${f.name}:${f.type}:${f.nullable}`);
    };
    const fromTicks = await types(cases[2] as (typeof cases)[number]);
    expect(await types(cases[0] as (typeof cases)[number])).toEqual(fromTicks);
    expect(await types(cases[1] as (typeof cases)[number])).toEqual(fromTicks);
  });

  it('answers Arrow and Parquet files', async () => {
    const arrow = await h.api.app.inject({
      method: 'POST',
      url: '/v1/bars',
      payload: { ids: [LIVE_A], from: FROM, to: TO, interval: '1s', format: 'arrow' },
      headers: h.read,
    });
    expect(arrow.statusCode).toBe(200);
    expect(arrow.headers['content-type']).toBe('application/vnd.apache.arrow.file');
    const table = tableFromIPC(arrow.rawPayload);
    expect(table.numRows).toBe((await barsCsv(LIVE_A, 1)).length);
    expect(table.schema.fields.map((f) => f.name)).toEqual([
      'security_id',
      'time',
      'open',
      'high',
      'low',
      'close',
      'volume',
      'vwap',
      'trades',
    ]);
    const parquet = await h.api.app.inject({
      method: 'GET',
      url: `/v1/bars?from=${FROM}&to=${TO}&format=parquet`,
      headers: h.read,
    });
    expect(parquet.statusCode).toBe(200);
    expect(parquet.rawPayload.subarray(0, 4).toString()).toBe('PAR1');
  });

  it('refuses malformed ids and too many bars, naming the field', async () => {
    const bad = await h.api.app.inject({
      method: 'GET',
      url: `/v1/bars?ids=1,x&from=${FROM}&to=${TO}`,
      headers: h.read,
    });
    expect(bad.statusCode).toBe(400);
    const many = await h.api.app.inject({
      method: 'GET',
      url: `/v1/bars?from=2020-01-01&to=${TO}&interval=1s`,
      headers: h.read,
    });
    expect(many.statusCode).toBe(400);
    expect(many.json().error?.field ?? many.body).toMatch(/interval/);
  });
});
