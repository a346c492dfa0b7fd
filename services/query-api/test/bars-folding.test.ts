/**
 * Bars requests folded into one statement (analytics/bars-folding.ts, FOLDED_BARS_SQL): every
 * answer is the one its own statement (BARS_SQL) gives, in each text format, over ticks that
 * arrive out of trade-time order; requests waiting together share statements; a failed statement
 * fails its batch and nothing else; a short line waits at most the linger time.
 */
import { FEED_TABLES } from '@feedpipe/contracts';
import { createStore, fillTradeQuantities, runMigrations, type Store } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BarsFolder,
  type BarsFolderOptions,
  type BarsRequest,
  rowsByRequest,
} from '../src/analytics/bars-folding.js';
import { BARS_SQL } from '../src/analytics/bars-sql.js';
import { QueryApiError } from '../src/errors.js';
import { QueryRunner } from '../src/query/query-runner.js';
import type { RowTextFormat } from '../src/query/text-bodies.js';

const DAY0 = Date.parse('2024-03-04T00:00:00Z') / 1000;
const FIRST_ID = 500_001;
const INSTRUMENTS = 5;
const DAYS = 3;
/** Ticks an instrument a day, from 23:00 UTC of the day before to 23:00 (days meet at midnight). */
const PER_DAY = 2_000;

/**
 * Ticks whose receive order differs from trade-time order (trade times up to 300 s before receipt,
 * ticks ~43 s apart), cumulative volume rising in receive order, some ticks without traded
 * quantity: what makes a bar's volume depend on which tick came before which.
 */
async function seed(store: Store): Promise<void> {
  const ticks = FEED_TABLES.ticks;
  await store.internal.command(`INSERT INTO ${ticks.name} (${ticks.columns.filter((c) => c !== 'quantity').join(', ')})
    SELECT ${FIRST_ID} + number % ${INSTRUMENTS} AS sid, 14,
           toFloat32(100 + (cityHash64(number) % 500) / 100),
           toInt32(intDiv(intDiv(number, ${INSTRUMENTS}) % ${PER_DAY}, 3) * 7 + 5),
           toDateTime(${DAY0 - 3_600}, 'UTC') + intDiv(intDiv(number, ${INSTRUMENTS}), ${PER_DAY}) * 86400
             + intDiv((intDiv(number, ${INSTRUMENTS}) % ${PER_DAY}) * 86400, ${PER_DAY}) - (cityHash64(number, 1) % 300) AS t,
           t,
           toDateTime64(${DAY0 - 3_600}, 6, 'UTC') + toIntervalSecond(intDiv(intDiv(number, ${INSTRUMENTS}), ${PER_DAY}) * 86400
             + intDiv((intDiv(number, ${INSTRUMENTS}) % ${PER_DAY}) * 86400, ${PER_DAY})) + toIntervalMicrosecond(number % 1000),
           0, number, 'test'
    FROM numbers(${INSTRUMENTS * PER_DAY * DAYS})`);
  // Each tick's quantity as the sink stores it.
  await fillTradeQuantities(store.internal);
}

/** A seeded stream of requests: every step the route allows a sample of, ranges whole or cut. */
function requests(count: number, seedValue: number): BarsRequest[] {
  let s = seedValue;
  const random = () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
  const steps = [1, 7, 60, 90, 300, 3_600, 86_400];
  const out: BarsRequest[] = [];
  for (let i = 0; i < count; i++) {
    const step = steps[Math.floor(random() * steps.length)] as number;
    // One id that has no ticks at all: an empty answer, in every format.
    const securityId = random() < 0.1 ? FIRST_ID + 99 : FIRST_ID + Math.floor(random() * INSTRUMENTS);
    const whole = random() < 0.4;
    const fromSec = whole
      ? DAY0 + Math.floor(random() * DAYS) * 86_400
      : DAY0 - 7_200 + Math.floor(random() * DAYS * 86_400);
    const span =
      step === 1
        ? 600 + Math.floor(random() * 3_000)
        : whole
          ? 86_400
          : 60 + Math.floor(random() * 2 * 86_400);
    out.push({ securityId, step, fromSec, toSec: fromSec + span });
  }
  return out;
}

function paramsOf(r: BarsRequest) {
  return { sid: r.securityId, step: r.step, fromSec: r.fromSec, toSec: r.toSec };
}

const OPTIONS: BarsFolderOptions = {
  maxInFlight: 1,
  maxBars: 100_000,
  maxRequests: 25,
  fullBatch: 25,
  lingerMs: 20,
};

describe('folded bars against the engine', () => {
  let store: Store;
  let runner: QueryRunner;
  beforeAll(async () => {
    store = createStore({ dataDir: tempDir('bars-folding') });
    await runMigrations(store.internal);
    await seed(store);
    runner = new QueryRunner(store.user, 60);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  it.each(['ndjson', 'csv', 'json'] as RowTextFormat[])(
    'answers each request as its own statement would, in %s, sharing statements',
    async (format) => {
      const batches: number[] = [];
      let statements = 0;
      const folder = new BarsFolder(new QueryRunner(store.user, 60, { onQuery: () => statements++ }), {
        ...OPTIONS,
        onBatch: (n) => batches.push(n),
      });
      const asked = requests(60, format.length * 7_919);
      const folded = await Promise.all(asked.map((r) => folder.answer(r, format)));
      expect(Math.max(...batches)).toBeGreaterThan(1);
      expect(statements).toBe(batches.length);
      expect(statements).toBeLessThan(asked.length);
      let nonEmpty = 0;
      for (const [i, r] of asked.entries()) {
        const alone = await runner.buffer({ sql: BARS_SQL, params: paramsOf(r), format });
        const mine = folded[i]?.body as Buffer;
        expect(folded[i]?.contentType).toBe(alone.contentType);
        if (format === 'json') {
          const { statistics: _a, ...expected } = JSON.parse(alone.body.toString()) as Record<
            string,
            unknown
          >;
          const { statistics, ...actual } = JSON.parse(mine.toString()) as Record<string, unknown>;
          expect(actual, JSON.stringify(r)).toEqual(expected);
          expect(typeof (statistics as { elapsed: unknown }).elapsed).toBe('number');
          if ((actual.rows as number) > 0) nonEmpty++;
        } else {
          expect(mine.toString(), JSON.stringify(r)).toBe(alone.body.toString());
          if (mine.toString().split('\n').length > (format === 'csv' ? 2 : 1)) nonEmpty++;
        }
      }
      expect(nonEmpty).toBeGreaterThan(asked.length / 2);
    },
    120_000,
  );

  it("gives a bar the same volume whatever range holds it (a tick's predecessor is the one received before it that day)", async () => {
    const bar = async (toSec: number) => {
      const body = await runner.buffer({
        sql: BARS_SQL,
        params: { sid: FIRST_ID, step: 300, fromSec: DAY0 + 36_000, toSec },
        format: 'ndjson',
      });
      return JSON.parse(body.body.toString().split('\n')[0] as string) as { time: string; volume: number };
    };
    const first = await bar(DAY0 + 36_300);
    expect(first.time).toBe('2024-03-04T10:00:00Z');
    expect(await bar(DAY0 + 86_400)).toEqual(first);
    expect(await bar(DAY0 + 2 * 86_400)).toEqual(first);
  });
});

/** A runner whose statements the test settles one by one, recording each batch's instruments. */
function heldRunner() {
  const calls: Array<{ sids: number[]; settle: (body: Buffer | Error) => void }> = [];
  const runner = {
    bufferAs(query: { params: { sids: number[] } }): Promise<Buffer> {
      return new Promise((resolve, reject) => {
        calls.push({
          sids: query.params.sids,
          settle: (body) => (body instanceof Error ? reject(body) : resolve(body)),
        });
      });
    },
  };
  return { calls, runner: runner as unknown as QueryRunner };
}

/** RowBinary rows (r UInt32, line String) as the folded statement writes them. */
function rowBinary(rows: Array<[number, string]>): Buffer {
  return Buffer.concat(
    rows.flatMap(([r, line]) => {
      const head = Buffer.alloc(4);
      head.writeUInt32LE(r);
      const text = Buffer.from(line);
      return [head, Buffer.from([text.length]), text];
    }),
  );
}

const ask = (securityId: number): BarsRequest => ({
  securityId,
  step: 60,
  fromSec: DAY0,
  toSec: DAY0 + 3_600,
});
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('folding', () => {
  it('fails every request of a failed statement, and only those', async () => {
    const { calls, runner } = heldRunner();
    const folder = new BarsFolder(runner, { ...OPTIONS, lingerMs: 1_000 });
    const first = folder.answer(ask(1), 'ndjson');
    await tick();
    const second = folder.answer(ask(2), 'ndjson');
    const third = folder.answer(ask(3), 'ndjson');
    expect(calls.map((c) => c.sids)).toEqual([[1]]);
    const refusal = new QueryApiError('OVERLOADED', 'the store has too many queries waiting');
    calls[0]?.settle(refusal);
    await expect(first).rejects.toBe(refusal);
    await tick();
    expect(calls.map((c) => c.sids)).toEqual([[1], [2, 3]]);
    calls[1]?.settle(
      rowBinary([
        [2, '{"n":3}'],
        [1, '{"n":2}'],
      ]),
    );
    expect((await second).body.toString()).toBe('{"n":2}\n');
    expect((await third).body.toString()).toBe('{"n":3}\n');
  });

  it('starts a statement beside a running one once a short line has waited the linger time', async () => {
    const { calls, runner } = heldRunner();
    const folder = new BarsFolder(runner, { ...OPTIONS, maxInFlight: 2, lingerMs: 30 });
    const first = folder.answer(ask(1), 'csv');
    await tick();
    const second = folder.answer(ask(2), 'csv');
    await tick();
    expect(calls).toHaveLength(1);
    const started = Date.now();
    while (calls.length < 2 && Date.now() - started < 5_000) await new Promise((r) => setTimeout(r, 5));
    expect(calls.map((c) => c.sids)).toEqual([[1], [2]]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(20);
    for (const call of calls) call.settle(rowBinary([]));
    expect((await first).body.toString()).toBe(
      '"time","open","high","low","close","volume","vwap","trades"\n',
    );
    await second;
  });

  it('starts a full line beside a running statement at once', async () => {
    const { calls, runner } = heldRunner();
    const folder = new BarsFolder(runner, { ...OPTIONS, maxInFlight: 2, fullBatch: 3, lingerMs: 60_000 });
    const answers = [folder.answer(ask(1), 'json')];
    await tick();
    for (const id of [2, 3, 4]) answers.push(folder.answer(ask(id), 'json'));
    expect(calls.map((c) => c.sids)).toEqual([[1], [2, 3, 4]]);
    for (const call of calls) call.settle(rowBinary([]));
    for (const answer of answers) expect(JSON.parse((await answer).body.toString()).rows).toBe(0);
  });

  it('keeps a batch within the bars one answer may hold', async () => {
    const { calls, runner } = heldRunner();
    const folder = new BarsFolder(runner, { ...OPTIONS, maxBars: 150 });
    const answers = [1, 2, 3, 4].map((id) => folder.answer(ask(id), 'ndjson'));
    await tick();
    calls[0]?.settle(rowBinary([]));
    await answers[0];
    await tick();
    // 60 bars each: two fit in 150, the third waits for the next statement.
    expect(calls.map((c) => c.sids)).toEqual([[1], [2, 3]]);
    calls[1]?.settle(rowBinary([]));
    await tick();
    expect(calls.map((c) => c.sids)).toEqual([[1], [2, 3], [4]]);
    calls[2]?.settle(rowBinary([]));
    await Promise.all(answers);
  });

  it('fails a batch whose result cannot be split with a typed store error, for every request', async () => {
    const { calls, runner } = heldRunner();
    const folder = new BarsFolder(runner, OPTIONS);
    const first = folder.answer(ask(1), 'csv');
    await tick();
    const batch = [2, 3].map((id) => folder.answer(ask(id), 'csv'));
    calls[0]?.settle(rowBinary([]));
    await first;
    await tick();
    expect(calls.map((c) => c.sids)).toEqual([[1], [2, 3]]);
    calls[1]?.settle(
      rowBinary([
        [1, 'fine'],
        [7, 'from no request of this batch'],
      ]),
    );
    for (const answer of batch) {
      await expect(answer).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', status: 503 });
    }
  });

  it('refuses a malformed statement result rather than hand out part of it', () => {
    const good = rowBinary([
      [1, 'a'],
      [2, 'bc'],
    ]);
    expect(rowsByRequest(good, 2).map((rows) => rows.map(String))).toEqual([['a'], ['bc']]);
    expect(() => rowsByRequest(good.subarray(0, good.length - 1), 2)).toThrow(/does not fit|cut short/);
    expect(() => rowsByRequest(good.subarray(0, 3), 2)).toThrow(/cut short/);
    expect(() => rowsByRequest(rowBinary([[3, 'x']]), 2)).toThrow(/request 3/);
    expect(() => rowsByRequest(rowBinary([[0, 'x']]), 2)).toThrow(/request 0/);
  });
});
