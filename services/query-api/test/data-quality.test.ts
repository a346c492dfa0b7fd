/**
 * The ledger of gaps on the API: /v1/data-quality/gaps lists the intervals overlapping [from, to)
 * in the tabular formats, filtered by instrument, with 400s naming the field; and the join to the
 * bars that docs/notebook.md shows runs as written through /v1/sql.
 */
import { FEED_TABLES } from '@feedpipe/contracts';
import { tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, type Harness, type JsonTable, LIVE_A, LIVE_B, startHarness } from './helpers.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ cache: { finalAfterMs: 0 } });
  // A token renewal that hid LIVE_A from 09:02:30 to 09:03:10, an eviction of LIVE_B at 09:05-09:06,
  // and a gap of LIVE_A the day before.
  await h.store.internal.command(`INSERT INTO ${FEED_TABLES.feedGaps.name}
      (security_id, segment, subscription, cause, started_at, ended_at, connection, kafka_partition, kafka_offset, kafka_cluster) VALUES
      (${LIVE_A}, 1, 'trade', 'token_renewal', '${DAY} 09:02:30.250', '${DAY} 09:03:10', 2, 0, 1, 'test'),
      (${LIVE_B}, 1, 'trade', 'eviction', '${DAY} 09:05:00', '${DAY} 09:06:00', 4, 0, 2, 'test'),
      (${LIVE_A}, 1, 'trade', 'process_stopped', '2024-03-03T09:00:00Z', '2024-03-03T09:30:00Z', 0, 0, 3, 'test')`);
});
afterAll(async () => {
  await h?.close();
});

const get = (url: string) => h.api.app.inject({ method: 'GET', url, headers: h.read });

describe('GET /v1/data-quality/gaps', () => {
  it('lists the gaps overlapping the range, oldest first, with cause, bounds, duration and connection', async () => {
    const r = await get(`/v1/data-quality/gaps?from=${DAY}T09:00:00Z&to=${DAY}T10:00:00Z`);
    expect(r.statusCode).toBe(200);
    const body = JSON.parse(r.body) as JsonTable;
    expect(body.data).toEqual([
      {
        security_id: LIVE_A,
        segment: 1,
        subscription: 'trade',
        cause: 'token_renewal',
        started_at: `${DAY}T09:02:30.250000Z`,
        ended_at: `${DAY}T09:03:10.000000Z`,
        duration_ms: 39750,
        connection: 2,
      },
      expect.objectContaining({ security_id: LIVE_B, cause: 'eviction', duration_ms: 60000, connection: 4 }),
    ]);
    // A gap that ends inside the range is listed; one that ended before it is not.
    const late = JSON.parse(
      (await get(`/v1/data-quality/gaps?from=${DAY}T09:03:00Z&to=${DAY}T09:04:00Z`)).body,
    );
    expect(late.data.map((g: { cause: string }) => g.cause)).toEqual(['token_renewal']);
  });

  it('filters by instrument and answers CSV and Parquet', async () => {
    const csv = await get(
      `/v1/data-quality/gaps?from=2024-03-03&to=2024-03-05&securityId=${LIVE_A}&format=csv`,
    );
    expect(csv.headers['content-type']).toContain('text/csv');
    const lines = csv.body.trim().split('\n');
    expect(lines[0]).toBe(
      '"security_id","segment","subscription","cause","started_at","ended_at","duration_ms","connection"',
    );
    expect(lines.slice(1).map((l) => l.split(',')[3])).toEqual(['"process_stopped"', '"token_renewal"']);

    const parquet = await get(`/v1/data-quality/gaps?from=2024-03-03&to=2024-03-05&format=parquet`);
    expect(parquet.rawPayload.subarray(0, 4).toString()).toBe('PAR1');
    const table = tableFromIPC(readParquet(new Uint8Array(parquet.rawPayload)).intoIPCStream());
    expect(table.numRows).toBe(3);
    expect(table.getChild('cause')?.toArray()).toEqual(['process_stopped', 'token_renewal', 'eviction']);
  });

  it('400 naming the field for a bad range or instrument, 401 without a key', async () => {
    const noFrom = await get('/v1/data-quality/gaps');
    expect(noFrom.statusCode).toBe(400);
    expect(noFrom.body).toContain('from');
    const reversed = await get(`/v1/data-quality/gaps?from=${DAY}T10:00:00Z&to=${DAY}T09:00:00Z`);
    expect(reversed.statusCode).toBe(400);
    expect(reversed.json().error.field).toBe('to');
    const badId = await get(`/v1/data-quality/gaps?from=${DAY}&securityId=abc`);
    expect(badId.statusCode).toBe(400);
    expect(badId.body).toContain('securityId');
    const anonymous = await h.api.app.inject({ method: 'GET', url: `/v1/data-quality/gaps?from=${DAY}` });
    expect(anonymous.statusCode).toBe(401);
  });

  it('joins to the 1-minute bars as docs/notebook.md shows', async () => {
    // The statement of docs/notebook.md, "Gaps in the recording".
    const sql = `
SELECT DISTINCT b.minute AS minute, g.cause AS cause, g.started_at AS started_at, g.ended_at AS ended_at
FROM market.bars_1m AS b
INNER JOIN market.feed_gaps AS g ON g.security_id = b.security_id
WHERE b.security_id = {sid:UInt32}
  AND b.minute >= {start:DateTime} AND b.minute < {end:DateTime}
  AND g.started_at < b.minute + INTERVAL 1 MINUTE AND g.ended_at >= b.minute
ORDER BY minute`;
    const r = await h.api.app.inject({
      method: 'POST',
      url: '/v1/sql',
      headers: { ...h.read, 'content-type': 'application/json' },
      payload: {
        sql,
        params: { sid: LIVE_A, start: `${DAY} 09:00:00`, end: `${DAY} 10:00:00` },
        format: 'json',
      },
    });
    expect(r.statusCode).toBe(200);
    const rows = (JSON.parse(r.body) as JsonTable<{ minute: string; cause: string }>).data;
    expect(rows.map((row) => [row.minute, row.cause])).toEqual([
      [`${DAY}T09:02:00Z`, 'token_renewal'],
      [`${DAY}T09:03:00Z`, 'token_renewal'],
    ]);
  });
});
