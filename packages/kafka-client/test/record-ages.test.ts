/**
 * RecordAges against the real broker: the timestamp of the record at an offset, nothing at the high
 * watermark, "deleted" below the log start, and the topic's retention.ms.
 */
import { Admin } from '@platformatic/kafka';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { JsonProducer, KafkaAdmin, RecordAges } from '../src/index.js';

const brokers = inject('kafkaBrokers');
const ages = new RecordAges({ brokers, clientId: 'record-ages-test' });

afterAll(async () => {
  await ages.close();
});

describe('RecordAges', () => {
  it('reads the timestamp at an offset, none at the end, deleted below the log start, and retention.ms', async () => {
    const topic = `record-ages-${process.pid}-${Date.now().toString(36)}`;
    const admin = new KafkaAdmin({ brokers, clientId: 'record-ages-test' });
    await admin.ensureTopics([topic], { partitions: 1 });
    await admin.close();
    const producer = new JsonProducer({ brokers, clientId: 'record-ages-test' });
    const before = Date.now();
    for (let i = 0; i < 3; i++)
      await producer.send(topic, [{ key: String(i), value: Buffer.from(`{"i":${i}}`) }]);
    const after = Date.now();
    await producer.close();

    const found = await ages.at([
      { topic, partition: 0, offset: 1n },
      // The high watermark: no record yet.
    ]);
    const at1 = found.get(`${topic}:0`);
    expect(at1?.kind).toBe('record');
    if (at1?.kind === 'record') {
      expect(at1.timestamp).toBeGreaterThanOrEqual(before - 1000);
      expect(at1.timestamp).toBeLessThanOrEqual(after + 1000);
    }
    expect((await ages.at([{ topic, partition: 0, offset: 3n }])).get(`${topic}:0`)).toEqual({
      kind: 'none',
    });

    const raw = new Admin({ clientId: 'record-ages-test', bootstrapBrokers: [...brokers] });
    try {
      await raw.deleteRecords({ topics: [{ name: topic, partitions: [{ partition: 0, offset: 2n }] }] });
    } finally {
      await raw.close();
    }
    expect((await ages.at([{ topic, partition: 0, offset: 0n }])).get(`${topic}:0`)).toEqual({
      kind: 'deleted',
      logStartOffset: 2n,
    });
    const retention = await ages.retentionMs([topic]);
    // The test broker keeps 24 hours (infra/kafka/local-kafka.ts) unless KAFKA_BROKERS points elsewhere.
    expect(retention.get(topic)).toBeGreaterThan(0);
  }, 60_000);
});
