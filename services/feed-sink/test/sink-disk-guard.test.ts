/**
 * The disk guard on a real small disk: the sink's embedded chDB on a 64 MB file system made for the
 * test, records flowing through the real Kafka broker. Filling the disk pauses the sink (no insert,
 * still in its group, the lag grows, the paused gauge is 1 and the retention headroom is measured);
 * freeing it resumes the sink by itself; every record is then stored once.
 */
import { FEED_TABLES } from '@feedpipe/contracts';
import { KafkaAdmin, RecordAges } from '@feedpipe/kafka-client';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { uniqueName, waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createSink, type Sink } from '../src/index.js';
import { topicsFor } from './fixtures/feed-fixtures.js';
import { tradeMessages } from './fixtures/feed-records.js';
import { produce } from './fixtures/produce.js';
import { mountSmallDisk, type SmallDisk } from './fixtures/small-disk.js';

const brokers = inject('kafkaBrokers');
const MiB = 1024 * 1024;
/** The guard pauses below 24 MiB free; the filler leaves 12 MiB, room for what is buffered. */
const MIN_FREE = 24 * MiB;
const LEAVE = 12 * MiB;

describe('sink disk guard on a small file system', () => {
  let disk: SmallDisk;
  let store: Store;
  let sink: Sink | undefined;

  beforeAll(async () => {
    disk = mountSmallDisk(64);
    store = createStore({ dataDir: `${disk.dir}/chdb` });
    await runMigrations(store.internal);
  });
  afterAll(async () => {
    await sink?.stop();
    await store?.close();
    disk?.free();
    disk?.unmount();
  });

  async function count(query: string): Promise<number> {
    const [row] = await store.internal.rows<{ n: number | string }>(query);
    return Number(row?.n);
  }
  const stored = () => count(`SELECT count() AS n FROM ${FEED_TABLES.ticks.name}`);
  async function gauge(name: string, topic?: string): Promise<number | undefined> {
    const metric = await sink?.registry.getSingleMetric(name)?.get();
    return metric?.values.find((v) => topic === undefined || v.labels.topic === topic)?.value;
  }

  it('pauses when the disk fills, holds the feed in Kafka, resumes when space returns: 0 lost, 0 doubled', async () => {
    const prefix = uniqueName('diskguard');
    const topics = topicsFor(prefix);
    await KafkaAdmin.ensureTopicsOnce(brokers, Object.values(topics), { partitions: 3 });
    const logs: string[] = [];
    sink = createSink(
      {
        brokers,
        groupId: uniqueName('g'),
        topics,
        maxBatchAgeMs: 100,
        diskGuard: { minFreeBytes: MIN_FREE, minFreePercent: 0, intervalMs: 200 },
        retentionProbeMs: 500,
      },
      {
        store,
        log: (m) => logs.push(m),
      },
    );
    await sink.start();
    expect(sink.stats().writesPaused).toBe(false);
    expect(await gauge('sink_store_free_bytes')).toBeGreaterThan(MIN_FREE);

    const before = tradeMessages(40, 100, 1);
    await produce(brokers, topics.trades, before);
    await waitFor(async () => (await stored()) === before.length, 60_000, 'the first records stored');

    const crashesBefore = sink.stats().consumerCrashes;
    disk.fill(LEAVE);
    await waitFor(() => sink?.stats().writesPaused === true, 30_000, 'the guard to pause the sink');
    expect(await gauge('sink_store_writes_paused')).toBe(1);
    expect(logs.some((l) => l.includes('pausing writes'))).toBe(true);

    const during = tradeMessages(40, 150, 101);
    await produce(brokers, topics.trades, during);
    // The lag probe (every 5 s) sees the held records; the retention probe measures their headroom.
    await waitFor(
      async () => ((await gauge('sink_consumer_lag', topics.trades)) ?? 0) >= during.length,
      30_000,
      'the lag to show the held records',
      200,
    );
    await waitFor(
      async () =>
        Number.isFinite((await gauge('sink_kafka_retention_headroom_seconds', topics.trades)) ?? Infinity),
      30_000,
      'a finite retention headroom while records wait',
      200,
    );
    const headroom = (await gauge('sink_kafka_retention_headroom_seconds', topics.trades)) ?? 0;
    const ages = new RecordAges({ brokers });
    const retentionS = ((await ages.retentionMs([topics.trades])).get(topics.trades) ?? 0) / 1000;
    await ages.close();
    // What waits was produced minutes ago at most: nearly all of the retention is left.
    expect(headroom).toBeLessThanOrEqual(retentionS);
    expect(headroom).toBeGreaterThan(retentionS - 600);
    expect(await gauge('sink_kafka_oldest_unconsumed_age_seconds', topics.trades)).toBeGreaterThanOrEqual(0);
    // Held, not failed: nothing of the second batch is stored, and the member is still in its group.
    expect(await stored()).toBe(before.length);
    expect(sink.stats().consumerUp).toBe(true);
    expect(sink.stats().insertFailures).toBe(0);
    expect(sink.stats().writesPaused).toBe(true);

    disk.free();
    await waitFor(() => sink?.stats().writesPaused === false, 30_000, 'the guard to resume the sink');
    expect(await gauge('sink_store_writes_paused')).toBe(0);
    const total = before.length + during.length;
    await waitFor(
      async () => (await stored()) >= total,
      60_000,
      () => `all ${total} records stored`,
      200,
    );
    await sink.flush();
    expect(await stored()).toBe(total);
    const distinct = await count(`SELECT uniqExact(security_id, volume) AS n FROM ${FEED_TABLES.ticks.name}`);
    expect(distinct).toBe(total);
    await waitFor(
      async () => (await gauge('sink_kafka_retention_headroom_seconds', topics.trades)) === Infinity,
      30_000,
      'no headroom limit once nothing waits',
      200,
    );
    // No consumer outage from the pause to the end (a fresh broker's coordinator may refuse the first join).
    expect(sink.stats().consumerCrashes).toBe(crashesBefore);
  }, 240_000);

  it('a disk filled to the last byte while records flow: held (a failed insert is retried), resumed; 0 lost, 0 doubled', async () => {
    await sink?.stop();
    const prefix = uniqueName('diskfull');
    const topics = topicsFor(prefix);
    await KafkaAdmin.ensureTopicsOnce(brokers, Object.values(topics), { partitions: 3 });
    const already = await stored();
    sink = createSink(
      {
        brokers,
        groupId: uniqueName('g'),
        topics,
        maxBatchAgeMs: 100,
        diskGuard: { minFreeBytes: 0, minFreePercent: 10, intervalMs: 1_000 },
      },
      {
        store,
        log: () => undefined,
      },
    );
    await sink.start();
    disk.fill(0);
    const messages = tradeMessages(40, 100, 1_000_001);
    await produce(brokers, topics.trades, messages);
    await waitFor(() => sink?.stats().writesPaused === true, 30_000, 'the guard to pause the sink');
    disk.free();
    await waitFor(() => sink?.stats().writesPaused === false, 30_000, 'the guard to resume the sink');
    const total = already + messages.length;
    await waitFor(
      async () => (await stored()) >= total,
      60_000,
      () => `all ${total} records stored`,
      200,
    );
    await sink.flush();
    expect(await stored()).toBe(total);
    expect(await count(`SELECT uniqExact(security_id, volume) AS n FROM ${FEED_TABLES.ticks.name}`)).toBe(
      total,
    );
  }, 240_000);
});
