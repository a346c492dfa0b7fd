/** Pure planning logic: universe parsing, grid windows, plan limits, checkpoint coverage, error classes. */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BrokerApiError } from '@feedpipe/broker-api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gridWindows, istDayOf } from '../src/calendar.js';
import { CheckpointIndex, type StoredUnit } from '../src/checkpoints.js';
import { classifyFailure } from '../src/classify.js';
import { LoaderError, resolveOptions } from '../src/index.js';
import { resolvePlan } from '../src/plan-options.js';
import { planClock, staticUnits } from '../src/units.js';
import { parseUniverse } from '../src/universe.js';

const NOW = Date.UTC(2026, 5, 10, 6, 0, 0); // a Wednesday, 11:30 IST

describe('universe', () => {
  it('reads JSON and CSV into the same instruments', () => {
    const json = parseUniverse(
      JSON.stringify({
        instruments: [{ securityId: 13, segment: 'IDX_I', instrument: 'INDEX', optionChain: true }],
      }),
      'json',
    );
    const csv = parseUniverse('securityId,segment,instrument,optionChain\n13,IDX_I,INDEX,true\n', 'csv');
    expect(csv).toEqual(json);
    expect(json[0]).toMatchObject({
      securityId: 13,
      optionChain: true,
      expiredOptions: false,
      fnoSegment: 'NSE_FNO',
    });
  });

  it('refuses unknown fields, bad segments, duplicates and options on a non-underlying', () => {
    const bad = (rows: unknown[]) => () => parseUniverse(JSON.stringify(rows), 'json');
    expect(bad([{ securityId: 1, segment: 'NSE_EQ', instrument: 'EQUITY', colour: 'red' }])).toThrow(
      /unknown field "colour"/,
    );
    expect(bad([{ securityId: 1, segment: 'NYSE', instrument: 'EQUITY' }])).toThrow(/segment must be one of/);
    expect(
      bad([
        { securityId: 1, segment: 'NSE_EQ', instrument: 'EQUITY' },
        { securityId: 1, segment: 'NSE_EQ', instrument: 'EQUITY' },
      ]),
    ).toThrow(/duplicate instrument/);
    expect(bad([{ securityId: 1, segment: 'NSE_FNO', instrument: 'FUTIDX', optionChain: true }])).toThrow(
      LoaderError,
    );
  });
});

describe('grid windows', () => {
  it('cover [from, to) exactly once, each at most `size` days, on a grid that does not move', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 30_000 }),
        fc.integer({ min: 0, max: 3_000 }),
        fc.integer({ min: 1, max: 400 }),
        (from, len, size) => {
          const windows = gridWindows(from, from + len, size);
          let at = from;
          for (const [a, b] of windows) {
            expect(a).toBe(at);
            expect(b - a).toBeGreaterThan(0);
            expect(b - a).toBeLessThanOrEqual(size);
            // Every boundary inside the range sits on the grid.
            if (a !== from) expect(a % size).toBe(0);
            at = b;
          }
          expect(at).toBe(len === 0 ? from : from + len);
        },
      ),
    );
  });
});

describe('plan', () => {
  it('rejects unknown keys and out-of-range values by name', () => {
    expect(() => resolvePlan({ intraday: { windowDays: 91 } })).toThrow(
      'plan: "intraday.windowDays" must be an integer from 1 to 90',
    );
    expect(() => resolvePlan({ expiredOptions: { windowDays: 46 } })).toThrow(
      'plan: "expiredOptions.windowDays" must be an integer from 1 to 45',
    );
    expect(() => resolvePlan({ optionChain: { everySeconds: 2 } })).toThrow(/at least 3/);
    expect(() => resolvePlan({ daily: { since: '2020-01-01' } } as never)).toThrow(
      'plan: unknown option "daily.since" (allowed: enabled, from, windowDays)',
    );
    expect(() => resolvePlan({ expiredOptions: { sides: ['CALL', 'BOTH'] } } as never)).toThrow(
      '"expiredOptions.sides" must be a list of CALL, PUT of at least 1',
    );
    expect(() => resolvePlan({ intraday: { intervals: [5, 10] } } as never)).toThrow(
      '"intraday.intervals" must be a list of 1, 5, 15, 30, 60',
    );
    // The right shape, but no day of the calendar.
    expect(() => resolvePlan({ until: '2026-02-30' })).toThrow('plan.until must be a date YYYY-MM-DD');
  });

  it("takes a JSON universe file's plan unless a plan is given (npm start names only the file)", () => {
    const demo = fileURLToPath(new URL('../universe/demo.json', import.meta.url));
    const filePlan = (JSON.parse(readFileSync(demo, 'utf8')) as { plan: object }).plan;
    const broker = { baseUrl: 'http://127.0.0.1:1', clientId: '1' };
    expect(resolveOptions({ broker, universe: demo }).plan).toEqual(resolvePlan(filePlan));
    expect(resolvePlan(filePlan)).not.toEqual(resolvePlan({}));
    expect(resolveOptions({ broker, universe: demo, plan: {} }).plan).toEqual(resolvePlan({}));
  });

  it('keeps intraday and expired options within the service limits and 5 years', () => {
    const universe = parseUniverse(
      JSON.stringify([{ securityId: 13, segment: 'IDX_I', instrument: 'INDEX', expiredOptions: true }]),
      'json',
    );
    const plan = resolvePlan({
      daily: { enabled: false },
      intraday: { intervals: [1], days: 1825 },
      expiredOptions: { strikes: 10, days: 1825 },
    });
    const clock = planClock(plan, NOW);
    const units = staticUnits(universe, plan, clock);
    const today = istDayOf(NOW);
    const intraday = units.filter((u) => u.kind === 'intraday');
    const expired = units.filter((u) => u.kind === 'expired_options');
    for (const u of intraday) expect(u.toS - u.fromS).toBeLessThanOrEqual(90 * 86_400);
    for (const u of expired) {
      expect(u.toS - u.fromS).toBeLessThanOrEqual(45 * 86_400);
      expect(u.partial).toBe(false);
    }
    const oldest = Math.min(...units.map((u) => u.fromS));
    expect(oldest).toBeGreaterThanOrEqual((today - 1825) * 86_400 - 19_800);
    // 21 strikes x 2 sides per window.
    const windows = new Set(expired.map((u) => u.fromS)).size;
    expect(expired.length).toBe(21 * 2 * windows);
    expect(new Set(expired.map((u) => u.variant)).size).toBe(42);
    // Only the window reaching into today is partial.
    expect(intraday.filter((u) => u.partial).length).toBe(1);
  });
});

describe('checkpoint coverage', () => {
  const universe = parseUniverse(
    JSON.stringify([{ securityId: 2885, segment: 'NSE_EQ', instrument: 'EQUITY' }]),
    'json',
  );
  const plan = resolvePlan({ daily: { enabled: false }, intraday: { intervals: [5], days: 200 } });

  function stored(status: StoredUnit['status'], u: { fromS: number; toS: number }, attempts = 1): StoredUnit {
    return {
      kind: 'intraday',
      securityId: 2885,
      segment: 'NSE_EQ',
      interval: 5,
      variant: '',
      status,
      attempts,
      ...u,
    };
  }

  it('skips windows a done row covers (also when the first window shrinks as days pass), retries the rest', () => {
    const yesterday = staticUnits(universe, plan, planClock(plan, NOW - 86_400_000));
    const today = staticUnits(universe, plan, planClock(plan, NOW));
    const [first, second, ...rest] = yesterday;
    if (first === undefined || second === undefined) throw new Error('plan too small');
    const index = new CheckpointIndex([
      stored('done', first),
      stored('failed', second),
      ...rest.map((u) => stored('retry', u, 3)),
    ]);
    const filtered = index.filter(today);
    expect(filtered.skippedDone).toBe(1);
    expect(filtered.skippedFailed).toBe(1);
    // The rest are planned again, with the attempts earlier runs used.
    expect(filtered.todo.length).toBe(today.length - 2);
    expect(filtered.todo.filter((u) => u.priorAttempts === 3).length).toBeGreaterThan(0);
  });
});

describe('failure classes', () => {
  const http = (status: number, errorCode: string) =>
    new BrokerApiError({
      code: status === 429 ? 'RATE_LIMITED' : 'HTTP_ERROR',
      message: 'x',
      status,
      errorCode,
    });

  it('records 8xx data errors, retries 5xx, 429 and network faults, stops on access errors and spent budgets', () => {
    expect(classifyFailure(http(400, '813')).kind).toBe('permanent');
    expect(classifyFailure(http(400, '812')).kind).toBe('permanent');
    expect(classifyFailure(http(500, 'DH-908')).kind).toBe('transient');
    expect(classifyFailure(http(429, 'DH-904')).kind).toBe('transient');
    expect(classifyFailure(new BrokerApiError({ code: 'NETWORK', message: 'reset' })).kind).toBe('transient');
    expect(classifyFailure(http(401, 'DH-901')).kind).toBe('fatal');
    expect(classifyFailure(http(400, '806')).kind).toBe('fatal');
    const budget = classifyFailure(
      new BrokerApiError({ code: 'BUDGET_EXHAUSTED', message: 'spent', retryAt: 42 }),
    );
    expect(budget).toEqual({ kind: 'budget', reason: 'BUDGET_EXHAUSTED spent', retryAt: 42 });
  });
});
