/**
 * The status topic carries two tables' records: the feed's status packets (market.feed_status) and
 * the ingestor's `gap` records (market.feed_gaps). The sink routes each to its table, rejects a gap
 * whose fields its column cannot hold, and recognises a replay of both by each table's own stored
 * offsets: nothing is stored twice.
 */
import { FEED_TABLES } from '@feedpipe/contracts';
import { KafkaAdmin } from '@feedpipe/kafka-client';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createSink } from '../src/index.js';
import { topicsFor } from './fixtures/feed-fixtures.js';
import { produce } from './fixtures/produce.js';

const brokers = inject('kafkaBrokers');

const gap = (securityId: number, cause: string, startedAt: number) =>
  JSON.stringify({
    type: 'gap',
    segment: 1,
    securityId,
    subscription: 'trade',
    cause,
    startedAt,
    endedAt: startedAt + 1_500_250,
    connection: 3,
  });

describe('sink: gap records of the status topic', () => {
  let store: Store;
  beforeAll(async () => {
    store = createStore({ dataDir: tempDir('sink-gaps') });
    await runMigrations(store.internal);
  });
  afterAll(async () => {
    await store.close();
  });

  const count = async (sql: string): Promise<number> =>
    Number((await store.internal.rows<{ n: string | number }>(sql))[0]?.n);

  it('stores gaps in market.feed_gaps beside the status rows, once, also after a replay', async () => {
    const prefix = uniqueName('sinkgaps');
    const topics = topicsFor(prefix);
    await KafkaAdmin.ensureTopicsOnce(brokers, Object.values(topics), { partitions: 1 });
    await produce(brokers, topics.status, [
      {
        key: '0',
        value:
          '{"type":"market_status","segment":1,"securityId":0,"marketType":[1,0,0],"status":2,"receivedAt":1760000000000005}',
      },
      { key: '11', value: gap(11, 'token_renewal', 1_760_000_000_250_000) },
      { key: '12', value: gap(12, 'Not A Cause!', 1_760_000_000_000_000) },
      {
        key: '0',
        value: '{"type":"error","segment":0,"securityId":0,"code":807,"receivedAt":1760000000000006}',
      },
      { key: '13', value: gap(13, 'eviction', 1_760_000_001_000_000) },
    ]);

    const run = async () => {
      const sink = createSink(
        {
          brokers,
          groupId: uniqueName('g'),
          topics,
          maxBatchAgeMs: 100,
        },
        {
          store,
          log: () => undefined,
        },
      );
      await sink.start();
      await waitFor(() => sink.stats().consumed >= 5, 30_000, 'the five status records read');
      await sink.flush();
      await sink.stop();
      return sink.stats();
    };
    const first = await run();
    expect(first.invalid).toBe(1);
    expect(first.inserted[FEED_TABLES.feedGaps.name]).toBe(2);
    expect(first.inserted[FEED_TABLES.feedStatus.name]).toBe(2);
    const rows = await store.internal.rows<Record<string, unknown>>(
      `SELECT security_id, segment, subscription, cause, toString(started_at) AS started, toString(ended_at) AS ended,
              connection, kafka_partition, kafka_offset
       FROM ${FEED_TABLES.feedGaps.name} ORDER BY kafka_offset`,
    );
    expect(rows).toEqual([
      {
        security_id: 11,
        segment: 1,
        subscription: 'trade',
        cause: 'token_renewal',
        started: '2025-10-09 08:53:20.250000',
        ended: '2025-10-09 08:53:21.750250',
        connection: 3,
        kafka_partition: 0,
        kafka_offset: 1,
      },
      expect.objectContaining({ security_id: 13, cause: 'eviction', kafka_offset: 4 }),
    ]);

    // A new group reads the topic again from the start: each table's stored offsets skip its rows.
    const replay = await run();
    expect(replay.inserted).toEqual({});
    // All five: the invalid gap too lies below what market.feed_gaps stores for the partition.
    expect(replay.replayedSkipped).toBe(5);
    expect(replay.invalid).toBe(0);
    expect(await count(`SELECT count() AS n FROM ${FEED_TABLES.feedGaps.name}`)).toBe(2);
    expect(await count(`SELECT count() AS n FROM ${FEED_TABLES.feedStatus.name}`)).toBe(2);
  });
});
