/**
 * Caller SQL bounded before and while it runs (issue 37, items 4 and 6): the cost a statement may
 * ask for while it is analysed, the memory it may use, and the bytes it may answer, counted as the
 * bytes actually sent; and the SQL doors hold a key to its share of the engine's sessions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_HEAVY_CALLS } from '../src/sql/analysis-budget.js';
import { type Harness, startHarness } from './helpers.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    sql: { maxMemoryBytes: 300_000_000, maxResultBytes: 10_000_000 },
    rateLimit: { perSecond: 10_000, burst: 10_000 },
  });
});

afterAll(async () => {
  await h?.close();
});

function sql(text: string) {
  return h.api.app.inject({ method: 'POST', url: '/v1/sql', headers: h.read, payload: { sql: text } });
}

function distances(n: number): string {
  return Array.from(
    { length: n },
    (_, i) => `levenshteinDistance(repeat('a${i}', 1500), repeat('b${i}', 1500))`,
  ).join(' + ');
}

describe('caller SQL within bounds', () => {
  it('refuses a statement whose constant work is not bounded by its time limit, before it runs', async () => {
    const r = await sql(`SELECT ${distances(30)} AS d`);
    expect(r.statusCode, r.body).toBe(400);
    expect(r.json().error.code).toBe('SQL_REFUSED');
    expect(r.json().error.message).toMatch(/calls costly functions \(.*levenshteinDistance.*\) 90 times/);
    const few = await sql(`SELECT levenshteinDistance('kitten', 'sitting') AS d`);
    expect(few.statusCode, few.body).toBe(200);
    expect(few.json().data).toEqual([{ d: 3 }]);
    expect(MAX_HEAVY_CALLS).toBeGreaterThanOrEqual(2);
  });

  it('holds a statement to its memory limit (the engine runs with a configuration of its own)', async () => {
    const r = await sql('SELECT count() AS n FROM (SELECT arrayJoin(range(300000000)) AS x GROUP BY x)');
    expect(r.statusCode, r.body).toBe(400);
    expect(r.json().error.code).toBe('QUERY_FAILED');
    expect(r.json().error.message).toMatch(/MEMORY_LIMIT_EXCEEDED, code 241/);
  });

  it('counts max_result_bytes as the bytes answered, constant columns too', async () => {
    const r = await sql("SELECT repeat('x', 1000000) AS s FROM market.ticks LIMIT 68");
    const rows = await sql('SELECT count() AS n FROM market.ticks');
    // The fixture has rows enough for an answer over the 10 MB limit.
    expect(Number(rows.json().data[0].n)).toBeGreaterThanOrEqual(11);
    expect(r.statusCode, r.body.slice(0, 200)).toBe(400);
    expect(r.json().error.code).toBe('QUERY_FAILED');
    expect(r.json().error.message).toMatch(
      /result is larger than its limit \(TOO_MANY_ROWS_OR_BYTES, code 396\)/,
    );
    const small = await sql("SELECT repeat('x', 1000) AS s FROM market.ticks LIMIT 2");
    expect(small.statusCode).toBe(200);
  });
});
