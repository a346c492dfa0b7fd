/**
 * Fills are stored exactly once when the gateway is killed during a burst of fills: a whole
 * gateway (postback receiver on, fills read on postbacks and at start) runs in a child process
 * that is killed with SIGKILL at random moments while orders on the simulator fill one unit per
 * tick and the simulator posts their updates; each new process is registered as the postback URL.
 * At the end every fill of the trade book (Indian and US) is in market.fills once, counted without
 * FINAL, and the killed processes had stored fills from postbacks.
 */
import { fileURLToPath } from 'node:url';
import { BrokerClient } from '@feedpipe/broker-api';
import {
  createRestServer,
  MarketModel,
  type RestServer,
  ScriptedMarket,
  SIM_TEST_ACCOUNTS,
} from '@feedpipe/broker-sim';
import { tempDir, waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startChild } from './child-process.js';

const brokers = inject('kafkaBrokers');
const CHILD = fileURLToPath(new URL('./fixtures/fills-child.ts', import.meta.url));
const ACCOUNT = SIM_TEST_ACCOUNTS[0]!;
const SECRET = 'fills-kill-postback-secret-0123';
const RELIANCE = 2885;
/** The simulator's clock: real time moved to a weekday 11:00 IST, so its exchange is open. */
const OFFSET_MS = Date.parse('2026-11-24T11:00:00+05:30') - Date.now();
const now = () => Date.now() + OFFSET_MS;
/** Orders per round: each fills one unit per 40 ms tick, so in up to QUANTITY parts. */
const ORDERS_PER_ROUND = 30;
const QUANTITY = 4;
/** A US order after every this many Indian ones. */
const US_EVERY = 4;
const KILLS = 4;

let sim: RestServer;
let client: BrokerClient;
let usId: string;

beforeAll(async () => {
  const model = new MarketModel({ seed: 7, instruments: 20, now });
  const market = new ScriptedMarket(model);
  market.setLtp(RELIANCE, 100);
  usId = String(model.universe.find((i) => i.exchangeSegment === 'INX_EQ')?.securityId);
  market.setLtp(Number(usId), 50);
  sim = await createRestServer({
    model: market,
    now,
    rateLimits: false,
    matchIntervalMs: 10,
    matching: { tickMs: 40, liquidityPerTick: 1 },
    postbacks: { retryBaseMs: 20, retryMaxMs: 200, giveUpAfterMs: 2_000 },
  });
  client = new BrokerClient({
    baseUrl: sim.baseUrl,
    clientId: ACCOUNT.clientId,
    accessToken: ACCOUNT.webToken!,
    retryBaseDelayMs: 20,
  });
});
afterAll(async () => sim?.close());

async function registerPostbacks(port: number): Promise<void> {
  const r = await fetch(`${sim.baseUrl}/v2/postback`, {
    method: 'POST',
    headers: { 'access-token': ACCOUNT.webToken!, 'content-type': 'application/json' },
    body: JSON.stringify({ postbackUrl: `http://127.0.0.1:${port}/postbacks/orders/${SECRET}` }),
  });
  expect(r.status).toBe(200);
}

/**
 * One round's burst: Indian market buys one after another, a US market buy every few, placed while
 * the gateway of the round runs (its fills keep coming after the last placement).
 */
async function burst(orders: number, usEvery: number): Promise<void> {
  for (let i = 0; i < orders; i++) {
    await client.orders.place({
      transactionType: 'BUY',
      exchangeSegment: 'NSE_EQ',
      productType: 'INTRADAY',
      orderType: 'MARKET',
      validity: 'DAY',
      securityId: String(RELIANCE),
      quantity: QUANTITY,
      price: 0,
    });
    if (i % usEvery === 0) {
      await client.globalStocks.place({
        transactionType: 'BUY',
        orderType: 'MARKET',
        securityId: usId,
        quantity: 1,
        price: 0,
      });
    }
    await new Promise((r) => setTimeout(r, 60));
  }
}

/** Every fill of the day's books, by the key the gateway gives it. */
async function bookKeys(): Promise<string[]> {
  const trades = await client.trades.today();
  const us = await client.globalStocks.trades();
  const n = new Map<string, number>();
  return [
    ...trades.map((t) => `${t.exchangeSegment}:${t.exchangeTradeId}`),
    ...us.map((t) => {
      const k = (n.get(t.orderId) ?? 0) + 1;
      n.set(t.orderId, k);
      return `INX_EQ:${t.orderId}#${k}`;
    }),
  ];
}

describe('fills survive SIGKILL of the gateway during a burst', () => {
  it('stores every fill of the trade book exactly once across random kills and restarts', async () => {
    const args = [
      JSON.stringify({
        simUrl: sim.baseUrl,
        clientId: ACCOUNT.clientId,
        token: ACCOUNT.webToken!,
        brokers,
        dataDir: tempDir('fills-kill-chdb'),
        walDir: tempDir('fills-kill-wal'),
        secret: SECRET,
        offsetMs: OFFSET_MS,
      }),
    ];
    for (let round = 0; round < KILLS; round++) {
      const { child, output } = startChild(CHILD, ['serve', ...args]);
      const exited = new Promise((r) => child.once('exit', r));
      await waitFor(() => output().includes('READY'), 90_000, 'the gateway child to start');
      await registerPostbacks(Number(/READY (\d+)/.exec(output())?.[1]));
      const placing = burst(ORDERS_PER_ROUND, US_EVERY);
      // A random moment of the burst (the first postbacks wait for Kafka's first connection):
      // before, during or after a read of the book and its insert.
      await new Promise((r) => setTimeout(r, 1_000 + Math.floor(Math.random() * 2_500)));
      child.kill('SIGKILL');
      await Promise.all([placing, exited]);
    }
    await waitFor(
      async () =>
        (await client.orders.list()).every((o) => o.orderStatus === 'TRADED') &&
        (await client.globalStocks.orders()).every((o) => o.orderStatus === 'TRADED'),
      30_000,
      'every order of the burst to fill',
    );
    const expected = await bookKeys();
    // Orders filled in parts (a pass fills as many units as ticks went by since the last one).
    const orders = KILLS * ORDERS_PER_ROUND;
    expect(expected.length).toBeGreaterThan(orders + orders / US_EVERY);

    const { child, output } = startChild(CHILD, ['drain', ...args]);
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(0);
    const report = JSON.parse(output().trim().split('\n').pop() ?? '{}') as {
      counts: Record<string, number>;
      before: number;
      sources: Record<string, number>;
    };
    expect(Object.keys(report.counts).sort()).toEqual([...expected].sort());
    expect(Object.entries(report.counts).filter(([, n]) => n !== 1)).toEqual([]);
    // The killed gateways had stored fills, some of them read because a postback showed a fill.
    expect(report.before).toBeGreaterThan(0);
    expect(report.sources.postback ?? 0).toBeGreaterThan(0);
  });
});
