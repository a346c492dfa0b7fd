/**
 * With the audit journal on (as the CLI and npm start run the gateway), a new order, its
 * modification and its cancel are answered without a store statement on their path: the audit
 * rows are synced to the journal and drained behind the answers (`audit_drain`), the correlation
 * index, the owners and the known instruments answer from memory. Counted from
 * trading_gateway_order_store_seconds, the timing of every statement the order path makes.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type SimHarness, startSimHarness, tcsOrder } from './sim-harness.js';

let h: SimHarness;

beforeAll(async () => {
  h = await startSimHarness({ seed: 3, now: Date.now, gateway: { trading: { killSwitchCacheMs: 60_000 } } });
});
afterAll(async () => h?.close());

async function metricValues(): Promise<Map<string, number>> {
  const text = (await h.gateway.app.inject({ method: 'GET', url: '/metrics' })).body;
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^(trading_gateway_(?:order_store_seconds_count|audit_journal_\w+))(\{[^}]*\})? (\S+)$/.exec(
      line,
    );
    if (m) values.set(`${m[1]}${m[2] ?? ''}`, Number(m[3]));
  }
  return values;
}

/** Statements of the order path so far, by label, but the drain's (behind the answers). */
async function answerPathStatements(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, value] of await metricValues()) {
    const label = /^trading_gateway_order_store_seconds_count\{statement="(\w+)"\}$/.exec(name)?.[1];
    if (label && label !== 'audit_drain') out[label] = value;
  }
  return out;
}

it('answers a new order, its modification and its cancel without a store statement', async () => {
  // The first order reads the correlation ids of the trail once (the index's one read).
  const first = await h.call(
    'POST',
    '/v1/orders',
    tcsOrder({ orderType: 'LIMIT', quantity: 1, price: 3000 }),
  );
  expect(first.statusCode).toBe(200);
  const before = await answerPathStatements();

  const placed = await h.call(
    'POST',
    '/v1/orders',
    tcsOrder({ orderType: 'LIMIT', quantity: 2, price: 3001 }),
  );
  expect(placed.statusCode).toBe(200);
  const { orderId, correlationId } = placed.json() as { orderId: string; correlationId: string };
  const modified = await h.call('PUT', `/v1/orders/${orderId}`, {
    orderType: 'LIMIT',
    quantity: 3,
    price: 3002,
    validity: 'DAY',
  });
  expect(modified.statusCode).toBe(200);
  expect((await h.call('DELETE', `/v1/orders/${orderId}`)).statusCode).toBe(200);
  expect(await answerPathStatements()).toEqual(before);

  // Behind the answers the rows reach the store: a read of the trail waits for them.
  const rows = (await h.call('GET', `/v1/order-audit?correlationId=${correlationId}`)).json().rows as {
    phase: string;
    outcome: string;
  }[];
  expect(rows.map((r) => `${r.phase}:${r.outcome}`).sort()).toEqual(['outcome:accepted', 'request:']);
  const all = (await h.call('GET', '/v1/order-audit?limit=50')).json().rows as { action: string }[];
  expect(all.filter((r) => r.action === 'orders.modify')).toHaveLength(2);
  expect(all.filter((r) => r.action === 'orders.cancel')).toHaveLength(2);
  const metrics = await metricValues();
  expect(metrics.get('trading_gateway_audit_journal_rows')).toBe(0);
  expect(metrics.get('trading_gateway_audit_journal_drained_rows_total')).toBe(8);
  expect(metrics.get('trading_gateway_order_store_seconds_count{statement="audit_drain"}')).toBeGreaterThan(
    0,
  );
});
