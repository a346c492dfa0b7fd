/**
 * Where the sink resumes a partition: back to the end of its store when the group's commit is
 * ahead of it (a store restored from a backup), never forward, never for a partition the store
 * holds nothing of; for a topic of two tables, from the shorter one.
 */
import { FEED_TABLES, prefixedTopics, type TopicKind } from '@feedpipe/contracts';
import type { PartitionLag } from '@feedpipe/kafka-client';
import { describe, expect, it } from 'vitest';
import { rewindsOf } from '../src/resume-positions.js';
import { StoredOffsets } from '../src/stored-offsets.js';

const topics = prefixedTopics('unit');
const kindByTopic = new Map<string, TopicKind>([
  [topics.trades, 'trades'],
  [topics.status, 'status'],
]);
const commit = (topic: string, partition: number, committed: bigint): PartitionLag => ({
  topic,
  partition,
  committed,
  highWatermark: committed,
  lag: 0n,
});

describe('resume positions', () => {
  it('rewinds a partition whose store ends below the commit, and only such a partition', () => {
    const stored = new StoredOffsets();
    stored.record(FEED_TABLES.ticks.name, 0, 99); // the store ends at 100, the group committed 250
    stored.record(FEED_TABLES.ticks.name, 1, 300); // replay after a crash: commit below the store
    stored.record(FEED_TABLES.ticks.name, 2, 49); // in step
    const rewinds = rewindsOf(
      [{ topic: topics.trades, partitions: [0, 1, 2, 3] }],
      [
        commit(topics.trades, 0, 250n),
        commit(topics.trades, 1, 120n),
        commit(topics.trades, 2, 50n),
        commit(topics.trades, 3, 80n), // nothing stored of partition 3: the commits decide
      ],
      stored,
      kindByTopic,
    );
    expect(rewinds).toEqual([{ topic: topics.trades, partition: 0, offset: 100n }]);
  });

  it('takes the shorter table of a topic that feeds two, and ignores a table with no rows of it', () => {
    const stored = new StoredOffsets();
    stored.record(FEED_TABLES.feedStatus.name, 0, 40);
    stored.record(FEED_TABLES.feedGaps.name, 0, 30);
    stored.record(FEED_TABLES.feedStatus.name, 1, 70);
    expect(stored.resumeOffset([FEED_TABLES.feedStatus.name, FEED_TABLES.feedGaps.name], 0)).toBe(31);
    expect(stored.resumeOffset([FEED_TABLES.feedStatus.name, FEED_TABLES.feedGaps.name], 1)).toBe(71);
    expect(stored.resumeOffset([FEED_TABLES.feedStatus.name], 2)).toBeUndefined();
    const rewinds = rewindsOf(
      [
        { topic: topics.status, partitions: [0, 1] },
        { topic: 'not-ours', partitions: [0] },
      ],
      [commit(topics.status, 0, 41n), commit(topics.status, 1, 90n), commit('not-ours', 0, 9n)],
      stored,
      kindByTopic,
    );
    expect(rewinds).toEqual([
      { topic: topics.status, partition: 0, offset: 31n },
      { topic: topics.status, partition: 1, offset: 71n },
    ]);
  });
});
