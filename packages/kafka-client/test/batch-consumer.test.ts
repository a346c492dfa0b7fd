/**
 * Integration tier: BatchConsumer against the real broker: round trips of what @platformatic/kafka's
 * own Producer and BatchProducer wrote, manual commit and resume, a group of two sharing partitions, the rebalance
 * waiting for onRevoked, redelivery after a handler error, pause/resume; then admin and keyed JSON.
 */
import { uniqueName, waitFor } from '@feedpipe/testkit';
import { Base, type Broker, findCoordinatorV6, leaveGroupV5, Producer } from '@platformatic/kafka';
import { afterEach, describe, expect, inject, it } from 'vitest';
import {
  BatchConsumer,
  type BatchConsumerOptions,
  BatchProducer,
  JsonProducer,
  KafkaAdmin,
  type KafkaClientError,
  type PartitionBatch,
  ProduceSet,
  partitionOf,
  readTopic,
  type TopicPartitions,
} from '../src/index.js';
import { chunkRecords, SOURCE_HEADER, sourceOf } from './support.js';

const brokers = inject('kafkaBrokers');
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function newTopic(partitions: number): Promise<string> {
  const topic = uniqueName('kc-consume');
  const admin = new KafkaAdmin({ brokers });
  await admin.ensureTopics([topic], { partitions });
  await admin.close();
  return topic;
}

async function filledTopic(partitions: number, chunks: number, rows: number): Promise<string> {
  const topic = await newTopic(partitions);
  const producer = new BatchProducer({ brokers });
  for (let chunk = 0; chunk < chunks; chunk++)
    await producer.send(new ProduceSet([chunkRecords(topic, chunk, rows)]));
  await producer.close();
  return topic;
}

/** A consumer stopped after the test; `seen` collects `partition:offset` of every record handed over. */
function consumer(options: Omit<BatchConsumerOptions, 'brokers'> & { brokers?: string[] }): BatchConsumer {
  const c = new BatchConsumer({ brokers, heartbeatIntervalMs: 500, ...options });
  cleanups.push(() => c.stop());
  return c;
}

const count = (batches: PartitionBatch[]) => batches.reduce((n, b) => n + b.count, 0);

describe('BatchConsumer', () => {
  it("reads back what BatchProducer and the library's own Producer wrote: keys, values, headers (gzip too), high watermark", async () => {
    const topic = await filledTopic(3, 2, 300);
    // A producer that is not ours writes the other half, so the reader is held to the format, not to our writer.
    const producer = new Producer({ clientId: 'kc-test', bootstrapBrokers: brokers, idempotent: true });
    const fromOther = Array.from({ length: 50 }, (_, i) => ({
      topic,
      key: Buffer.from(`js-${i}`),
      value: Buffer.from(JSON.stringify({ js: i })),
      headers: new Map([
        [Buffer.from(SOURCE_HEADER), sourceOf(9, i)],
        [Buffer.from('other'), Buffer.from(`o${i}`)],
      ]),
      partition: i % 3,
    }));
    await producer.send({ messages: fromOther.slice(0, 25) });
    await producer.send({ compression: 'gzip', messages: fromOther.slice(25) });
    await producer.close();

    const batches: PartitionBatch[] = [];
    const values = new Map<string, { partition: number; header: string | undefined; other?: string }>();
    const c = consumer({
      groupId: uniqueName('kc-roundtrip'),
      topics: [topic],
      eachBatch: (batch) => {
        batches.push(batch);
        for (let i = 0; i < batch.count; i++) {
          values.set(String(batch.value(i)), {
            partition: batch.partition,
            header: batch.header(i, SOURCE_HEADER)?.toString('hex'),
            ...(batch.header(i, 'other') ? { other: String(batch.header(i, 'other')) } : {}),
          });
          if (batch.key(i)?.toString().startsWith('js-')) continue;
          expect(partitionOf(batch.key(i) as Buffer, 3)).toBe(batch.partition);
        }
      },
    });
    await c.start();
    await waitFor(() => count(batches) >= 650, 30_000, 'records');
    expect(values.size).toBe(650);
    for (let row = 0; row < 300; row++) {
      const seen = values.get(JSON.stringify({ chunk: 1, row, ltp: 100 + row / 4 }));
      expect(seen?.header).toBe(sourceOf(1, row).toString('hex'));
    }
    fromOther.forEach((m, i) => {
      expect(values.get(m.value.toString())).toEqual({
        partition: i % 3,
        header: sourceOf(9, i).toString('hex'),
        other: `o${i}`,
      });
    });
    const highs = new Map<number, bigint>();
    for (const b of batches) {
      expect(b.nextOffset).toBe(BigInt(b.lastOffset + 1));
      expect(b.highWatermark).toBeGreaterThanOrEqual(b.nextOffset);
      highs.set(
        b.partition,
        b.highWatermark > (highs.get(b.partition) ?? 0n) ? b.highWatermark : (highs.get(b.partition) ?? 0n),
      );
    }
    expect([...highs.values()].reduce((n, h) => n + h, 0n)).toBe(650n);
  });

  it('commits manually, and a new member resumes after the commit', async () => {
    const topic = await filledTopic(3, 2, 300);
    const groupId = uniqueName('kc-group');
    const first: PartitionBatch[] = [];
    const committedThrough = new Map<number, bigint>();
    const a = consumer({
      groupId,
      topics: [topic],
      eachBatch: async (batch) => {
        first.push(batch);
        // Commit only up to the middle of each partition's first batch.
        if (committedThrough.has(batch.partition)) return;
        const half = BigInt(batch.offset(Math.floor(batch.count / 2)));
        committedThrough.set(batch.partition, half);
        await a.commit([{ topic, partition: batch.partition, offset: half }]);
      },
    });
    await a.start();
    await waitFor(() => count(first) >= 600, 30_000, 'records');
    const lag = await a.lag();
    expect(lag.map((l) => l.partition).sort()).toEqual([0, 1, 2]);
    for (const l of lag) expect(l.committed).toBe(committedThrough.get(l.partition) ?? 0n);
    expect(lag.reduce((n, l) => n + l.highWatermark, 0n)).toBe(600n);
    await a.stop();

    const resumed: PartitionBatch[] = [];
    const assigned: TopicPartitions[][] = [];
    const b = consumer({
      groupId,
      topics: [topic],
      eachBatch: (batch) => void resumed.push(batch),
      onAssigned: (partitions) => void assigned.push(partitions),
    });
    await b.start();
    const expected = lag.reduce((n, l) => n + Number(l.highWatermark - l.committed), 0);
    await waitFor(() => count(resumed) >= expected, 30_000, 'records');
    for (const [partition, from] of committedThrough) {
      expect(resumed.find((x) => x.partition === partition)?.firstOffset).toBe(Number(from));
    }
    expect(count(resumed)).toBe(expected);
    expect(assigned).toEqual([[{ topic, partitions: [0, 1, 2] }]]);
  });

  it('shares the partitions between two members, and waits for onRevoked before they move', async () => {
    const topic = await filledTopic(4, 1, 400);
    const groupId = uniqueName('kc-pair');
    const events: string[] = [];
    /** Offsets each member handed over, per partition: a partition moves only after A committed what it read. */
    const read = { a: new Map<number, number[]>(), b: new Map<number, number[]>() };
    const handler = (who: 'a' | 'b') => (batch: PartitionBatch) => {
      const list = read[who].get(batch.partition) ?? [];
      for (let i = 0; i < batch.count; i++) list.push(batch.offset(i));
      read[who].set(batch.partition, list);
    };
    const a: BatchConsumer = consumer({
      groupId,
      topics: [topic],
      eachBatch: handler('a'),
      onAssigned: (p) => void events.push(`a assigned ${p[0]?.partitions.join(',') ?? ''}`),
      onRevoked: async (partitions) => {
        events.push('a revoking');
        // A slow flush: the rebalance must wait for it, and the commit inside it still counts.
        await new Promise((r) => setTimeout(r, 1_500));
        const offsets = partitions.flatMap(({ partitions: list }) =>
          list.map((partition) => ({
            topic,
            partition,
            offset: BigInt((read.a.get(partition)?.at(-1) ?? -1) + 1),
          })),
        );
        await a.commit(offsets.filter((o) => o.offset > 0n));
        events.push('a revoked');
      },
    });
    await a.start();
    await waitFor(() => [...read.a.values()].reduce((n, l) => n + l.length, 0) >= 400, 30_000, 'a read all');
    const b = consumer({
      groupId,
      topics: [topic],
      eachBatch: handler('b'),
      onAssigned: (p) => void events.push(`b assigned ${p[0]?.partitions.join(',') ?? ''}`),
    });
    await b.start();
    await waitFor(() => events.filter((e) => e.startsWith('a assigned')).length >= 2, 30_000, 'a reassigned');
    expect(events.indexOf('a revoked')).toBeGreaterThan(events.indexOf('a revoking'));
    expect(events.findIndex((e) => e.startsWith('b assigned'))).toBeGreaterThan(events.indexOf('a revoked'));
    const mine = [a.assignment(), b.assignment()].map((x) => x[0]?.partitions ?? []);
    expect(mine.map((p) => p.length)).toEqual([2, 2]);
    expect([...mine[0], ...mine[1]].sort()).toEqual([0, 1, 2, 3]);

    // New records go to whoever holds the partition now; B never re-reads what A committed.
    const producer = new BatchProducer({ brokers });
    await producer.send(new ProduceSet([chunkRecords(topic, 1, 400)]));
    await producer.close();
    const total = () => [...read.a.values(), ...read.b.values()].reduce((n, l) => n + l.length, 0);
    await waitFor(() => total() >= 800, 30_000, 'second chunk');
    await new Promise((r) => setTimeout(r, 300));
    expect(total()).toBe(800);
    for (const partition of mine[1]) {
      expect(Math.min(...(read.b.get(partition) ?? [])), `partition ${partition}`).toBeGreaterThan(
        Math.max(...(read.a.get(partition) ?? [-1])),
      );
    }
  });

  it('stops at once while its join waits for a member that is still flushing', async () => {
    const topic = await filledTopic(2, 1, 10);
    const groupId = uniqueName('kc-stop-joining');
    let revoking = false;
    const a = consumer({
      groupId,
      topics: [topic],
      eachBatch: () => undefined,
      onRevoked: async () => {
        revoking = true;
        await new Promise((r) => setTimeout(r, 4_000));
      },
    });
    await a.start();
    const b = consumer({ groupId, topics: [topic], eachBatch: () => undefined });
    const starting = b.start().catch((error: KafkaClientError) => error.code);
    await waitFor(() => revoking, 30_000, 'a rebalance under way');
    const stopAt = Date.now();
    await b.stop();
    expect(Date.now() - stopAt).toBeLessThan(2_000);
    expect(await starting).toBe('CLOSED');
    expect(b.state).toBe('stopped');
  });

  it('hands a batch over again after the handler threw, staying in the group', async () => {
    const topic = await filledTopic(1, 1, 100);
    const errors: KafkaClientError[] = [];
    const offsets: number[] = [];
    let throws = 2;
    const c = consumer({
      groupId: uniqueName('kc-throw'),
      topics: [topic],
      retryBackoffMs: 50,
      eachBatch: (batch) => {
        if (throws-- > 0) throw new Error('store down');
        for (let i = 0; i < batch.count; i++) offsets.push(batch.offset(i));
      },
      onError: (error) => void errors.push(error),
    });
    await c.start();
    const member = c.memberId;
    await waitFor(() => offsets.length >= 100, 30_000, 'records');
    expect(offsets).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(errors.map((e) => [e.code, e.retriable])).toEqual([
      ['HANDLER_FAILED', true],
      ['HANDLER_FAILED', true],
    ]);
    expect(c.memberId).toBe(member);
    expect(c.stats.handlerErrors).toBe(2);
    expect(c.stats.rejoins).toBe(0);
  });

  it('joins again by itself when the group removed it (lost), from the committed offsets', async () => {
    const topic = await filledTopic(2, 1, 100);
    const groupId = uniqueName('kc-lost');
    const revoked: boolean[] = [];
    const offsets: number[] = [];
    const c = consumer({
      groupId,
      topics: [topic],
      eachBatch: async (batch) => {
        for (let i = 0; i < batch.count; i++) offsets.push(batch.offset(i));
        await c.commit([{ topic, partition: batch.partition, offset: batch.nextOffset }]);
      },
      onRevoked: (_partitions, { lost }) => void revoked.push(lost),
    });
    await c.start();
    await waitFor(() => offsets.length >= 100, 30_000, 'records');
    const first = c.memberId;
    // Another client removes the member, as the coordinator does when a session times out.
    const admin = new Base({ clientId: 'kc-test', bootstrapBrokers: brokers });
    cleanups.push(() => admin.close());
    const metadata = await admin.metadata({ topics: [] });
    const broker = [...metadata.brokers.values()][0] as Broker;
    const connection = await admin.connections.get(broker);
    const coordinator = (await findCoordinatorV6.api.async(connection, 0, [groupId])).coordinators[0];
    await leaveGroupV5.api.async(
      await admin.connections.get({ host: coordinator?.host ?? '', port: coordinator?.port ?? 0 }),
      groupId,
      [{ memberId: first, groupInstanceId: null, reason: 'test' }],
    );
    await waitFor(
      () => revoked.length >= 1 && c.state === 'consuming' && c.memberId !== first,
      30_000,
      'rejoined',
    );
    expect(revoked[0]).toBe(true);
    expect(c.stats.rejoins).toBe(1);
    const producer = new BatchProducer({ brokers });
    await producer.send(new ProduceSet([chunkRecords(topic, 1, 100)]));
    await producer.close();
    await waitFor(() => offsets.length >= 200, 30_000, 'records after the rejoin');
    await new Promise((r) => setTimeout(r, 300));
    expect(offsets).toHaveLength(200);
  });

  it('pauses and resumes the consumer, and single partitions', async () => {
    const topic = await filledTopic(2, 1, 100);
    const seen = new Map<number, number>();
    const c = consumer({
      groupId: uniqueName('kc-pause'),
      topics: [topic],
      eachBatch: (batch) => void seen.set(batch.partition, (seen.get(batch.partition) ?? 0) + batch.count),
    });
    c.pause();
    await c.start();
    await new Promise((r) => setTimeout(r, 1_000));
    expect(seen.size).toBe(0);
    c.pause([{ topic, partitions: [1] }]);
    c.resume();
    const total = () => [...seen.values()].reduce((n, x) => n + x, 0);
    await waitFor(() => (seen.get(0) ?? 0) > 0, 30_000, 'partition 0');
    await new Promise((r) => setTimeout(r, 1_000));
    expect(seen.get(1)).toBeUndefined();
    c.resume([{ topic, partitions: [1] }]);
    await waitFor(() => total() >= 100, 30_000, 'all records');
    expect(total()).toBe(100);
  });

  it('rejects unknown and bad options, naming them', () => {
    const base = { brokers, groupId: 'g', topics: ['t'], eachBatch: () => undefined };
    expect(() => new BatchConsumer({ ...base, maxBatchRecords: 5 } as BatchConsumerOptions)).toThrow(
      /batch consumer options: unknown option "maxBatchRecords" \(allowed: brokers, /,
    );
    expect(() => new BatchConsumer({ ...base, maxWaitMs: 0 })).toThrow(
      /"maxWaitMs" must be an integer from 1 to /,
    );
    expect(() => new BatchConsumer({ ...base, topics: [] })).toThrow(/"topics"/);
    expect(() => new BatchConsumer({ ...base, checkCrcs: 'yes' as unknown as boolean })).toThrow(
      /"checkCrcs"/,
    );
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
