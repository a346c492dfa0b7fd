/**
 * A run's logs hold no secret: the query API and the trading gateway with its postback receiver log
 * at debug level into a capturing stream while requests carry their API keys (header, bearer,
 * query), the postback secret (path, header) and the upstream access token; a feed ingestor with
 * that token meets refused upgrades and a dead port. Every captured line (and the ingestor's
 * status) is then searched for each secret. Needs the run's Kafka broker (the receiver writes to it).
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { prefixedTopics } from '@feedpipe/contracts';
import { createFeedIngestor, type FeedIngestor } from '@feedpipe/feed-ingestor';
import { createQueryApi, type QueryApi } from '@feedpipe/query-api';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { createTradingGateway, type TradingGateway } from '@feedpipe/trading-gateway';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const brokers = inject('kafkaBrokers');
const POSTBACK_SECRET = 'pbsecret-Xq7Lm2Vn9Rt4Wz8Ky3Hd';
const ACCESS_TOKEN = 'upstream-token-eyJhbGciOiJIUzUxMiJ9.c2VjcmV0';
const apiLines: string[] = [];
const ingestorLines: string[] = [];
let store: Store;
let api: QueryApi;
let gateway: TradingGateway;
let key: string;
let tradeKey: string;
let refusing: Server;
let ingestor: FeedIngestor | undefined;

function capture(into: string[]): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      into.push(String(chunk));
      done();
    },
  });
}

beforeAll(async () => {
  const table = `market.${uniqueName('order_events')}`;
  store = createStore({ dataDir: tempDir('secrets-in-logs') });
  await runMigrations(store.internal);
  await store.internal.command(`CREATE TABLE IF NOT EXISTS ${table} AS market.order_events`);
  api = await createQueryApi(
    { host: '127.0.0.1', port: 0, logLevel: 'debug' },
    { store, kafkaBrokers: brokers, logStream: capture(apiLines) },
  );
  await api.start();
  key = (await api.keys.create('log-test', ['read'])).key;
  gateway = await createTradingGateway(
    {
      host: '127.0.0.1',
      port: 0,
      logLevel: 'debug',
      postbacks: {
        secret: POSTBACK_SECRET,
        walDir: tempDir('secrets-wal'),
        topic: uniqueName('orders_updates'),
        table,
      },
    },
    { store, kafkaBrokers: brokers, logStream: capture(apiLines), logSecrets: [ACCESS_TOKEN] },
  );
  await gateway.start();
  tradeKey = (await gateway.keys.create('log-test', ['trade'])).key;
  // An upstream that refuses every WebSocket upgrade, as a service under maintenance does.
  refusing = createServer((_request, response) => response.writeHead(503).end('maintenance'));
  refusing.on('upgrade', (_request, socket) => socket.end('HTTP/1.1 503 Service Unavailable\r\n\r\n'));
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await ingestor?.stop();
  await new Promise<void>((resolve) => refusing?.close(() => resolve()));
  await gateway?.stop();
  await api?.stop();
  await store?.close();
});

const update = {
  svcClientId: '1000000001',
  orderId: 'LOG-1',
  orderStatus: 'TRANSIT',
  securityId: '2885',
  exchangeSegment: 'NSE_EQ',
  transactionType: 'BUY',
  quantity: 10,
  filledQty: 0,
  remainingQuantity: 10,
  price: 100,
  updateTime: '2024-06-03 10:30:00',
};

describe('logs of a run', () => {
  it('hold no API key, postback secret or access token', async () => {
    const keySecret = key.slice('fpk_0123456789abcdef_'.length);
    const tradeKeySecret = tradeKey.slice('fpk_0123456789abcdef_'.length);
    const both = { 'x-api-key': key };
    const trade = { 'x-api-key': tradeKey };
    const url = api.url;
    const get = (path: string, headers: Record<string, string> = {}) => fetch(`${url}${path}`, { headers });
    const gatewayGet = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${gateway.url}${path}`, { headers });
    const post = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${gateway.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(update),
      });

    expect((await get('/v1/status', both)).status).toBe(200);
    await get('/v1/status', { authorization: `Bearer ${key}` });
    await get(`/v1/status?key=${key}`);
    await get(`/status?key=${key}`);
    await get(`/v1/nothing-here/${ACCESS_TOKEN}?access-token=${ACCESS_TOKEN}`, both);
    expect((await gatewayGet('/order-updates', trade)).status).toBe(200);
    await gatewayGet('/order-updates', { authorization: `Bearer ${tradeKey}` });
    await gatewayGet(`/order-updates?key=${tradeKey}`);
    await gatewayGet(`/v1/nothing-here/${ACCESS_TOKEN}?access-token=${ACCESS_TOKEN}`, trade);
    expect((await post(`/postbacks/orders/${POSTBACK_SECRET}`)).status).toBe(202);
    await post('/postbacks/orders', { 'x-postback-secret': POSTBACK_SECRET });
    await post(`/postbacks/orders/${POSTBACK_SECRET}x`);
    // The secret URL with a method it does not have: no route matches, and its path is not logged.
    const wrongMethod = await gatewayGet(`/postbacks/orders/${POSTBACK_SECRET}`, trade);
    expect(wrongMethod.status).toBe(405);

    // The upstream token on a feed connection that is refused, then on a port nobody listens on.
    const port = (refusing.address() as AddressInfo).port;
    ingestor = createFeedIngestor(
      {
        feedUrl: `ws://127.0.0.1:${port}/feed`,
        brokers,
        topics: prefixedTopics(uniqueName('log')),
        connections: 1,
        instruments: { trade: ['2885'] },
      },
      {
        credentials: { clientId: '1000000001', token: ACCESS_TOKEN, authType: 2 },
        log: (message) => ingestorLines.push(message),
      },
    );
    await ingestor.start();
    const started = ingestor;
    await waitFor(() => Object.keys(started.stats().feedErrors).length > 0, 30_000, 'a refused upgrade');
    const status = JSON.stringify(started.stats());
    await started.stop();
    ingestor = undefined;

    const logged = apiLines.join('');
    // The lines are there (the search below is about real request lines), without concrete paths.
    expect(logged).toContain('"route":"/status"');
    expect(logged).toContain('"route":"(no route)"');
    expect(logged.match(/"(url|route)":"\/postbacks\/orders[^"]*"/g)?.length).toBeGreaterThanOrEqual(3);
    expect(logged).toContain('"route":"/order-updates"');
    for (const secret of [keySecret, tradeKeySecret, POSTBACK_SECRET, ACCESS_TOKEN]) {
      expect(logged).not.toContain(secret);
      expect(ingestorLines.join('\n')).not.toContain(secret);
      expect(status).not.toContain(secret);
    }
    expect(logged).not.toContain('?key=');
    expect(logged).not.toContain('access-token=');
  });
});
