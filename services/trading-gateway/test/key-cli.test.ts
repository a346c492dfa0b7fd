/**
 * The gateway's key commands while it runs on embedded chDB, whose data directory the running
 * process holds: the CLI (`trading-gateway create-key | list-keys | revoke-key`, a separate process)
 * cannot open the store, so it goes through the gateway's admin routes with the admin key from the
 * environment. A key made that way works at once, the list shows no secret, a revocation holds
 * from the next request, and a key of the query API (its own table, market.api_keys) opens nothing
 * here, even on the same store. No Kafka needed.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { SERVICE_TABLES } from '@feedpipe/contracts';
import { ApiKeyStore } from '@feedpipe/service-http';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTradingGateway, type TradingGateway } from '../src/index.js';

const BIN = join(import.meta.dirname, '..', 'bin', 'trading-gateway.mjs');
let dataDir: string;
let store: Store;
let gateway: TradingGateway;
let gatewayUrl: string;
let adminKey: string;

beforeAll(async () => {
  dataDir = tempDir('gateway-key-cli');
  store = createStore({ dataDir: join(dataDir, 'chdb') });
  await runMigrations(store.internal);
  gateway = await createTradingGateway({ port: 0, logLevel: false }, { store });
  gatewayUrl = await gateway.start();
  adminKey = (await gateway.keys.create('ops', ['admin'])).key;
});

afterAll(async () => {
  await gateway?.stop();
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
  const response = await fetch(`${gatewayUrl}/v1/admin/keys`, { headers: { 'x-api-key': key } });
  await response.arrayBuffer();
  return response.status;
}

describe('trading-gateway key commands against the running gateway', () => {
  it('create, list and revoke through the running gateway when its store is held', async () => {
    const port = new URL(gatewayUrl).port;
    const created = await cli(['create-key', 'desk', 'admin'], {
      TRADING_GATEWAY_PORT: port,
      TRADING_GATEWAY_ADMIN_KEY: adminKey,
    });
    expect(created.code, created.err).toBe(0);
    const { keyId, key, scopes } = JSON.parse(created.out) as {
      keyId: string;
      key: string;
      scopes: string[];
    };
    expect(scopes).toEqual(['admin']);
    expect(await status(key)).toBe(200);

    const listed = await cli(['list-keys', '--url', gatewayUrl], { TRADING_GATEWAY_ADMIN_KEY: adminKey });
    expect(listed.code, listed.err).toBe(0);
    const rows = listed.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows.find((r) => r.keyId === keyId)).toMatchObject({
      name: 'desk',
      scopes: ['admin'],
      revoked: false,
    });
    expect(listed.out).not.toContain(key.slice(21));
    expect(listed.out).not.toContain(adminKey.slice(21));

    const revoked = await cli(['revoke-key', keyId, '--url', gatewayUrl], {
      TRADING_GATEWAY_ADMIN_KEY: adminKey,
    });
    expect([revoked.code, revoked.out.trim()]).toEqual([0, 'revoked']);
    expect(await status(key)).toBe(401);
  });

  it('a trade key manages nothing (403) and a query-API key is unknown here (401)', async () => {
    const trade = (await gateway.keys.create('trader', ['trade'])).key;
    const refused = await cli(['list-keys', '--url', gatewayUrl], { TRADING_GATEWAY_ADMIN_KEY: trade });
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/HTTP 403/);
    expect(refused.err).not.toContain(trade.slice(21));
    // The query API's key table on the same store, as its own ApiKeyStore writes it.
    const apiKeys = new ApiKeyStore(store.internal, {
      table: SERVICE_TABLES.apiKeys.name,
      scopes: ['read', 'admin'],
      cacheMs: 0,
    });
    const apiAdmin = (await apiKeys.create('api-ops', ['admin'])).key;
    expect(await status(apiAdmin)).toBe(401);
  });
});
