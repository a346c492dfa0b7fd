/**
 * The OpenAPI documents as outside tools read them (issue #16 item 1): the documents both services
 * serve at /docs/json pass openapi-spec-validator (PyPI, in the project's venv), and Python clients
 * generated from them by openapi-generator (Maven Central; test/openapi-clients/generator.ts)
 * call the running services: the bars route as JSON (its answer is declared bytes first, so the
 * generated call returns bytes; json.loads reads them), the same route in Parquet chosen by Accept, POST /v1/sql with a typed body, a refusal as the typed ErrorBody, and the
 * gateway's order book over the broker simulator. Every value is compared with the services' own
 * JSON answers. The generation runs here, into .tmp/openapi-clients; nothing generated is kept.
 *
 * Python 3.10+ with venv and pip, Java 17+ and Maven are prerequisites of `npm test`, as for the
 * SDK conformance suite (test/sdk-conformance/venv.ts builds the venv from its requirements.txt).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BrokerClient } from '@feedpipe/broker-api';
import {
  createRestServer,
  MarketModel,
  type RestServer,
  ScriptedMarket,
  SIM_TEST_ACCOUNTS,
} from '@feedpipe/broker-sim';
import { createQueryApi, type QueryApi } from '@feedpipe/query-api';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { createTradingGateway, type TradingGateway } from '@feedpipe/trading-gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, LIVE_A, seedFixture } from '../services/query-api/test/helpers.js';
import { generatePythonClient, generatorJar } from './openapi-clients/generator.js';
import { ensureSdkVenv } from './sdk-conformance/venv.js';

const root = join(import.meta.dirname, '..');
const WORK = join(root, '.tmp', 'openapi-clients');
const DRIVER = join(root, 'test', 'openapi-clients', 'drive_clients.py');
const SETUP_TIMEOUT_MS = 600_000;
const DRIVER_TIMEOUT_MS = 120_000;
const TCS = 11536;
const FROM = `${DAY}T09:00:00Z`;
const TO = `${DAY}T09:10:00Z`;

interface DriverOutput {
  barsJson: { types: Record<string, string[]>; rows: Array<Record<string, unknown>> };
  barsParquet: {
    status: number;
    contentType: string;
    columns: string[];
    close: number[];
    volume: number[];
    trades: number[];
  };
  sql: { meta: Array<{ name: string; type: string }>; rows: Array<Record<string, unknown>> };
  sqlRefused: { status: number; code: string } | null;
  gatewayOrders: { types: string[]; orders: Array<Record<string, unknown>> };
}

let store: Store;
let api: QueryApi;
let gateway: TradingGateway;
let sim: RestServer;
let readKey: string;
let tradeKey: string;
let python: string;
let documents: { query: string; gateway: string };
let orderId: string;

async function startServices(): Promise<void> {
  store = createStore({ dataDir: tempDir('openapi-clients') });
  await runMigrations(store.internal);
  await seedFixture(store);
  api = await createQueryApi({ port: 0, logLevel: false }, { store });
  await api.start();
  readKey = (await api.keys.create('generated-client', ['read'])).key;
  const market = new ScriptedMarket(new MarketModel({ seed: 1, instruments: 50 }));
  market.setLtp(TCS, 3500);
  sim = await createRestServer({ model: market, rateLimits: false });
  const account = SIM_TEST_ACCOUNTS[0] as (typeof SIM_TEST_ACCOUNTS)[number];
  const broker = new BrokerClient({
    baseUrl: sim.baseUrl,
    clientId: account.clientId,
    accessToken: account.webToken,
    retryBaseDelayMs: 10,
  });
  gateway = await createTradingGateway(
    { port: 0, logLevel: false, trading: { maxQuantity: 1_000, maxNotional: 1_000_000 } },
    { store, broker, instruments: [{ securityId: TCS, segment: 'NSE_EQ', lastPrice: 3500 }] },
  );
  await gateway.start();
  tradeKey = (await gateway.keys.create('generated-client', ['trade'])).key;
  const placed = await fetch(`${gateway.url}/v1/orders`, {
    method: 'POST',
    headers: { 'x-api-key': tradeKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      transactionType: 'BUY',
      exchangeSegment: 'NSE_EQ',
      productType: 'INTRADAY',
      orderType: 'LIMIT',
      validity: 'DAY',
      securityId: String(TCS),
      quantity: 2,
      price: 3000,
      correlationId: 'openapi-client-1',
    }),
  });
  expect(placed.status).toBe(200);
  orderId = ((await placed.json()) as { orderId: string }).orderId;
}

/** The documents as served, written where the validator and the generator read them. */
async function saveDocuments(): Promise<void> {
  mkdirSync(WORK, { recursive: true });
  documents = { query: join(WORK, 'query-api.json'), gateway: join(WORK, 'trading-gateway.json') };
  writeFileSync(documents.query, await (await fetch(`${api.url}/docs/json`)).text());
  writeFileSync(documents.gateway, await (await fetch(`${gateway.url}/docs/json`)).text());
}

function runDriver(input: unknown): Promise<{ out: string; err: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [DRIVER], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        LANG: 'C.UTF-8',
        PYTHONDONTWRITEBYTECODE: '1',
        PYTHONPATH: [join(WORK, 'query'), join(WORK, 'gateway')].join(':'),
        NO_PROXY: '127.0.0.1,localhost',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      err = (err + d.toString('utf8')).slice(-10_000);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), DRIVER_TIMEOUT_MS);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ out, err, code });
    });
    child.stdin.end(JSON.stringify(input));
  });
}

async function json<T>(url: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(url, init);
  expect(res.status, url).toBe(200);
  return (await res.json()) as T;
}

describe('the OpenAPI documents read by third-party tools', () => {
  let driven: DriverOutput;

  beforeAll(async () => {
    python = ensureSdkVenv().python;
    const jar = generatorJar();
    await startServices();
    await saveDocuments();
    await Promise.all([
      generatePythonClient(jar, documents.query, join(WORK, 'query'), 'feedpipe_query'),
      generatePythonClient(jar, documents.gateway, join(WORK, 'gateway'), 'feedpipe_gateway'),
    ]);
    const run = await runDriver({
      queryUrl: api.url,
      queryKey: readKey,
      gatewayUrl: gateway.url,
      gatewayKey: tradeKey,
      securityId: LIVE_A,
      from: FROM,
      to: TO,
    });
    if (run.code !== 0) throw new Error(`driver exited ${run.code}:\n${run.err}`);
    driven = JSON.parse(run.out) as DriverOutput;
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await api?.stop();
    await gateway?.stop();
    await sim?.close();
    await store?.close();
  });

  it('pass openapi-spec-validator', () => {
    for (const doc of [documents.query, documents.gateway]) {
      const r = spawnSync(python, ['-m', 'openapi_spec_validator', doc], {
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(`${r.stdout}${r.stderr}`.trim(), doc).toBe(`${doc}: OK`);
      expect(r.status).toBe(0);
    }
  });

  it('give a generated client the bars as JSON bytes equal to the JSON answer', async () => {
    const url = `${api.url}/v1/instruments/${LIVE_A}/bars?from=${FROM}&to=${TO}&interval=1m`;
    const answer = await json<{ data: Array<Record<string, unknown>> }>(url, {
      headers: { 'x-api-key': readKey },
    });
    expect(answer.data.length).toBe(10);
    const types = driven.barsJson.types;
    expect(types).toMatchObject({ time: ['str'], volume: ['int'], trades: ['int'] });
    // A JSON number: json.loads keeps 109 an int and 104.5 a float.
    expect(types.close?.every((t) => t === 'int' || t === 'float')).toBe(true);
    expect(driven.barsJson.rows).toEqual(answer.data);
  });

  it('give a generated client the same bars in Parquet, chosen by Accept', async () => {
    const url = `${api.url}/v1/instruments/${LIVE_A}/bars?from=${FROM}&to=${TO}&interval=1m`;
    const answer = await json<{ data: Array<{ close: number; volume: number; trades: number }> }>(url, {
      headers: { 'x-api-key': readKey },
    });
    const parquet = driven.barsParquet;
    expect(parquet.status).toBe(200);
    expect(parquet.contentType).toBe('application/vnd.apache.parquet');
    expect(parquet.columns).toEqual(['time', 'open', 'high', 'low', 'close', 'volume', 'vwap', 'trades']);
    expect(parquet.close).toEqual(answer.data.map((r) => r.close));
    expect(parquet.volume).toEqual(answer.data.map((r) => r.volume));
    expect(parquet.trades).toEqual(answer.data.map((r) => r.trades));
  });

  it('run POST /v1/sql from a generated client, typed, and get refusals as ErrorBody', async () => {
    const sql = `SELECT security_id, count() AS n, max(ltp) AS high FROM market.ticks WHERE security_id = ${LIVE_A} GROUP BY security_id`;
    const answer = await json<{ meta: unknown[]; data: unknown[] }>(`${api.url}/v1/sql`, {
      method: 'POST',
      headers: { 'x-api-key': readKey, 'content-type': 'application/json' },
      body: JSON.stringify({ sql }),
    });
    expect(answer.data).toEqual([{ security_id: LIVE_A, n: 600, high: 109 }]);
    expect(driven.sql.meta).toEqual(answer.meta);
    expect(driven.sql.rows).toEqual(answer.data);
    expect(driven.sqlRefused).toEqual({ status: 400, code: 'SQL_REFUSED' });
  });

  it("give a generated client the gateway's order book, typed", async () => {
    const book = await json<Array<Record<string, unknown>>>(`${gateway.url}/v1/orders`, {
      headers: { 'x-api-key': tradeKey },
    });
    expect(book.map((o) => o.orderId)).toContain(orderId);
    expect(driven.gatewayOrders.types).toEqual(['Order']);
    expect(driven.gatewayOrders.orders).toEqual(book);
  });
});
