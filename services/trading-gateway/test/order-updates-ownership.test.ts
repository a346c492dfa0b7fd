/**
 * Issue 37, item 5, for order updates: a key's history (`GET /order-updates`) and live stream
 * (`GET /order-updates/stream`) hold its own orders' updates only; a supervisor (trade + admin)
 * gets every order's. Owners come from the audit trail, as for the order routes.
 */
import { SERVICE_TABLES } from '@feedpipe/contracts';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Harness, startHarness } from './helpers.js';
import { collectSse } from './postback-helpers.js';

const SECRET = 'updates-ownership-secret-0123456789';
let h: Harness;
let base: string;

const update = (orderId: string, status: string) => ({
  svcClientId: '1000000001',
  orderId,
  orderStatus: status,
  securityId: '2885',
  exchangeSegment: 'NSE_EQ',
  transactionType: 'BUY',
  quantity: 10,
  filledQty: 0,
  remainingQuantity: 10,
  price: 100,
  updateTime: '2024-06-03 10:30:00',
});

/** The outcome row of an accepted placement: what makes `keyName`'s key the order's owner. */
async function placedBy(keyName: string, orderId: string): Promise<void> {
  const key = (await h.gateway.keys.list()).find((k) => k.name === keyName);
  await h.store.internal.insertRows(
    SERVICE_TABLES.orderAudit.name,
    ['at', 'request_id', 'phase', 'key_id', 'action', 'correlation_id', 'order_id', 'outcome'],
    [
      [
        new Date().toISOString().replace('T', ' ').replace('Z', ''),
        orderId,
        'outcome',
        key?.keyId ?? '',
        'orders.place',
        orderId,
        orderId,
        'accepted',
      ],
    ],
  );
}

async function postback(body: unknown): Promise<number> {
  const res = await fetch(`${base}/postbacks/orders/${SECRET}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.text();
  return res.status;
}

beforeAll(async () => {
  const suffix = Math.random().toString(36).slice(2, 10);
  h = await startHarness(
    {
      postbacks: {
        secret: SECRET,
        walDir: tempDir('updates-ownership-wal'),
        topic: `orders.updates.own-${suffix}`,
        flushIntervalMs: 5,
      },
    },
    { kafkaBrokers: inject('kafkaBrokers') },
  );
  base = await h.gateway.start();
  await placedBy('trader', 'UPD-MINE');
  await placedBy('other-desk', 'UPD-OTHER');
});
afterAll(async () => h?.close());

describe('order updates of other keys', () => {
  it('are neither streamed nor listed to a key; a supervisor gets them all', async () => {
    const mine = collectSse(`${base}/order-updates/stream`, 2, 10_000, h.trade);
    const all = collectSse(`${base}/order-updates/stream`, 4, 10_000, h.supervisor);
    await Promise.all([Promise.race([mine.open, mine.done]), Promise.race([all.open, all.done])]);
    for (const body of [
      update('UPD-OTHER', 'TRANSIT'),
      update('UPD-MINE', 'TRANSIT'),
      update('UPD-OTHER', 'PENDING'),
      update('UPD-MINE', 'PENDING'),
    ])
      expect(await postback(body)).toBe(202);
    await h.gateway.postbacks?.pipeline.flush();
    expect((await mine.done).map((e) => `${e.orderId}:${e.status}`)).toEqual([
      'UPD-MINE:TRANSIT',
      'UPD-MINE:PENDING',
    ]);
    expect((await all.done).map((e) => e.orderId)).toEqual([
      'UPD-OTHER',
      'UPD-MINE',
      'UPD-OTHER',
      'UPD-MINE',
    ]);
    const history = async (headers: Record<string, string>) => {
      const res = await fetch(`${base}/order-updates`, { headers });
      return ((await res.json()) as { events: { orderId: string }[] }).events.map((e) => e.orderId);
    };
    expect(new Set(await history(h.trade))).toEqual(new Set(['UPD-MINE']));
    expect(new Set(await history(h.trade2))).toEqual(new Set(['UPD-OTHER']));
    expect(new Set(await history(h.supervisor))).toEqual(new Set(['UPD-MINE', 'UPD-OTHER']));
  });
});
