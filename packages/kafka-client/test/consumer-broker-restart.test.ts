/**
 * Integration tier: BatchConsumer across a restart of its (only) broker, on a dedicated broker so
 * the shared one is never disturbed. The consumer is not restarted by the test: it retries its
 * fetches and heartbeats, and goes on from its positions with no record lost or handed over twice.
 */
import { join } from 'node:path';
import { type LocalKafka, startLocalKafka } from '@feedpipe/local-kafka';
import { tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { BatchConsumer, BatchProducer, KafkaAdmin, type KafkaClientError, ProduceSet } from '../src/index.js';
import { chunkRecords } from './support.js';

let kafka: LocalKafka | undefined;
let consumer: BatchConsumer | undefined;

afterEach(async () => {
  await consumer?.stop().catch(() => undefined);
  await kafka?.stop().catch(() => undefined);
  consumer = undefined;
  kafka = undefined;
});

async function produce(brokers: string[], topic: string, chunk: number): Promise<void> {
  const producer = new BatchProducer({ brokers, deliveryTimeoutMs: 60_000 });
  try {
    await producer.send(new ProduceSet([chunkRecords(topic, chunk, 300)]));
  } finally {
    await producer.close();
  }
}

describe('BatchConsumer across a broker restart', () => {
  it('goes on by itself once the broker is back, with no loss and no record twice', async () => {
    kafka = await startLocalKafka({ dataDir: join(tempDir('kc-restart'), 'kafka'), heap: '384m' });
    const brokers = kafka.brokers;
    const topic = uniqueName('kc-restart');
    const admin = new KafkaAdmin({ brokers });
    await admin.ensureTopics([topic], { partitions: 3 });
    await admin.close();
    await produce(brokers, topic, 0);

    const seen = new Map<number, number[]>();
    const errors: KafkaClientError[] = [];
    let assignments = 0;
    const c = new BatchConsumer({
      brokers,
      groupId: uniqueName('kc-restart-group'),
      topics: [topic],
      sessionTimeoutMs: 10_000,
      heartbeatIntervalMs: 1_000,
      maxRetryBackoffMs: 1_000,
      eachBatch: async (batch) => {
        const list = seen.get(batch.partition) ?? [];
        for (let i = 0; i < batch.count; i++) list.push(batch.offset(i));
        seen.set(batch.partition, list);
        await c
          .commit([{ topic, partition: batch.partition, offset: batch.nextOffset }])
          .catch(() => undefined);
      },
      onAssigned: () => {
        assignments += 1;
      },
      onError: (error) => void errors.push(error),
    });
    consumer = c;
    const total = () => [...seen.values()].reduce((n, l) => n + l.length, 0);
    await c.start();
    await waitFor(() => total() === 300, 30_000, 'records before the restart');

    await kafka.stop();
    await new Promise((r) => setTimeout(r, Number(process.env.KC_RESTART_DOWN_MS ?? 8_000)));
    await kafka.restart();
    const backAt = Date.now();
    await produce(brokers, topic, 1);
    await waitFor(() => total() === 600, 90_000, 'records after the restart');
    const stallMs = Date.now() - backAt;
    process.stdout.write(
      `consumer stall after the broker restart: ${stallMs} ms; ${errors.length} retriable errors; ${assignments} assignments\n`,
    );

    await new Promise((r) => setTimeout(r, 500));
    for (const [partition, offsets] of seen) {
      expect(offsets, `partition ${partition}`).toEqual(Array.from({ length: offsets.length }, (_, i) => i));
    }
    expect(total()).toBe(600);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e.retriable)).toBe(true);
    expect(c.state).toBe('consuming');
    expect(stallMs).toBeLessThan(25_000);
  });
});
