/**
 * Acknowledged postbacks are never lost and stored once: a receiver in a child process is killed
 * with SIGKILL at random moments while postbacks arrive, and restarted on the same write-ahead
 * log; with Kafka unreachable, 202 still means "in the log" and the updates arrive once Kafka is
 * back; a record that cannot be stored goes to the dead-letter table and the rest go on.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { readTopic, tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readDeadLetters, readOrderEvents, toOrderEvent, WriteAheadLog } from '../src/postbacks/index.js';
import { decodeSegment } from '../src/postbacks/wal-record.js';
import { startChild } from './child-process.js';
import { SECRET, startReceiverApp } from './postback-helpers.js';

const brokers = inject('kafkaBrokers');
const CHILD = fileURLToPath(new URL('./fixtures/postback-child.ts', import.meta.url));

const update = (orderId: string, status = 'TRANSIT', filledQty = 0) => ({
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
});

const keyOf = (body: Record<string, unknown>) => toOrderEvent(body, 'postback', 0).eventKey;

async function post(url: string, body: unknown): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Bodies of every whole record in a log directory. */
function loggedBodies(walDir: string): string[] {
  return readdirSync(walDir)
    .filter((n) => n.endsWith('.log'))
    .sort()
    .flatMap((n) => decodeSegment(readFileSync(join(walDir, n)), 1 << 20).records.map((r) => r.body));
}

describe('acknowledged postbacks survive SIGKILL', () => {
  it('stores every update that got 202 exactly once across random kills and restarts', async () => {
    const dataDir = tempDir('postback-kill-chdb');
    const walDir = tempDir('postback-kill-wal');
    const topic = uniqueName('orders_updates');
    const table = `market.${uniqueName('order_events')}`;
    const args = [brokers.join(','), topic, table, dataDir, walDir];
    const acked = new Set<string>();
    const attempted = new Set<string>();
    const KILLS = 4;
    const MAX_PER_ROUND = 120;
    for (let round = 0; round < KILLS; round++) {
      const { child, output } = startChild(CHILD, ['serve', ...args]);
      const exited = new Promise((r) => child.once('exit', r));
      await waitFor(() => output().includes('READY'), 90_000, 'the receiver child to start');
      const port = Number(/READY (\d+)/.exec(output())?.[1]);
      const url = `http://127.0.0.1:${port}/postbacks/orders/${SECRET}`;
      // A random moment: early (records only in the log) to late (batches in Kafka or ClickHouse).
      const killAt = Date.now() + 100 + Math.floor(Math.random() * 2_500);
      let next = 0;
      // Eight senders at once, so the kill lands among requests in every stage (and group commits).
      const sender = async () => {
        while (next < MAX_PER_ROUND && Date.now() < killAt) {
          const body = update(`K${round}-${next++}`);
          const key = keyOf(body);
          attempted.add(key);
          try {
            if ((await post(url, body)) === 202) acked.add(key);
          } catch {
            // The connection died with the process: unknown, so not counted as acknowledged.
          }
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      const senders = Promise.all(Array.from({ length: 8 }, sender));
      await new Promise((r) => setTimeout(r, Math.max(0, killAt - Date.now())));
      child.kill('SIGKILL');
      await Promise.all([senders, exited]);
    }
    expect(acked.size).toBeGreaterThan(0);

    const { child, output } = startChild(CHILD, ['drain', ...args]);
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(0);
    const report = JSON.parse(output().trim().split('\n').pop() ?? '{}') as {
      counts: Record<string, number>;
      walEntries: number;
    };
    const missing = [...acked].filter((k) => report.counts[k] === undefined);
    expect(missing).toEqual([]);
    const twice = Object.entries(report.counts).filter(([, n]) => n !== 1);
    expect(twice).toEqual([]);
    // Nothing stored that was never sent, and the log is empty once everything is stored.
    expect(Object.keys(report.counts).every((k) => attempted.has(k))).toBe(true);
    expect(report.walEntries).toBe(0);
    // Kafka has every acknowledged update (at least once; a repeat carries the same key and seq).
    const records = await readTopic(brokers, topic);
    const inKafka = new Set(records.map((r) => String(r.value.eventKey)));
    expect([...acked].filter((k) => !inKafka.has(k))).toEqual([]);
  });
});

/** A TCP gate in front of the broker: while frozen it cuts every connection at once. */
async function kafkaGate(target: string): Promise<{ address: string; open(): void; close(): Promise<void> }> {
  const [host, port] = target.split(':') as [string, string];
  let frozen = true;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    if (frozen) {
      client.destroy();
      return;
    }
    const upstream = tcpConnect(Number(port), host);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  return {
    address: `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    open: () => {
      frozen = false;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('postbacks with Kafka or the record at fault', () => {
  let store: Store;
  beforeAll(async () => {
    store = createStore({ dataDir: tempDir('postback-durability') });
    await runMigrations(store.internal);
  });
  afterAll(async () => store.close());

  const freshTable = async () => {
    const table = `market.${uniqueName('order_events')}`;
    await store.internal.command(`CREATE TABLE ${table} AS market.order_events`);
    return table;
  };

  it('with Kafka unreachable, answers 202 only once the update is in the log, and delivers it when Kafka is back', async () => {
    const gate = await kafkaGate(brokers[0] as string);
    const walDir = tempDir('postback-frozen-wal');
    const topic = uniqueName('orders_updates');
    const table = await freshTable();
    const rx = await startReceiverApp({
      store,
      kafkaBrokers: [gate.address],
      topic,
      table,
      walDir,
      retryMaxMs: 300,
    });
    try {
      const url = `${rx.baseUrl}/postbacks/orders/${SECRET}`;
      const sent: string[] = [];
      for (let i = 0; i < 30; i++) {
        const body = JSON.stringify(update(`F${i}`));
        expect(await post(url, body)).toBe(202);
        sent.push(body);
        // The 202 came after the write: the record is in the log file already.
        expect(loggedBodies(walDir)).toContain(body);
      }
      expect(rx.receiver.stats()).toMatchObject({ accepted: 30, persisted: 0 });
      expect(await readOrderEvents(store.internal, table)).toEqual([]);
      gate.open();
      await rx.receiver.pipeline.flush(90_000);
      const stored = await readOrderEvents(store.internal, table);
      expect(stored.map((e) => e.orderId).sort()).toEqual(sent.map((b) => JSON.parse(b).orderId).sort());
      const records = await readTopic(brokers, topic);
      expect(new Set(records.map((r) => r.key)).size).toBe(30);
      expect(rx.receiver.stats().wal.entries).toBe(0);
    } finally {
      await rx.close();
      await gate.close();
    }
  });

  it('refuses a body nested 10,000 levels with 400 before it reaches the log', async () => {
    const walDir = tempDir('postback-deep-wal');
    const rx = await startReceiverApp({
      store,
      kafkaBrokers: brokers,
      topic: uniqueName('o'),
      table: await freshTable(),
      walDir,
    });
    try {
      const deep = JSON.stringify(update('DEEP')).replace(
        /}$/,
        `,"extra":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`,
      );
      const res = await fetch(`${rx.baseUrl}/postbacks/orders/${SECRET}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: deep,
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: { code: 'POSTBACK_MALFORMED', message: 'body nests deeper than 32 levels' },
      });
      expect(loggedBodies(walDir)).toEqual([]);
      // The receiver goes on.
      expect(await post(`${rx.baseUrl}/postbacks/orders/${SECRET}`, update('AFTER-DEEP'))).toBe(202);
    } finally {
      await rx.close();
    }
  });

  it('sends a logged record that cannot be stored to the dead-letter table and stores the ones after it', async () => {
    const walDir = tempDir('postback-poison-wal');
    const table = await freshTable();
    const deadTable = `market.${uniqueName('dead')}`;
    await store.internal.command(`CREATE TABLE ${deadTable} AS market.postback_dead_letters`);
    // Logged by the receiver this one replaces, which took any depth.
    const { wal } = await WriteAheadLog.open({
      dir: walDir,
      maxEntries: 100,
      maxBytes: 1 << 22,
      segmentBytes: 1 << 20,
      maxBodyBytes: 64 * 1024,
    });
    const poisoned = JSON.stringify(update('POISON')).replace(
      /}$/,
      `,"extra":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`,
    );
    await wal.append('postback', Date.now(), poisoned);
    for (let i = 0; i < 5; i++) await wal.append('postback', Date.now(), JSON.stringify(update(`OK${i}`)));
    await wal.close();
    const rx = await startReceiverApp({
      store,
      kafkaBrokers: brokers,
      topic: uniqueName('orders_updates'),
      table,
      walDir,
      deadLetterTable: deadTable,
    });
    try {
      await rx.receiver.pipeline.flush(60_000);
      // And a live one after the replay.
      expect(await post(`${rx.baseUrl}/postbacks/orders/${SECRET}`, update('OK-LIVE'))).toBe(202);
      await rx.receiver.pipeline.flush(60_000);
      const stored = await readOrderEvents(store.internal, table);
      expect(stored.map((e) => e.orderId)).toEqual(['OK-LIVE', 'OK0', 'OK1', 'OK2', 'OK3', 'OK4']);
      const dead = await readDeadLetters(store.internal, deadTable);
      expect(dead).toHaveLength(1);
      expect(dead[0]).toMatchObject({ stage: 'serialize', payload: poisoned });
      expect(dead[0]?.reason).toMatch(/Maximum call stack size exceeded/);
      expect(rx.receiver.stats()).toMatchObject({ deadLetters: 1, replayed: 6 });
      const metrics = await rx.receiver.registry.metrics();
      expect(metrics).toMatch(/^trading_gateway_postback_dead_letters_total 1$/m);
      expect(metrics).toMatch(/^trading_gateway_postback_stored_total 6$/m);
      expect(metrics).toMatch(/^trading_gateway_postback_wal_entries 0$/m);
      expect(metrics).toMatch(/^trading_gateway_postback_replayed_total 6$/m);
    } finally {
      await rx.close();
    }
  });
});
