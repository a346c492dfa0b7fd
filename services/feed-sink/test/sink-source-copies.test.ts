/**
 * The sink's last line against a record in Kafka twice: a copy re-produced under a new producer id
 * (the one window left in the ingestor, a producer reset) sits at a later offset with the same
 * source identity, and is dropped; a record of equal content but its own identity is stored.
 */

import { FEED_TABLES, SOURCE_BYTES, SOURCE_HEADER, writeSourceIdentity } from '@feedpipe/contracts';
import { KafkaAdmin } from '@feedpipe/kafka-client';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createSink } from '../src/index.js';
import { SourceMarks } from '../src/source-marks.js';
import { topicsFor } from './fixtures/feed-fixtures.js';
import { tradeMessages } from './fixtures/feed-records.js';
import { produce } from './fixtures/produce.js';

function identity(run: number, connection: number, chunk: number, row: number): Buffer {
  const bytes = Buffer.alloc(SOURCE_BYTES);
  writeSourceIdentity(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
    run,
    connection,
    chunk,
    row,
  });
  return bytes;
}

describe('SourceMarks', () => {
  it('marks per partition and stream, and calls a copy only what is at or below the mark', () => {
    const marks = new SourceMarks();
    const p0 = marks.partition('t', 0);
    const p1 = marks.partition('t', 1);
    expect(marks.isCopy(p0, identity(1, 0, 5, 3))).toBe(false);
    expect(marks.isCopy(p0, identity(1, 0, 5, 3))).toBe(true);
    expect(marks.isCopy(p0, identity(1, 0, 5, 2))).toBe(true);
    expect(marks.isCopy(p0, identity(1, 0, 4, 900))).toBe(true);
    expect(marks.isCopy(p0, identity(1, 0, 5, 4))).toBe(false);
    expect(marks.isCopy(p0, identity(1, 0, 6, 0))).toBe(false);
    // Another connection, another run, another partition: streams of their own.
    expect(marks.isCopy(p0, identity(1, 1, 0, 0))).toBe(false);
    expect(marks.isCopy(p0, identity(2, 0, 0, 0))).toBe(false);
    expect(marks.isCopy(p1, identity(1, 0, 5, 3))).toBe(false);
    // No header, or not an identity: never a copy.
    expect(marks.isCopy(p0, undefined)).toBe(false);
    expect(marks.isCopy(p0, Buffer.alloc(3))).toBe(false);
  });
});

describe('sink and records in Kafka twice', () => {
  const brokers = inject('kafkaBrokers');
  let store: Store;
  beforeAll(async () => {
    store = createStore({ dataDir: tempDir('sink-copies') });
    await runMigrations(store.internal);
  });
  afterAll(async () => {
    await store.close();
  });

  async function count(query: string): Promise<number> {
    const [row] = await store.internal.rows<{ n: number | string }>(query);
    return Number(row?.n);
  }

  it('drops a copy with the same source identity at a later offset and stores the rest once', async () => {
    const prefix = uniqueName('copies');
    const topics = topicsFor(prefix);
    await KafkaAdmin.ensureTopicsOnce(brokers, Object.values(topics), { partitions: 3 });
    const trades = tradeMessages(10, 12);
    // One connection of one run; each record its own row of chunk 0..: in order per partition.
    const originals = trades.map((m, i) => ({ ...m, headers: { [SOURCE_HEADER]: identity(7, 2, i, 0) } }));
    const copies = originals.slice(40, 70);
    const later = tradeMessages(10, 3, 1_000).map((m, i) => ({
      ...m,
      headers: { [SOURCE_HEADER]: identity(7, 2, originals.length + i, 0) },
    }));
    // Same content as an original, but decoded from another packet (its own identity): stored.
    const twin = {
      ...(trades[0] as { key: string; value: string }),
      headers: { [SOURCE_HEADER]: identity(8, 0, 0, 0) },
    };
    for (const messages of [originals, copies, later, [twin]]) {
      await produce(brokers, topics.trades, messages, 'sink-copies-test');
    }

    const sink = createSink(
      {
        brokers,
        groupId: uniqueName('g'),
        topics,
        maxBatchRows: 1_000,
        maxBatchAgeMs: 100,
      },
      {
        store,
        log: () => undefined,
      },
    );
    await sink.start();
    const expected = originals.length + later.length + 1;
    await waitFor(async () => sink.stats().consumed >= expected + copies.length, 60_000, 'every record read');
    await sink.flush();
    await sink.stop();
    expect(sink.stats().copiesDropped).toBe(copies.length);
    expect(await count(`SELECT count() AS n FROM ${FEED_TABLES.ticks.name}`)).toBe(expected);
    expect(
      await count(`SELECT uniqExact(security_id, volume, received_at) AS n FROM ${FEED_TABLES.ticks.name}`),
    ).toBe(expected - 1);
  });
});
