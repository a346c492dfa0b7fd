/**
 * Result isolation on embedded chDB: queries of the API's callers that fail mid-result (result
 * limit, timeout, an exception mid-stream) interleaved with sink-style inserts and loader-style
 * queries on one store. Every answer must be its own query's (each selects a unique token) and
 * every insert must land.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { ClickHouseClient } from '@clickhouse/client';
import { tempDir } from '@feedpipe/testkit';
import type * as ChdbConnectionModule from 'chdb/connection';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore, type QueryParams, type Store, type StoreLane } from '../src/index.js';

// Each fails after it has produced rows: the shapes that leave partial output on a chDB session.
const FAILING = {
  resultLimit:
    "SELECT number FROM numbers(100000) SETTINGS max_result_rows = 1000, result_overflow_mode = 'throw', max_block_size = 100",
  exceptionMidStream:
    "SELECT throwIf(number = 5000, 'boom mid-stream') FROM numbers(100000) SETTINGS max_block_size = 100",
  timeout:
    "SELECT sleepEachRow(0.01), number FROM numbers(1000) SETTINGS max_execution_time = 0.2, max_block_size = 10, timeout_overflow_mode = 'throw'",
} as const;

/** A lane's answer as text, through the port. */
async function textOf(lane: StoreLane, query: string, params: QueryParams = {}): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await lane.stream(query, params, 'TabSeparatedRaw')) {
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return Buffer.concat(chunks).toString('utf8').trim();
}

/** The same through a bare client, for the control without the store's guard. */
async function bareTextOf(client: { query: ClickHouseClient['query'] }, query: string): Promise<string> {
  const result = await client.query({ query, format: 'TabSeparatedRaw' });
  return (await result.text()).trim();
}

describe('embedded store: one query never receives another one’s result', () => {
  let store: Store;
  const dataDir = tempDir('store-isolation');
  const table = 'default.isolation_inserts';

  beforeAll(async () => {
    // Room for every task of the test at once: the lanes' queue limits are tested on their own.
    store = createStore({ dataDir, userLane: { maxQueued: 1_000 } });
    await store.internal.command(
      `CREATE TABLE ${table} (token String, n UInt32) ENGINE = MergeTree ORDER BY token`,
    );
  });
  afterAll(async () => {
    await store.close();
  });

  it('hands a failed query’s partial output to the next query of a bare chDB session (the hazard)', async () => {
    // The control: what the store guards against really happens on a session without it. (In this
    // process, on a directory of its own: the store's engine runs in a process of its own.)
    const chdb = createRequire(import.meta.url)('chdb/connection') as typeof ChdbConnectionModule;
    const { createClient } = await import('@clickhouse/client');
    const bare = chdb.createChdbConnection({ path: tempDir('store-isolation-bare') });
    const client = createClient({ connection: bare as never });
    try {
      await expect(bareTextOf(client, FAILING.resultLimit)).rejects.toThrow(/Limit for result exceeded/);
      const token = randomUUID();
      expect(await bareTextOf(client, `SELECT '${token}'`)).not.toBe(token);
    } finally {
      await client.close();
    }
  });

  it('keeps every answer with its query and every insert, across both lanes, under interleaving', async () => {
    const rounds = 12;
    const answers: Array<{ want: string; got: string | Error }> = [];
    const failures: Array<{ kind: string; outcome: 'failed' | 'answered' }> = [];
    const inserted = new Map<string, number>();
    const tasks: Promise<void>[] = [];

    const expectToken = (lane: StoreLane, want: string, query: string, params?: QueryParams) =>
      tasks.push(
        textOf(lane, query, params).then(
          (got) => void answers.push({ want, got }),
          (error: Error) => void answers.push({ want, got: error }),
        ),
      );
    const expectFailure = (lane: StoreLane, kind: keyof typeof FAILING) =>
      tasks.push(
        textOf(lane, FAILING[kind]).then(
          () => void failures.push({ kind, outcome: 'answered' }),
          () => void failures.push({ kind, outcome: 'failed' }),
        ),
      );

    for (let round = 0; round < rounds; round++) {
      // Callers' queries (the query API's lane): failures mid-result and plain token queries.
      for (const kind of Object.keys(FAILING) as Array<keyof typeof FAILING>) {
        expectFailure(store.user, kind);
        const token = randomUUID();
        expectToken(store.user, token, `SELECT '${token}'`);
      }
      const userParam = randomUUID();
      expectToken(store.user, userParam, 'SELECT {t:String}', { t: userParam });

      // The pipeline's lane: loader-style queries (with and without parameters), a failing
      // internal query, and sink-style inserts (both the CSV bulk path and the client's insert).
      const loaderToken = randomUUID();
      expectToken(store.internal, loaderToken, `SELECT '${loaderToken}'`);
      const loaderParam = randomUUID();
      expectToken(store.internal, loaderParam, 'SELECT {t:String}', { t: loaderParam });
      expectFailure(store.internal, round % 2 === 0 ? 'resultLimit' : 'exceptionMidStream');

      const csvToken = randomUUID();
      const csvRows = 50 + round;
      inserted.set(csvToken, csvRows);
      const csv = Buffer.from(Array.from({ length: csvRows }, (_, i) => `${csvToken},${i}\n`).join(''));
      tasks.push(store.internal.insertCsv(table, ['token', 'n'], csv));
      const rowsToken = randomUUID();
      inserted.set(rowsToken, 20);
      tasks.push(
        store.internal.insertRows(
          table,
          ['token', 'n'],
          Array.from({ length: 20 }, (_, i) => [rowsToken, i]),
        ),
      );
    }
    await Promise.all(tasks);

    // Every failing query failed (none was answered with someone else's bytes instead).
    expect(failures.filter((f) => f.outcome !== 'failed')).toEqual([]);
    expect(failures).toHaveLength(rounds * 4);
    // Every token query got exactly its own token back.
    const wrong = answers.filter((a) => a.got !== a.want);
    expect(wrong).toEqual([]);
    expect(answers).toHaveLength(rounds * 6);
    // Every insert landed, whole.
    const counts = new Map(
      (
        await store.internal.rows<{ token: string; n: number | string }>(
          `SELECT token, count() AS n FROM ${table} GROUP BY token`,
        )
      ).map((r) => [r.token, Number(r.n)]),
    );
    for (const [token, rows] of inserted) expect(counts.get(token), token).toBe(rows);
    // The hazard was really met and cleaned up on both lanes (not dodged by luck).
    const load = store.load();
    expect(load.user.failures).toBe(rounds * 3);
    expect(load.user.staleAnswers).toBeGreaterThan(0);
    expect(load.internal.failures).toBe(rounds);
    expect(load.internal.staleAnswers).toBeGreaterThan(0);
  });
});
