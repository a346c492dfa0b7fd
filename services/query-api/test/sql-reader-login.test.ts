/**
 * Caller SQL as a server's read-only user. That user's profile (infra/clickhouse/server/users.d/
 * feedpipe-sql-reader.xml) pins readonly = 2 as a constraint, and ClickHouse then refuses any
 * query that asks for another `readonly` level, even the stricter 1. No server can be installed
 * here, so the store's user lane is wrapped to apply that one rule as the server would, over
 * embedded chDB: with the store saying its user login is pinned (userReadonly = 2), every query of
 * POST /v1/sql (the guard's EXPLAINs included) must ask for readonly = 2 and still answer.
 */
import { FEED_TABLES, SERVICE_TABLES } from '@feedpipe/contracts';
import {
  createStore,
  type QuerySettings,
  runMigrations,
  type Store,
  type StoreLane,
  settingsClause,
} from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createQueryApi, type QueryApi } from '../src/index.js';
import { seedFixture } from './helpers.js';

/** readonly levels a statement's SETTINGS ask for. */
function askedReadonly(query: string): string[] {
  return [...query.matchAll(/\breadonly = (\d+)/g)].map((m) => m[1] ?? '');
}

/**
 * The user lane as a pinned server login sees it: statements (with their SETTINGS clause, as the
 * store sends them) are recorded, and one that asks for a readonly level other than `pinned`
 * fails as ClickHouse fails it (code 164, READONLY). A pinned lane reports readonlyLevel 2, as
 * the store's server adapter does for a reader login.
 */
function pinnedLogin(lane: StoreLane, seen: string[], pinned?: 2): StoreLane {
  const sent = (sql: string, settings?: QuerySettings): Promise<void> => {
    const text = settings ? `${sql}\n${settingsClause(settings)}` : sql;
    seen.push(text);
    if (pinned !== undefined && askedReadonly(text).some((level) => level !== String(pinned))) {
      return Promise.reject(
        new Error("Cannot modify 'readonly' setting in readonly mode. (READONLY) (code 164)"),
      );
    }
    return Promise.resolve();
  };
  return {
    name: lane.name,
    streamsResults: lane.streamsResults,
    turns: lane.turns,
    readonlyLevel: pinned ?? lane.readonlyLevel,
    rows: (sql, params, settings) => sent(sql, settings).then(() => lane.rows(sql, params, settings)),
    stream: (sql, params, format, settings) =>
      sent(sql, settings).then(() => lane.stream(sql, params, format, settings)),
    command: (sql, params) => sent(sql).then(() => lane.command(sql, params)),
    insertRows: (table, columns, rows) => lane.insertRows(table, columns, rows),
    insertCsv: (table, columns, csv) => lane.insertCsv(table, columns, csv),
  };
}

let store: Store;
let reader: QueryApi;
let shared: QueryApi;
let readerKey: Record<string, string>;
let sharedKey: Record<string, string>;
const readerSeen: string[] = [];
const sharedSeen: string[] = [];

beforeAll(async () => {
  store = createStore({ dataDir: tempDir('sql-reader-login') });
  await runMigrations(store.internal);
  await seedFixture(store);
  const readerStore: Store = {
    ...store,
    user: pinnedLogin(store.user, readerSeen, 2),
    userReadonly: 2,
  };
  reader = await createQueryApi({ port: 0 }, { store: readerStore });
  shared = await createQueryApi(
    { port: 0 },
    { store: { ...store, user: pinnedLogin(store.user, sharedSeen) } },
  );
  readerKey = { 'x-api-key': (await reader.keys.create('reader', ['read'])).key };
  sharedKey = { 'x-api-key': (await shared.keys.create('reader', ['read'])).key };
}, 120_000);

afterAll(async () => {
  await reader?.stop();
  await shared?.stop();
  await store?.close();
});

beforeEach(() => {
  readerSeen.length = 0;
  sharedSeen.length = 0;
});

const sql = (api: QueryApi, headers: Record<string, string>, text: string) =>
  api.app.inject({ method: 'POST', url: '/v1/sql', headers, payload: { sql: text } });

describe('caller SQL as a server user whose profile pins readonly = 2', () => {
  it('answers a SELECT, every statement asking for readonly = 2 and none for 1', async () => {
    const response = await sql(reader, readerKey, `SELECT count() AS n FROM ${FEED_TABLES.ticks.name}`);
    expect(response.statusCode, response.body).toBe(200);
    expect((response.json() as { data: unknown[] }).data).toEqual([{ n: 1200 }]);
    const asked = readerSeen.flatMap(askedReadonly);
    expect(asked.length).toBeGreaterThan(0);
    expect(new Set(asked)).toEqual(new Set(['2']));
    // The guard's EXPLAIN steps and the caller's statement itself all ran on that login.
    expect(readerSeen.some((q) => q.includes('EXPLAIN AST'))).toBe(true);
    expect(
      readerSeen.some((q) => q.startsWith('SELECT * FROM (') && q.includes(FEED_TABLES.ticks.name)),
    ).toBe(true);
  });

  it('answers SHOW TABLES and still refuses what the guard refuses', async () => {
    const tables = await sql(reader, readerKey, 'SHOW TABLES FROM market');
    expect(tables.statusCode, tables.body).toBe(200);
    const refused = await sql(reader, readerKey, `SELECT salt FROM ${SERVICE_TABLES.apiKeys.name}`);
    expect(refused.statusCode).toBe(400);
    expect((refused.json() as { error: { code: string } }).error.code).toBe('SQL_REFUSED');
    expect(readerSeen.flatMap(askedReadonly).every((level) => level === '2')).toBe(true);
  });

  it('asks for the stricter readonly = 1 where the login is not pinned (embedded, shared login)', async () => {
    const response = await sql(shared, sharedKey, `SELECT count() AS n FROM ${FEED_TABLES.ticks.name}`);
    expect(response.statusCode, response.body).toBe(200);
    const final = sharedSeen.filter(
      (q) => q.startsWith('SELECT * FROM (') && q.includes(FEED_TABLES.ticks.name),
    );
    expect(final.length).toBeGreaterThan(0);
    for (const query of final) expect(askedReadonly(query)).toEqual(['1']);
  });
});
