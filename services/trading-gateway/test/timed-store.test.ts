/**
 * The order path's store statements are timed per statement (trading_gateway_order_store_seconds),
 * which bench:flood reads to say where an order's time goes: reads and inserts under their own
 * labels, and a failed statement counted too (a timing that dropped failures would hide the slow
 * ones that time out).
 */
import { SERVICE_TABLES } from '@feedpipe/contracts';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createGatewayMetrics } from '../src/metrics.js';
import { TimedLane } from '../src/orders/timed-store.js';

let store: Store;

beforeAll(async () => {
  store = createStore({ dataDir: tempDir('gateway-timed-store') });
  await runMigrations(store.internal);
});
afterAll(async () => {
  await store?.close();
});

async function counts(metrics: ReturnType<typeof createGatewayMetrics>): Promise<Record<string, number>> {
  const { values } = await metrics.orderStore.get();
  const out: Record<string, number> = {};
  for (const v of values) {
    if (v.metricName?.endsWith('_count')) out[String(v.labels.statement)] = v.value;
  }
  return out;
}

it('observes each read and insert under its label, failures included', async () => {
  const metrics = createGatewayMetrics(false);
  const lane = new TimedLane(store.internal, metrics.orderStore, {
    read: 'audit_read',
    write: 'audit_write',
  });
  const { name, columns } = SERVICE_TABLES.orderAudit;
  await lane.rows(`SELECT count() AS n FROM ${name}`);
  await lane.rows(`SELECT count() AS n FROM ${name}`);
  expect(await counts(metrics)).toEqual({ audit_read: 2 });
  const row = columns.map((c) => (c === 'at' ? '2026-01-01 00:00:00.000' : c === 'phase' ? 'request' : ''));
  await expect(lane.insertRows(name, columns, [row])).rejects.toThrow();
  await expect(lane.rows('SELECT * FROM market.no_such_table')).rejects.toThrow();
  expect(await counts(metrics)).toEqual({ audit_read: 3, audit_write: 1 });
});
