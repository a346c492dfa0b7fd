/**
 * Issue 37, item 2, through the API as it runs: a flood of random keys and of wrong secrets for a
 * known key id. Before, every unseen key id cost a lookup of market.api_keys on the store's
 * internal lane (the lane the sink's inserts and /readyz share) and wrong secrets were never
 * throttled. Counted here on the real store's internal lane, wrapped to count its key-table reads.
 */

import { randomBytes } from 'node:crypto';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { recordingReads, tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEYS_TABLE } from '../src/auth/scopes.js';
import { createQueryApi, type QueryApi } from '../src/index.js';

/** The flood: a bounded count, sent one after another (the count matters here, not the rate). */
const FLOOD = 300;

let store: Store;
let api: QueryApi;
/** Statements on the internal lane that read the key table. */
const keyReads: string[] = [];

beforeAll(async () => {
  store = createStore({ dataDir: tempDir('query-api-auth-flood') });
  await runMigrations(store.internal);
  api = await createQueryApi(
    { port: 0, keyCacheMs: 60_000 },
    { store: recordingReads(store, (sql) => sql.includes(API_KEYS_TABLE), keyReads) },
  );
});

afterAll(async () => {
  await api?.stop();
  await store?.close();
});

const randomKey = (): string =>
  `fpk_${randomBytes(8).toString('hex')}_${randomBytes(32).toString('base64url')}`;
const ask = (key: string) =>
  api.app.inject({ method: 'GET', url: '/v1/instruments/1', headers: { 'x-api-key': key } });

describe('key flood against the query API', () => {
  it('random keys cost no read of the key table beyond the table read itself', async () => {
    const reader = await api.keys.create('notebook', ['read']);
    expect((await ask(reader.key)).statusCode).not.toBe(401);
    // The spy sees the key table's reads (its load at start), so a zero below is not a blind spy.
    expect(keyReads.length).toBeGreaterThan(0);
    const before = keyReads.length;
    const statuses = new Set<number>();
    for (let i = 0; i < FLOOD; i += 1) statuses.add((await ask(randomKey())).statusCode);
    // 401 while the address has refusals left, then 429: never a store query.
    expect([...statuses].every((s) => s === 401 || s === 429)).toBe(true);
    expect(keyReads.length - before).toBe(0);
  });

  it('wrong secrets for a known key id are throttled (429 with Retry-After)', async () => {
    const desk = await api.keys.create('desk', ['read']);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i += 1) {
      const wrong = `${desk.key.slice(0, 21)}${randomBytes(32).toString('base64url')}`;
      const response = await api.app.inject({
        method: 'GET',
        url: '/v1/instruments/1',
        headers: { 'x-api-key': wrong },
        remoteAddress: '127.0.0.2',
      });
      statuses.push(response.statusCode);
      if (response.statusCode === 429) expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(10);
  });
});
