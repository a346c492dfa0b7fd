/**
 * Key management while the API runs on embedded chDB, whose data directory the running process
 * holds: the CLI (`query-api create-key | list-keys | revoke-key`, a separate process) cannot open
 * the store, so it goes through the API's admin routes with the admin key from the environment.
 * A key made that way works at once, the list shows no secret, a revocation holds from the next
 * request, and a read key can manage nothing. No Kafka needed.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueryApi, type QueryApi } from '../src/index.js';

const BIN = join(import.meta.dirname, '..', 'bin', 'query-api.mjs');
let dataDir: string;
let store: Store;
let api: QueryApi;
let adminKey: string;
let readKey: string;

beforeAll(async () => {
  dataDir = tempDir('key-cli');
  store = createStore({ dataDir: join(dataDir, 'chdb') });
  await runMigrations(store.internal);
  api = await createQueryApi({ port: 0, logLevel: false }, { store });
  await api.start();
  adminKey = (await api.keys.create('ops', ['admin'])).key;
  readKey = (await api.keys.create('reader', ['read'])).key;
});

afterAll(async () => {
  await api?.stop();
  await store?.close();
});

function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, DATA_DIR: dataDir, ...env }, timeout: 90_000 },
      (error, out, err) => resolve({ code: error ? Number(error.code ?? 1) : 0, out, err }),
    );
  });
}

async function status(key: string): Promise<number> {
  const response = await fetch(`${api.url}/v1/sql?q=${encodeURIComponent('SELECT 1')}`, {
    headers: { 'x-api-key': key },
  });
  await response.arrayBuffer();
  return response.status;
}

describe('query-api key commands against the running API', () => {
  it('create-key falls back to the running API when its store is held, and the key works at once', async () => {
    const port = new URL(api.url).port;
    const created = await cli(['create-key', 'notebook', 'read'], {
      QUERY_API_PORT: port,
      QUERY_API_ADMIN_KEY: adminKey,
    });
    expect(created.code, created.err).toBe(0);
    const { keyId, key, scopes } = JSON.parse(created.out) as {
      keyId: string;
      key: string;
      scopes: string[];
    };
    expect(scopes).toEqual(['read']);
    expect(await status(key)).toBe(200);
    expect(created.err).not.toContain(adminKey.slice(21));

    const listed = await cli(['list-keys', '--url', api.url], { QUERY_API_ADMIN_KEY: adminKey });
    expect(listed.code, listed.err).toBe(0);
    const rows = listed.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const row = rows.find((r) => r.keyId === keyId);
    expect(row).toMatchObject({ name: 'notebook', scopes: ['read'], revoked: false });
    expect(typeof row?.lastUsedAt).toBe('string');
    expect(listed.out).not.toContain(key.slice(21));
    expect(listed.out).not.toMatch(/"(salt|hash|key)"/);

    const revoked = await cli(['revoke-key', keyId, '--url', api.url], { QUERY_API_ADMIN_KEY: adminKey });
    expect([revoked.code, revoked.out.trim()]).toEqual([0, 'revoked']);
    expect(await status(key)).toBe(401);
  });

  it('a read key manages nothing (403), and without an admin key the CLI says what to do', async () => {
    const refused = await cli(['list-keys', '--url', api.url], { QUERY_API_ADMIN_KEY: readKey });
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/HTTP 403/);
    expect(refused.err).not.toContain(readKey.slice(21));
    const routed = await fetch(`${api.url}/v1/admin/keys`, { headers: { 'x-api-key': readKey } });
    expect(routed.status).toBe(403);

    const noKey = await cli(['list-keys'], {
      QUERY_API_PORT: new URL(api.url).port,
      QUERY_API_ADMIN_KEY: '',
    });
    expect(noKey.code).toBe(2);
    expect(noKey.err).toMatch(/QUERY_API_ADMIN_KEY/);
  });
});
