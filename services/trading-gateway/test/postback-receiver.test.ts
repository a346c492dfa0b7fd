import { ORDER_UPDATE_SCHEMA_ID, SCHEMA_HEADER } from '@feedpipe/contracts';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { readTopic, tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readOrderEvents } from '../src/postbacks/index.js';
import { collectSse, type ReceiverApp, SECRET, startReceiverApp } from './postback-helpers.js';

const brokers = inject('kafkaBrokers');
let store: Store;

beforeAll(async () => {
  store = createStore({ dataDir: tempDir('postback-receiver') });
  await runMigrations(store.internal);
});
afterAll(async () => store.close());

const update = (orderId: string, status: string, filledQty = 0, over: Record<string, unknown> = {}) => ({
  svcClientId: '1000000001',
  orderId,
  orderStatus: status,
  securityId: '2885',
  exchangeSegment: 'NSE_EQ',
  transactionType: 'BUY',
  quantity: 10,
  filledQty,
  remainingQuantity: 10 - filledQty,
  price: 100,
  updateTime: '2024-06-03 10:30:00',
  ...over,
});

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

describe('postback receiver', () => {
  let rx: ReceiverApp;
  let topic: string;
  let table: string;

  beforeAll(async () => {
    topic = uniqueName('orders_updates');
    table = `market.${uniqueName('order_events')}`;
    await store.internal.command(`CREATE TABLE ${table} AS market.order_events`);
    rx = await startReceiverApp({
      store,
      kafkaBrokers: brokers,
      topic,
      table,
      allowlist: ['127.0.0.0/8', '::1'],
    });
  });
  afterAll(async () => rx.close());

  it('refuses a missing or wrong secret, a bad body and a wrong content type, and none reaches Kafka', async () => {
    const url = `${rx.baseUrl}/postbacks/orders`;
    const noSecret = await post(url, update('R1', 'TRANSIT'));
    expect(noSecret).toEqual({
      status: 401,
      body: { error: { code: 'POSTBACK_UNAUTHENTICATED', message: 'missing or wrong postback secret' } },
    });
    expect((await post(`${url}/wrong-secret-0123456789`, update('R1', 'TRANSIT'))).status).toBe(401);
    expect((await post(url, update('R1', 'TRANSIT'), { 'x-postback-secret': 'nope' })).status).toBe(401);
    const good = `${url}/${SECRET}`;
    const notJson = await post(good, '{"orderId": "R1",');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe('POSTBACK_MALFORMED');
    const noStatus = await post(good, { orderId: 'R1', filledQty: 1 });
    expect(noStatus.status).toBe(400);
    const badStatus = await post(good, update('R1', 'EXPLODED'));
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.error.message).toMatch(/orderStatus/);
    const negative = await post(good, update('R1', 'PENDING', -5));
    expect(negative.status).toBe(400);
    const array = await post(good, [update('R1', 'TRANSIT')]);
    expect(array.status).toBe(400);
    const form = await fetch(good, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'orderId=R1&orderStatus=TRANSIT',
    });
    expect(form.status).toBe(415);
    const big = await post(good, update('R1', 'TRANSIT', 0, { omsErrorDescription: 'x'.repeat(70_000) }));
    expect(big.status).toBe(413);
    // Nothing was accepted: not a record reached the write-ahead log, so none can reach Kafka.
    expect(rx.receiver.stats()).toMatchObject({ accepted: 0, refused: { secret: 3 } });
    expect(rx.receiver.stats().wal).toMatchObject({ appended: 0, entries: 0 });
    expect(await readOrderEvents(store.internal, table)).toEqual([]);
    for (const secretInUrl of [noSecret, notJson, badStatus]) {
      expect(JSON.stringify(secretInUrl.body)).not.toContain(SECRET);
    }
  });

  it('refuses sources off the allowlist before looking at the secret', async () => {
    const strict = await startReceiverApp({
      store,
      kafkaBrokers: brokers,
      topic: uniqueName('orders_updates'),
      table,
      allowlist: ['10.0.0.0/8'],
    });
    try {
      const res = await post(`${strict.baseUrl}/postbacks/orders/${SECRET}`, update('S1', 'TRANSIT'));
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('POSTBACK_SOURCE_REFUSED');
      expect(strict.receiver.stats()).toMatchObject({ accepted: 0, refused: { source: 1, secret: 0 } });
    } finally {
      await strict.close();
    }
  });

  it('accepts with the secret in the path or a header, stores duplicates once, in order, and streams them', async () => {
    const stream = collectSse(`${rx.baseUrl}/order-updates/stream?orderId=D1`, 3);
    await Promise.race([stream.open, stream.done]);
    const other = collectSse(`${rx.baseUrl}/order-updates/stream?securityId=999`, 1, 3000);
    await Promise.race([other.open, other.done]);
    const good = `${rx.baseUrl}/postbacks/orders/${SECRET}`;
    const sequence = [
      update('D1', 'TRANSIT'),
      update('D1', 'PENDING', 0, { updateTime: '2024-06-03 10:30:00' }),
      update('D1', 'PENDING', 4, { updateTime: '2024-06-03 10:30:01' }),
    ];
    expect((await post(good, sequence[0])).status).toBe(202);
    expect(
      (await post(`${rx.baseUrl}/postbacks/orders`, sequence[1], { 'x-postback-secret': SECRET })).status,
    ).toBe(202);
    expect((await post(good, sequence[0])).body.status).toBe('duplicate');
    expect((await post(good, sequence[2])).status).toBe(202);
    expect((await post(good, sequence[2])).status).toBe(200);
    expect((await post(good, update('E1', 'TRANSIT', 0, { securityId: '11536' }))).status).toBe(202);
    await rx.receiver.pipeline.flush();
    const streamed = await stream.done;
    expect(streamed.map((e) => `${e.orderId}:${e.status}:${e.filledQty}`)).toEqual([
      'D1:TRANSIT:0',
      'D1:PENDING:0',
      'D1:PENDING:4',
    ]);
    expect(await other.done).toEqual([]);
    const stored = await readOrderEvents(store.internal, table, { orderId: 'D1' });
    expect(stored.map((e) => `${e.status}:${e.filledQty}`)).toEqual(['TRANSIT:0', 'PENDING:0', 'PENDING:4']);
    const records = await readTopic(brokers, topic);
    expect(
      records.filter((r) => r.key === 'D1').map((r) => `${r.value.status}:${r.value.filledQty}`),
    ).toEqual(['TRANSIT:0', 'PENDING:0', 'PENDING:4']);
    expect(records).toHaveLength(4);
    // One record shape everywhere: the table's history reads back the Kafka values exactly.
    expect(stored).toEqual(records.filter((r) => r.key === 'D1').map((r) => r.value));
    expect(stored[2]).toMatchObject({
      updateTime: Date.UTC(2024, 5, 3, 5, 0, 1),
      updateTimeIst: '2024-06-03 10:30:01',
    });
    // Every record names its schema and version in a header, as the data contract says.
    expect(records.map((r) => r.headers[SCHEMA_HEADER]?.toString())).toEqual(
      Array(4).fill(ORDER_UPDATE_SCHEMA_ID),
    );
    const history = await fetch(`${rx.baseUrl}/order-updates?securityId=11536`);
    expect(((await history.json()) as { events: unknown[] }).events).toHaveLength(1);
    expect(rx.receiver.stats()).toMatchObject({ accepted: 4, duplicates: 2, persisted: 4 });
  });

  it('recognises duplicates after a restart from the stored keys', async () => {
    await rx.close();
    rx = await startReceiverApp({ store, kafkaBrokers: brokers, topic, table });
    const again = await post(`${rx.baseUrl}/postbacks/orders/${SECRET}`, update('D1', 'TRANSIT'));
    expect(again.body.status).toBe('duplicate');
    await waitFor(async () => (await readTopic(brokers, topic)).length === 4, 5000, 'the topic to stay at 4');
  });
});
