import { uniqueName } from '@feedpipe/testkit';
import { Kafka, logLevel } from 'kafkajs';
import { describe, expect, inject, it } from 'vitest';

describe('local Kafka broker', () => {
  it('round-trips 100,000 messages in order per partition', async () => {
    const kafka = new Kafka({
      clientId: 'broker-test',
      brokers: inject('kafkaBrokers'),
      logLevel: logLevel.ERROR,
    });
    const topic = uniqueName('roundtrip');
    const partitions = 4;
    const total = 100_000;
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true });
    await admin.disconnect();

    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const batch = 5_000;
    for (let start = 0; start < total; start += batch) {
      const messages = [];
      for (let i = start; i < start + batch; i++) {
        messages.push({ key: String(i % 97), value: String(i), partition: i % partitions });
      }
      await producer.send({ topic, messages, acks: -1 });
    }
    await producer.disconnect();

    const consumer = kafka.consumer({ groupId: uniqueName('roundtrip-group') });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const seen = new Map<number, number[]>();
    let count = 0;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${count} of ${total} consumed`)), 90_000);
      consumer
        .run({
          eachBatch: async ({ batch: b }) => {
            const list = seen.get(b.partition) ?? [];
            for (const m of b.messages) list.push(Number(m.value?.toString()));
            seen.set(b.partition, list);
            count += b.messages.length;
            if (count >= total) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch(reject);
    });
    await consumer.disconnect();

    expect(count).toBe(total);
    for (let p = 0; p < partitions; p++) {
      const values = seen.get(p) ?? [];
      expect(values.length).toBe(total / partitions);
      // Produced in increasing order per partition, so consumed in increasing order too.
      for (let i = 1; i < values.length; i++) expect(values[i]! > values[i - 1]!).toBe(true);
      expect(values.every((v) => v % partitions === p)).toBe(true);
    }
  });
});
