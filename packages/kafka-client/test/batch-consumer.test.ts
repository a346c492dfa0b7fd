/** Integration tier: consumer group batches, manual commit and resume, lag, pause/resume; admin; keyed JSON. */
import { uniqueName, waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, inject, it } from 'vitest';
import {
  BatchConsumer,
  BatchProducer,
  headerValue,
  JsonProducer,
  KafkaAdmin,
  ProduceSet,
  partitionOf,
  type RecordBatch,
  readTopic,
} from '../src/index.js';
import { chunkRecords, SOURCE_HEADER, sourceOf } from './support.js';

const brokers = inject('kafkaBrokers');
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function filledTopic(partitions: number, chunks: number, rows: number): Promise<string> {
  const topic = uniqueName('kc-consume');
  const admin = new KafkaAdmin({ brokers });
  await admin.ensureTopics([topic], { partitions });
  await admin.close();
  const producer = new BatchProducer({ brokers });
  for (let chunk = 0; chunk < chunks; chunk++)
    await producer.send(new ProduceSet([chunkRecords(topic, chunk, rows)]));
  await producer.close();
  return topic;
}

describe('BatchConsumer', () => {
  it('hands over batches per partition, commits manually, and a new member resumes after the commit', async () => {
    const topic = await filledTopic(3, 2, 300);
    const groupId = uniqueName('kc-group');
    const first: RecordBatch[] = [];
    const committedThrough = new Map<number, bigint>();
    const a = new BatchConsumer({
      brokers,
      groupId,
      topics: [topic],
      eachBatch: async (batch) => {
        first.push(batch);
        // Commit only the first half of each partition's first batch.
        if (committedThrough.has(batch.partition)) return;
        const half = batch.records[Math.floor(batch.records.length / 2)];
        if (!half) return;
        committedThrough.set(batch.partition, half.offset);
        await a.commit([{ topic, partition: batch.partition, offset: half.offset }]);
      },
    });
    cleanups.push(() => a.stop());
    let assigned = 0;
    await a.start();
    await waitFor(() => first.reduce((n, b) => n + b.records.length, 0) >= 600, 30_000, 'records');
    for (const batch of first) {
      const offsets = batch.records.map((r) => r.offset);
      expect(offsets).toEqual([...offsets].sort((x, y) => (x < y ? -1 : 1)));
      for (const r of batch.records) {
        expect(partitionOf(r.key as Buffer, 3)).toBe(batch.partition);
        const { chunk, row } = JSON.parse(String(r.value)) as { chunk: number; row: number };
        expect(headerValue(r, SOURCE_HEADER)).toEqual(sourceOf(chunk, row));
      }
    }
    const lag = await a.lag();
    expect(lag.map((l) => l.partition).sort()).toEqual([0, 1, 2]);
    for (const l of lag) expect(l.committed).toBe(committedThrough.get(l.partition) ?? 0n);
    const total = lag.reduce((n, l) => n + l.highWatermark, 0n);
    expect(total).toBe(600n);
    await a.stop();

    const resumed: RecordBatch[] = [];
    const b = new BatchConsumer({
      brokers,
      groupId,
      topics: [topic],
      eachBatch: (batch) => void resumed.push(batch),
      onAssigned: () => {
        assigned += 1;
      },
    });
    cleanups.push(() => b.stop());
    await b.start();
    const expected = lag.reduce((n, l) => n + Number(l.highWatermark - l.committed), 0);
    await waitFor(() => resumed.reduce((n, x) => n + x.records.length, 0) >= expected, 30_000, 'records');
    for (const [partition, from] of committedThrough) {
      const firstResumed = resumed.find((x) => x.partition === partition)?.records[0];
      expect(firstResumed?.offset).toBe(from);
    }
    expect(assigned).toBeGreaterThanOrEqual(1);
  });

  it('pauses and resumes', async () => {
    const topic = await filledTopic(1, 1, 50);
    let seen = 0;
    const consumer = new BatchConsumer({
      brokers,
      groupId: uniqueName('kc-pause'),
      topics: [topic],
      eachBatch: ({ records }) => {
        seen += records.length;
      },
    });
    cleanups.push(() => consumer.stop());
    consumer.pause();
    await consumer.start();
    consumer.pause();
    await new Promise((r) => setTimeout(r, 1_500));
    const whilePaused = seen;
    consumer.resume();
    await waitFor(() => seen >= 50, 30_000, 'records');
    expect(whilePaused).toBeLessThan(50);
  });
});

describe('KafkaAdmin and JsonProducer', () => {
  it('ensures topics with leaders, reads offsets and the cluster id; keyed JSON lands by murmur2', async () => {
    const admin = new KafkaAdmin({ brokers });
    cleanups.push(() => admin.close());
    const topic = uniqueName('kc-admin');
    await admin.ensureTopics([topic], { partitions: 4 });
    await admin.ensureTopics([topic], { partitions: 4 }); // already there: fine
    expect(await admin.topicOffsets(topic)).toEqual(
      [0, 1, 2, 3].map((partition) => ({ partition, low: 0n, high: 0n })),
    );
    expect((await admin.clusterId()).length).toBeGreaterThan(0);

    const json = new JsonProducer({ brokers });
    cleanups.push(() => json.close());
    await json.send(topic, [
      { key: '1333', value: { a: 1 }, headers: { 'fp-kind': 'x' } },
      { key: '2885', value: { b: [2] } },
    ]);
    const offsets = await admin.topicOffsets(topic);
    expect(offsets.reduce((n, p) => n + p.high, 0n)).toBe(2n);
    const records = await readTopic({ brokers }, topic);
    const byKey = new Map(records.map((r) => [r.key?.toString(), r]));
    expect(byKey.get('1333')?.partition).toBe(partitionOf(Buffer.from('1333'), 4));
    expect(byKey.get('2885')?.partition).toBe(partitionOf(Buffer.from('2885'), 4));
    expect(JSON.parse(String(byKey.get('1333')?.value))).toEqual({ a: 1 });
    expect(byKey.get('1333')?.headers.get('fp-kind')?.toString()).toBe('x');
  });
});
