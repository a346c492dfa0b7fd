/**
 * Integration tier: pre-encoded batches through the real broker, read back by @platformatic/kafka's
 * own Consumer (a reader that is not ours) and by this package's readTopic; and the
 * idempotent retry through the fault proxy (partitions dropped or answers lost: no copy, no loss).
 */
import { startKafkaFaultProxy, uniqueName } from '@feedpipe/testkit';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { BatchProducer, KafkaAdmin, ProduceSet, partitionOf, readTopic } from '../src/index.js';
import { chunkRecords, keyOf, readWithLibraryConsumer, SOURCE_HEADER, sourceOf } from './support.js';

const brokers = inject('kafkaBrokers');
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function topicWith(partitions: number): Promise<string> {
  const topic = uniqueName('kc-batches');
  const admin = new KafkaAdmin({ brokers });
  await admin.ensureTopics([topic], { partitions });
  await admin.close();
  return topic;
}

describe('BatchProducer', () => {
  it("sends pre-encoded batches that the library's consumer and ours read back: keys, values, headers, partitions", async () => {
    const topic = await topicWith(6);
    const producer = new BatchProducer({ brokers, clientId: 'kc-test' });
    cleanups.push(() => producer.close());
    for (let chunk = 0; chunk < 3; chunk++) {
      // A fresh topic may still answer NOT_LEADER for a moment (a retry, not an error): the data is what counts.
      const result = await producer.send(new ProduceSet([chunkRecords(topic, chunk, 200)]));
      expect(result.offsets.size).toBeGreaterThan(0);
    }
    expect(producer.producerId).toBeGreaterThanOrEqual(0n);
    const viaLibrary = await readWithLibraryConsumer(brokers, topic, 600);
    expect(viaLibrary).toHaveLength(600);
    for (const r of viaLibrary) {
      const { chunk, row } = JSON.parse(r.value) as { chunk: number; row: number };
      expect(r.key).toBe(keyOf(row));
      expect(r.partition).toBe(partitionOf(Buffer.from(r.key), 6));
      expect(r.headers.get(SOURCE_HEADER)).toEqual(sourceOf(chunk, row));
    }
    // Per partition, records are in send order (chunk, then row).
    const byPartition = new Map<number, number[]>();
    for (const r of viaLibrary) {
      const { chunk, row } = JSON.parse(r.value) as { chunk: number; row: number };
      const list = byPartition.get(r.partition) ?? [];
      list.push(chunk * 1000 + row);
      byPartition.set(r.partition, list);
    }
    for (const list of byPartition.values()) expect(list).toEqual([...list].sort((a, b) => a - b));
    const viaAdapter = await readTopic({ brokers }, topic);
    expect(viaAdapter.map((r) => [r.partition, r.offset, r.key?.toString(), r.value?.toString()])).toEqual(
      viaLibrary.map((r) => [r.partition, r.offset, r.key, r.value]),
    );
    expect(viaAdapter[0]?.headers.get(SOURCE_HEADER)).toEqual(viaLibrary[0]?.headers.get(SOURCE_HEADER));
  });

  it('refuses a new set while one is unfinished, and rejects bad options by name', async () => {
    expect(() => new BatchProducer({ brokers, bogus: 1 } as never)).toThrow(
      /batch producer options: unknown option "bogus" \(allowed: brokers, clientId, requestTimeoutMs, /,
    );
    expect(() => new BatchProducer({ brokers: [] })).toThrow(/brokers/);
    // A topic that does not exist (no auto-creation): the set stays unfinished after the delivery timeout.
    const producer = new BatchProducer({ brokers, deliveryTimeoutMs: 1_500, retryBackoffMs: 100 });
    cleanups.push(() => producer.close());
    const missing = uniqueName('kc-missing');
    const set = new ProduceSet([chunkRecords(missing, 0, 10)]);
    await expect(producer.send(set)).rejects.toMatchObject({
      code: expect.stringMatching(/DELIVERY_TIMEOUT|TOPIC_NOT_READY/),
    });
    expect(producer.hasUnfinishedSend).toBe(true);
    await expect(producer.send(new ProduceSet([chunkRecords(missing, 1, 10)]))).rejects.toMatchObject({
      code: 'SEND_PENDING',
    });
    // Once the topic exists, the same set goes through.
    const admin = new KafkaAdmin({ brokers });
    await admin.ensureTopics([missing], { partitions: 2 });
    await admin.close();
    await producer.send(set);
    expect(producer.hasUnfinishedSend).toBe(false);
    expect(await readTopic({ brokers }, missing)).toHaveLength(10);
  });

  it('retries dropped partitions and lost answers as the same batch: no copy, no loss', async () => {
    const topic = await topicWith(6);
    const proxy = await startKafkaFaultProxy(brokers[0] as string, { topics: [topic], requests: 8 });
    cleanups.push(() => proxy.close());
    const producer = new BatchProducer({
      brokers: [proxy.address],
      clientId: 'kc-faults',
      retryBackoffMs: 20,
    });
    cleanups.push(() => producer.close());
    let retries = 0;
    for (let chunk = 0; chunk < 12; chunk++) {
      retries += (await producer.send(new ProduceSet([chunkRecords(topic, chunk, 150)]))).retries;
    }
    expect(proxy.injected.drop).toBe(4);
    expect(proxy.injected.lose).toBe(4);
    expect(retries).toBeGreaterThanOrEqual(8);
    expect(producer.stats.resets).toBe(0);
    // Everything up to the high watermarks: a copy would show as a repeated identity or an extra record.
    const records = await readTopic({ brokers }, topic);
    const identities = records.map((r) => (r.headers.get(SOURCE_HEADER) as Buffer).toString('hex'));
    expect(new Set(identities).size).toBe(identities.length);
    expect(records).toHaveLength(12 * 150);
  });
});
