/**
 * Integration tier: TopicTail against the real broker: it starts at the latest offsets (nothing
 * older is handed over) or at exact ones (startAt), picks up a topic created after its start from that topic's beginning,
 * hands a failed batch over again, and gives up a start it cannot make within its bound.
 */
import { uniqueName, waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, inject, it } from 'vitest';
import {
  JsonProducer,
  KafkaAdmin,
  type KafkaClientError,
  type PartitionBatch,
  TopicTail,
  type TopicTailOptions,
} from '../src/index.js';

const brokers = inject('kafkaBrokers');
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function newTopic(partitions: number): Promise<string> {
  const topic = uniqueName('kc-tail');
  const admin = new KafkaAdmin({ brokers });
  await admin.ensureTopics([topic], { partitions });
  await admin.close();
  return topic;
}

async function produce(topic: string, keys: readonly string[]): Promise<void> {
  const producer = new JsonProducer({ brokers });
  try {
    await producer.send(
      topic,
      keys.map((key) => ({ key, value: { key } })),
    );
  } finally {
    await producer.close();
  }
}

/** A tail stopped after the test, collecting `topic/key` of every record it hands over. */
function tail(
  options: Omit<TopicTailOptions, 'brokers' | 'eachBatch'> & { brokers?: string[] },
  seen: string[],
): TopicTail {
  const t = new TopicTail({
    brokers,
    ...options,
    eachBatch: (batch: PartitionBatch) => {
      for (let i = 0; i < batch.count; i++) seen.push(`${batch.topic}/${batch.key(i)?.toString()}`);
    },
  });
  cleanups.push(() => t.stop());
  return t;
}

describe('TopicTail', () => {
  it('hands over only what is produced after start() resolved, from every partition', async () => {
    const topic = await newTopic(3);
    const before = Array.from({ length: 30 }, (_, i) => `old-${i}`);
    await produce(topic, before);
    const seen: string[] = [];
    const t = tail({ topics: [topic] }, seen);
    await t.start();
    expect(t.state).toBe('tailing');
    expect(t.stats.partitions).toBe(3);
    const after = Array.from({ length: 30 }, (_, i) => `new-${i}`);
    await produce(topic, after);
    await waitFor(() => seen.length >= after.length, 30_000, 'the new records');
    // Per partition the old records would come first; none did, and every new one arrived once.
    expect([...seen].sort()).toEqual(after.map((k) => `${topic}/${k}`).sort());
  });

  it('starts a partition at the exact offset startAt gives, the others per from', async () => {
    const topic = await newTopic(1);
    const other = await newTopic(1);
    await produce(
      topic,
      Array.from({ length: 10 }, (_, i) => `k-${i}`),
    );
    await produce(other, ['o-0', 'o-1']);
    const seen: string[] = [];
    const t = tail(
      { topics: [topic, other], from: 'earliest', startAt: (name) => (name === topic ? 6 : undefined) },
      seen,
    );
    await t.start();
    await waitFor(() => seen.length >= 6, 30_000, 'the records from offset 6 and the other topic');
    expect([...seen].sort()).toEqual(
      [...['k-6', 'k-7', 'k-8', 'k-9'].map((k) => `${topic}/${k}`), `${other}/o-0`, `${other}/o-1`].sort(),
    );
  });

  it('picks up a topic created after the start, from its beginning', async () => {
    const existing = await newTopic(1);
    const later = uniqueName('kc-tail-later');
    const seen: string[] = [];
    const t = tail({ topics: [existing, later], metadataRefreshMs: 200 }, seen);
    await t.start();
    expect(t.stats.partitions).toBe(1);
    const admin = new KafkaAdmin({ brokers });
    await admin.ensureTopics([later], { partitions: 2 });
    await admin.close();
    await produce(later, ['a', 'b', 'c', 'd']);
    await produce(existing, ['e']);
    await waitFor(() => seen.length >= 5, 30_000, 'records of both topics');
    expect([...seen].sort()).toEqual(
      [`${existing}/e`, ...['a', 'b', 'c', 'd'].map((k) => `${later}/${k}`)].sort(),
    );
    expect(t.stats.partitions).toBe(3);
  });

  it('hands a batch over again after its handler threw, and says so', async () => {
    const topic = await newTopic(1);
    const errors: KafkaClientError[] = [];
    const handed: string[][] = [];
    let failures = 1;
    const t = new TopicTail({
      brokers,
      topics: [topic],
      retryBackoffMs: 20,
      eachBatch: (batch) => {
        handed.push(Array.from({ length: batch.count }, (_, i) => String(batch.key(i))));
        if (failures-- > 0) throw new Error('not now');
      },
      onError: (error) => errors.push(error),
    });
    cleanups.push(() => t.stop());
    await t.start();
    await produce(topic, ['x', 'y']);
    await waitFor(() => handed.length >= 2, 30_000, 'the second hand-over');
    expect(handed[0]).toEqual(['x', 'y']);
    expect(handed[1]).toEqual(['x', 'y']);
    expect(errors.map((e) => e.code)).toEqual(['HANDLER_FAILED']);
    expect(t.stats.handlerErrors).toBe(1);
  });

  it('gives up a start it cannot make within startTimeoutMs (TIMEOUT) or that stop() ends (CLOSED), and refuses bad options by name', async () => {
    const t = new TopicTail({
      brokers: ['127.0.0.1:1'],
      topics: ['anything'],
      startTimeoutMs: 1_500,
      requestTimeoutMs: 500,
      eachBatch: () => undefined,
    });
    await expect(t.start()).rejects.toMatchObject({ code: 'TIMEOUT', retriable: true });
    expect(t.state).toBe('failed');
    // stop() ends a start under way (CLOSED), rather than letting it run to its bound (TIMEOUT).
    const stopped = new TopicTail({
      brokers: ['127.0.0.1:1'],
      topics: ['anything'],
      startTimeoutMs: 60_000,
      requestTimeoutMs: 500,
      eachBatch: () => undefined,
    });
    const starting = stopped.start();
    await stopped.stop();
    await expect(starting).rejects.toMatchObject({ code: 'CLOSED' });
    const base = { brokers, topics: ['t'], eachBatch: () => undefined };
    expect(() => new TopicTail({ ...base, fromm: 'latest' } as unknown as TopicTailOptions)).toThrow(
      /topic tail options: unknown option "fromm" \(allowed: brokers, /,
    );
    expect(() => new TopicTail({ ...base, from: 'middle' as 'latest' })).toThrow(/"from"/);
    expect(() => new TopicTail({ ...base, topics: [] })).toThrow(/"topics"/);
  });
});
