/**
 * End to end: the simulator posts order updates to the receiver, which hands them to Kafka and
 * ClickHouse. Ground truth is the simulator's own order-event log.
 */
import { BrokerClient, type PlaceOrderRequest } from '@feedpipe/broker-api';
import {
  createRestServer,
  MarketModel,
  type RestServer,
  ScriptedMarket,
  SIM_TEST_ACCOUNTS,
} from '@feedpipe/broker-sim';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { readTopic, tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { type OrderEvent, readOrderEvents, toOrderEvent } from '../src/postbacks/index.js';
import { type ReceiverApp, SECRET, startReceiverApp } from './postback-helpers.js';

const brokers = inject('kafkaBrokers');
const ONE = SIM_TEST_ACCOUNTS[0]!;
const RELIANCE = 2885;
let store: Store;
let nowMs = Date.UTC(2024, 5, 3, 5, 0, 0); // Monday 10:30 IST
const clock = () => nowMs;

beforeAll(async () => {
  store = createStore({ dataDir: tempDir('postback-e2e') });
  await runMigrations(store.internal);
});
afterAll(async () => store.close());

interface Rig {
  market: ScriptedMarket;
  sim: RestServer;
  client: BrokerClient;
  rx: ReceiverApp;
  topic: string;
  table: string;
  /** Every order transition the simulator emitted, as the receiver would key it. */
  truth: OrderEvent[];
}

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.rx.close();
  await rig?.sim.close();
  rig = undefined;
});

async function setup(giveUpAfterMs: number): Promise<Rig> {
  const market = new ScriptedMarket(new MarketModel({ seed: 5, instruments: 10, now: clock }));
  market.setLtp(RELIANCE, 100);
  const sim = await createRestServer({
    model: market,
    now: clock,
    rateLimits: false,
    matchIntervalMs: 0,
    matching: { liquidityPerTick: 100 },
    postbacks: { retryBaseMs: 50, retryMaxMs: 400, giveUpAfterMs },
  });
  const truth: OrderEvent[] = [];
  sim.orderEvents.on('order', (_c, o) => truth.push(toOrderEvent({ ...o }, 'postback', 0)));
  const client = new BrokerClient({
    baseUrl: sim.baseUrl,
    authUrl: sim.authUrl,
    clientId: ONE.clientId,
    accessToken: ONE.webToken!,
    retryBaseDelayMs: 20,
  });
  const topic = uniqueName('orders_updates');
  const table = `market.${uniqueName('order_events')}`;
  await store.internal.command(`CREATE TABLE ${table} AS market.order_events`);
  const rx = await startReceiverApp({ store, kafkaBrokers: brokers, topic, table, broker: client });
  const registered = await fetch(`${sim.baseUrl}/v2/postback`, {
    method: 'POST',
    headers: { 'access-token': ONE.webToken!, 'content-type': 'application/json' },
    body: JSON.stringify({ postbackUrl: `${rx.baseUrl}/postbacks/orders/${SECRET}` }),
  });
  expect(registered.status).toBe(200);
  rig = { market, sim, client, rx, topic, table, truth };
  return rig;
}

const buy = (over: Partial<PlaceOrderRequest> = {}): PlaceOrderRequest => ({
  transactionType: 'BUY',
  exchangeSegment: 'NSE_EQ',
  productType: 'INTRADAY',
  orderType: 'LIMIT',
  validity: 'DAY',
  securityId: String(RELIANCE),
  quantity: 10,
  price: 99,
  ...over,
});

/** One matching pass on the simulator (every call runs one before it answers). */
const step = async (r: Rig) => void (await r.client.orders.list());

function byOrder<T>(items: readonly T[], idOf: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const list = out.get(idOf(item)) ?? [];
    list.push(item);
    out.set(idOf(item), list);
  }
  return out;
}

const milestone = (e: { status: string; filledQty: number; updateTimeIst: string }) =>
  `${e.status}:${e.filledQty}@${e.updateTimeIst.slice(11)}`;

async function settle(r: Rig, delivered: number): Promise<void> {
  await waitFor(() => r.sim.postbacks.stats().queued === 0, 30_000, 'the simulator to deliver everything');
  expect(r.sim.postbacks.stats().delivered).toBe(delivered);
  await r.rx.receiver.pipeline.flush();
}

async function rowCount(table: string): Promise<number> {
  const rows = await store.internal.rows<{ n: string | number }>(`SELECT count() AS n FROM ${table}`);
  return Number(rows[0]?.n);
}

describe('postbacks end to end', () => {
  it('every transition of placed, partly filled, modified and cancelled orders arrives once and in order', async () => {
    const r = await setup(60_000);
    const a = await r.client.orders.place(buy({ quantity: 250 }));
    const b = await r.client.orders.place(buy({ orderType: 'MARKET', price: 0, quantity: 250 }));
    const c = await r.client.orders.place(buy({ price: 500 })); // outside the circuit band: rejected
    await step(r);
    r.market.setLtp(RELIANCE, 98.5);
    nowMs += 1000;
    await step(r); // a: 100 filled, b: 200
    // Same second as a's fill: a new tick would fill a again before the modification.
    await r.client.orders.modify(a.orderId, { orderType: 'LIMIT', quantity: 150, price: 98 });
    r.market.setLtp(RELIANCE, 99.5);
    nowMs += 1000;
    await step(r); // b traded; a rests above the market
    nowMs += 1000;
    await r.client.orders.cancel(a.orderId);
    await settle(r, r.truth.length);

    const truth = byOrder(r.truth, (e) => e.orderId);
    expect([...truth.keys()].sort()).toEqual([a.orderId, b.orderId, c.orderId].sort());
    expect(truth.get(a.orderId)?.map((e) => `${e.status}:${e.filledQty}`)).toEqual([
      'TRANSIT:0',
      'PENDING:0',
      'PENDING:100',
      'PENDING:100',
      'CANCELLED:100',
    ]);
    const stored = byOrder(await readOrderEvents(store.internal, r.table), (e) => e.orderId);
    const kafka = byOrder(await readTopic(brokers, r.topic), (m) => m.key);
    for (const [orderId, events] of truth) {
      const keys = events.map((e) => e.eventKey);
      expect(stored.get(orderId)?.map((e) => e.eventKey)).toEqual(keys);
      expect(kafka.get(orderId)?.map((m) => m.value.eventKey)).toEqual(keys);
    }
    // Exactly once, physically: no duplicate rows even before merges, no duplicate records.
    expect(await rowCount(r.table)).toBe(r.truth.length);
    expect([...kafka.values()].flat()).toHaveLength(r.truth.length);
    expect(r.rx.receiver.stats()).toMatchObject({ accepted: r.truth.length, duplicates: 0 });
    // Reconciliation finds nothing missing.
    expect((await r.rx.receiver.reconcile()).added).toBe(0);
  });

  it('after the receiver was down for 10 s, retries plus reconciliation leave no transition missing', async () => {
    const r = await setup(3_000);
    const d = await r.client.orders.place(buy({ quantity: 300 }));
    const e = await r.client.orders.place(buy({ price: 95 }));
    await step(r);
    await settle(r, 4);
    const port = r.rx.port;
    await r.rx.close();
    const downAt = Date.now();

    // Early in the outage: given up by the simulator after 3 s, left to reconciliation.
    r.market.setLtp(RELIANCE, 98.5);
    nowMs += 1000;
    await step(r); // d: 100 filled
    const f = await r.client.orders.place(buy({ orderType: 'MARKET', price: 0, quantity: 50 }));
    await step(r); // f: pending and traded
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    nowMs += 1000;
    await step(r); // d: 200 filled
    await r.client.orders.cancel(e.orderId);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 8_500 - (Date.now() - downAt))));
    // Late in the outage: still being retried when the receiver comes back.
    r.market.setLtp(RELIANCE, 99.5);
    nowMs += 1000;
    await r.client.orders.modify(d.orderId, { orderType: 'LIMIT', quantity: 250, price: 99 });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 10_000 - (Date.now() - downAt))));

    r.rx = await startReceiverApp(
      { store, kafkaBrokers: brokers, topic: r.topic, table: r.table, broker: r.client },
      port,
    );
    await waitFor(() => r.sim.postbacks.stats().queued === 0, 30_000, 'the retries to finish');
    const sent = r.sim.postbacks.stats();
    expect(sent.gaveUp).toBeGreaterThan(0);
    expect(sent.delivered).toBeGreaterThan(4);
    const result = await r.rx.receiver.reconcile();
    expect(result.added).toBeGreaterThan(0);

    const truth = byOrder(r.truth, (ev) => ev.orderId);
    const stored = byOrder(await readOrderEvents(store.internal, r.table), (ev) => ev.orderId);
    for (const [orderId, events] of truth) {
      // Every transition, in order: same status, fill and time as the simulator emitted.
      expect(stored.get(orderId)?.map(milestone)).toEqual(events.map(milestone));
    }
    // Orders never modified are rebuilt exactly: a late duplicate of their postbacks would be recognised.
    for (const orderId of [e.orderId, f.orderId]) {
      expect(stored.get(orderId)?.map((ev) => ev.eventKey)).toEqual(
        truth.get(orderId)?.map((ev) => ev.eventKey),
      );
    }
    // The modification was retried into the receiver, with its new quantity.
    expect(stored.get(d.orderId)?.at(-1)).toMatchObject({ quantity: 250, source: 'postback' });
    const total = r.truth.length;
    expect(await rowCount(r.table)).toBe(total);
    const kafka = byOrder(await readTopic(brokers, r.topic), (m) => m.key);
    expect([...kafka.values()].flat()).toHaveLength(total);
    for (const [orderId, events] of stored) {
      const records = kafka.get(orderId) ?? [];
      // Kafka is in arrival order: the same transitions once each; what the simulator delivered
      // keeps its order there, and rebuilt past transitions come after it.
      expect(records.map((m) => m.value.eventKey).sort()).toEqual(events.map((ev) => ev.eventKey).sort());
      const delivered = (list: Array<{ source: unknown; eventKey: unknown }>) =>
        list.filter((x) => x.source === 'postback').map((x) => x.eventKey);
      expect(delivered(records.map((m) => m.value as { source: unknown; eventKey: unknown }))).toEqual(
        delivered(events),
      );
    }
    // A second pass has nothing left to add.
    expect((await r.rx.receiver.reconcile()).added).toBe(0);
  });
});
