/**
 * Resuming from the store, not only from Kafka's commits. The group's committed offsets say what
 * this sink once stored; the rows in ClickHouse say what the store holds now. They differ after a
 * restore from a backup: the store ends at the backup, while the commits went on to what was stored
 * after it. Reading from the commits would then leave out every record between the two, for good.
 *
 * So on each assignment, once the stored marks are read (stored-offsets.ts), a partition whose
 * store ends below the group's commit is moved back there, by committing that offset before the
 * consumer resolves its positions from the commits: the records after the backup are read again
 * from Kafka (within its retention) and stored once (everything at or below a table's mark is
 * skipped). A partition is never moved forward: a commit below the store's end is the ordinary
 * replay after a crash, which the marks already handle.
 */

import type { TopicKind } from '@feedpipe/contracts';
import type { PartitionLag, TopicPartitionOffset, TopicPartitions } from '@feedpipe/kafka-client';
import { Backoff } from '@feedpipe/retry';
import { SinkError } from './errors.js';
import { tablesOfTopic } from './sink-tables.js';
import type { StoredOffsets } from './stored-offsets.js';

/** Attempts to read the commits and rewind (about 10 minutes with the backoff's 5 s cap). */
const MAX_ATTEMPTS = 120;

export interface RewindContext {
  stored: StoredOffsets;
  kindByTopic: ReadonlyMap<string, TopicKind>;
  /** The group's commits per partition of `topics` (BatchConsumer.lag). */
  committed: (topics: readonly string[]) => Promise<PartitionLag[]>;
  commit: (offsets: TopicPartitionOffset[]) => Promise<void>;
  running: () => boolean;
  log: (message: string) => void;
}

/** The offsets to commit: assigned partitions whose store ends below the group's commit. */
export function rewindsOf(
  assigned: readonly TopicPartitions[],
  commits: readonly PartitionLag[],
  stored: StoredOffsets,
  kindByTopic: ReadonlyMap<string, TopicKind>,
): TopicPartitionOffset[] {
  const committed = new Map(commits.map((c) => [`${c.topic}:${c.partition}`, c.committed]));
  const rewinds: TopicPartitionOffset[] = [];
  for (const { topic, partitions } of assigned) {
    const kind = kindByTopic.get(topic);
    if (!kind) continue;
    const tables = tablesOfTopic(kind).map((t) => t.table);
    for (const partition of partitions) {
      const resume = stored.resumeOffset(tables, partition);
      const commit = committed.get(`${topic}:${partition}`) ?? 0n;
      if (resume !== undefined && BigInt(resume) < commit) {
        rewinds.push({ topic, partition, offset: BigInt(resume) });
      }
    }
  }
  return rewinds;
}

/** Moves the assigned partitions back to where the store ends; retried while the sink runs. */
export async function rewindToStore(assigned: readonly TopicPartitions[], ctx: RewindContext): Promise<void> {
  const topics = assigned.map((a) => a.topic).filter((t) => ctx.kindByTopic.has(t));
  if (topics.length === 0) return;
  const backoff = new Backoff({ initialMs: 200, maxMs: 5_000 });
  for (let attempt = 1; ; attempt++) {
    try {
      const rewinds = rewindsOf(assigned, await ctx.committed(topics), ctx.stored, ctx.kindByTopic);
      if (rewinds.length === 0) return;
      await ctx.commit(rewinds);
      ctx.log(
        `the store ends below the group's commits (restored from a backup?): reading again from ${rewinds
          .map((r) => `${r.topic}[${r.partition}]@${r.offset}`)
          .join(', ')}`,
      );
      return;
    } catch (error) {
      if (!ctx.running()) return;
      if (attempt >= MAX_ATTEMPTS) {
        throw new SinkError(
          'REWIND_FAILED',
          `could not compare the group's commits with the store: ${(error as Error).message}`,
          {
            cause: error,
            retryable: true,
          },
        );
      }
      const delay = backoff.next();
      ctx.log(
        `comparing the group's commits with the store failed (${(error as Error).message}); retrying in ${delay} ms`,
      );
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}
