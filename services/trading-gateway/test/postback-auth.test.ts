/**
 * How a postback proves itself and what the logs show of it: an HMAC signature of the body or the
 * secret in a header (for a relay), the secret in the path (the service's only way, which can be
 * switched off); the receiver's request logs never hold the secret or a query string. And the
 * order-update routes answer an API-key failure with 401/403, not 500.
 * No Kafka broker is contacted: nothing here reaches the sinks' network side before the asserts.
 */
import { Writable } from 'node:stream';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir, uniqueName } from '@feedpipe/testkit';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTradingGateway } from '../src/index.js';
import { postbackRoutes, SIGNATURE_HEADER, signBody } from '../src/postbacks/index.js';
import { SECRET, startReceiverApp } from './postback-helpers.js';

/** Never contacted: the Kafka writer connects on its first send, after these tests look. */
const NO_KAFKA = ['127.0.0.1:9'];

let store: Store;
let table: string;
beforeAll(async () => {
  store = createStore({ dataDir: tempDir('postback-auth') });
  await runMigrations(store.internal);
  table = `market.${uniqueName('order_events')}`;
  await store.internal.command(`CREATE TABLE ${table} AS market.order_events`);
});
afterAll(async () => store.close());

const update = (orderId: string) =>
  JSON.stringify({
    orderId,
    orderStatus: 'TRANSIT',
    quantity: 1,
    price: 10,
    updateTime: '2024-06-03 10:30:00',
  });

async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, body: (await res.json()) as { error?: { code: string }; status?: string } };
}

describe('postback secret transports', () => {
  it('accepts an HMAC-SHA256 signature of the body or the secret in a header, and refuses a wrong one', async () => {
    const rx = await startReceiverApp({ store, kafkaBrokers: NO_KAFKA, table, allowSecretInPath: false });
    try {
      const url = `${rx.baseUrl}/postbacks/orders`;
      const signed = update('SIG1');
      expect((await post(url, signed, { [SIGNATURE_HEADER]: signBody(SECRET, signed) })).status).toBe(202);
      // The signature covers the body: the same signature over another body is refused.
      const other = update('SIG2');
      const forged = await post(url, other, { [SIGNATURE_HEADER]: signBody(SECRET, signed) });
      expect(forged).toEqual({
        status: 401,
        body: { error: { code: 'POSTBACK_UNAUTHENTICATED', message: 'missing or wrong postback secret' } },
      });
      expect(
        (await post(url, other, { [SIGNATURE_HEADER]: signBody('another-secret-0123456789', other) })).status,
      ).toBe(401);
      expect((await post(url, other, { 'x-postback-secret': SECRET })).status).toBe(202);
      // The path form is off here: the right secret in the path is refused.
      expect((await post(`${url}/${SECRET}`, update('PATH'))).status).toBe(401);
      expect(rx.receiver.stats()).toMatchObject({ accepted: 2, refused: { secret: 3 } });
    } finally {
      await rx.close();
    }
  });

  it('never writes the secret, a wrong secret or a query string to the request log', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = Fastify({ logger: { level: 'info', stream } });
    await postbackRoutes(app, {
      store,
      kafkaBrokers: NO_KAFKA,
      table,
      secret: SECRET,
      walDir: tempDir('postback-log-wal'),
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const address = app.server.address();
      const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const wrong = 'almost-the-secret-0123456789';
      expect(
        (await post(`${base}/postbacks/orders/${SECRET}?token=query-secret-xyz`, update('LOG1'))).status,
      ).toBe(202);
      expect((await post(`${base}/postbacks/orders/${wrong}`, update('LOG2'))).status).toBe(401);
      expect(
        (
          await post(`${base}/postbacks/orders`, update('LOG3'), {
            [SIGNATURE_HEADER]: signBody(SECRET, update('LOG3')),
          })
        ).status,
      ).toBe(202);
    } finally {
      await app.close();
    }
    const log = lines.join('');
    expect(lines.length).toBeGreaterThanOrEqual(6);
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain('almost-the-secret');
    expect(log).not.toContain('query-secret-xyz');
    expect(log).not.toContain(signBody(SECRET, update('LOG3')).slice(7));
    expect(log).toContain('"url":"/postbacks/orders/[secret]"');
  });
});

describe('order-update routes behind API keys', () => {
  it('answer 401 without a key and 403 without the scope, not 500', async () => {
    const api = await createTradingGateway(
      {
        port: 0,
        logLevel: false,
        postbacks: { secret: SECRET, walDir: tempDir('postback-api-wal'), table },
      },
      { store, kafkaBrokers: NO_KAFKA },
    );
    try {
      // The gateway's scopes are trade and admin: an admin key manages keys and nothing else.
      const keeper = await api.keys.create('orders-keeper', ['admin']);
      const trader = await api.keys.create('orders-trader', ['trade']);
      const call = (method: 'GET' | 'POST', url: string, key?: string) =>
        api.app.inject({ method, url, headers: key ? { 'x-api-key': key } : {} });
      for (const url of ['/order-updates', '/order-updates/stream']) {
        const none = await call('GET', url);
        expect(none.statusCode, url).toBe(401);
        expect(none.json().error.code).toBe('UNAUTHENTICATED');
        const wrongScope = await call('GET', url, keeper.key);
        expect(wrongScope.statusCode, url).toBe(403);
        expect(wrongScope.json().error.code).toBe('FORBIDDEN');
      }
      expect((await call('POST', '/order-updates/reconcile')).statusCode).toBe(401);
      const keeperReconciles = await call('POST', '/order-updates/reconcile', keeper.key);
      expect(keeperReconciles.statusCode).toBe(403);
      expect(keeperReconciles.json().error.code).toBe('FORBIDDEN');
      // With the right scope the route itself answers.
      const history = await call('GET', '/order-updates', trader.key);
      expect(history.statusCode).toBe(200);
      expect(history.json()).toEqual({ events: [] });
    } finally {
      await api.stop();
    }
  });
});
