import { BatchConsumer, JsonProducer, KafkaAdmin, partitionOf } from '@feedpipe/kafka-client';
import { uniqueName, waitFor } from '@feedpipe/testkit';
import { describe, expect, inject, it } from 'vitest';

describe('local Kafka broker', () => {
  it('round-trips 100,000 messages in order per partition', async () => {
    const brokers = inject('kafkaBrokers');
    const topic = uniqueName('roundtrip');
    const partitions = 4;
    const total = 100_000;
    const admin = new KafkaAdmin({ brokers, clientId: 'broker-test' });
    await admin.ensureTopics([topic], { partitions });
    await admin.close();

    const producer = new JsonProducer({ brokers, clientId: 'broker-test' });
    const batch = 5_000;
    for (let start = 0; start < total; start += batch) {
      const messages = [];
      for (let i = start; i < start + batch; i++) messages.push({ key: String(i % 97), value: i });
      await producer.send(topic, messages);
    }
    await producer.close();

    const seen = new Map<number, number[]>();
    let count = 0;
    const consumer = new BatchConsumer({
      brokers,
      clientId: 'broker-test',
      groupId: uniqueName('roundtrip-group'),
      topics: [topic],
      eachBatch: (b) => {
        const list = seen.get(b.partition) ?? [];
        for (let i = 0; i < b.count; i++) list.push(Number(b.value(i)?.toString()));
        seen.set(b.partition, list);
        count += b.count;
      },
    });
    try {
      await consumer.start();
      await waitFor(() => count >= total, 90_000, `all ${total} records consumed`);
    } finally {
      await consumer.stop();
    }

    expect(count).toBe(total);
    for (let p = 0; p < partitions; p++) {
      const values = seen.get(p) ?? [];
      // Produced in increasing order per key, so consumed in increasing order per partition too.
      for (let i = 1; i < values.length; i++) expect(values[i]! > values[i - 1]!).toBe(true);
      // Every record is where Java's partitioner puts its key.
      expect(values.every((v) => partitionOf(Buffer.from(String(v % 97)), partitions) === p)).toBe(true);
    }
    expect([...seen.values()].reduce((n, v) => n + v.length, 0)).toBe(total);
  });
});
