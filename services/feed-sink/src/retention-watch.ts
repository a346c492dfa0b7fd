/**
 * How long the sink may stay behind before Kafka's retention deletes records it has not stored:
 * per partition with lag, retention.ms less the age of the oldest uncommitted record (the record at
 * the group's committed offset); per topic, the least of its partitions. Matters most while the disk
 * guard holds the sink: the feed then waits in Kafka, and this is the time left to free the disk.
 */
import type { PartitionLag, RecordAges } from '@feedpipe/kafka-client';
import type { SinkMetrics } from './sink-metrics.js';

export interface RetentionFigures {
  /** Per topic: seconds left before retention deletes an unstored record (+Inf: nothing at risk). */
  headroomSeconds: Map<string, number>;
  /** Per topic: age of the oldest uncommitted record in seconds (0: none). */
  oldestAgeSeconds: Map<string, number>;
  /** Partitions whose committed offset is below the log start: records deleted before being stored. */
  deleted: string[];
}

/** The figures for one lag reading; sets the gauges of every topic in `lag`. */
export async function probeRetention(
  ages: RecordAges,
  lag: readonly PartitionLag[],
  metrics: SinkMetrics,
  nowMs: number,
): Promise<RetentionFigures> {
  const topics = [...new Set(lag.map((p) => p.topic))];
  const figures: RetentionFigures = {
    headroomSeconds: new Map(topics.map((t) => [t, Number.POSITIVE_INFINITY])),
    oldestAgeSeconds: new Map(topics.map((t) => [t, 0])),
    deleted: [],
  };
  const behind = lag.filter((p) => p.lag > 0n);
  if (behind.length > 0) {
    const [retention, found] = await Promise.all([
      ages.retentionMs(topics),
      ages.at(behind.map((p) => ({ topic: p.topic, partition: p.partition, offset: p.committed }))),
    ]);
    for (const p of behind) {
      const at = found.get(`${p.topic}:${p.partition}`);
      if (at === undefined || at.kind === 'none') continue;
      const retentionMs = retention.get(p.topic) ?? -1;
      if (at.kind === 'deleted') {
        figures.deleted.push(`${p.topic}:${p.partition}`);
        figures.headroomSeconds.set(p.topic, 0);
        continue;
      }
      const ageS = Math.max(0, (nowMs - at.timestamp) / 1000);
      if (ageS > (figures.oldestAgeSeconds.get(p.topic) ?? 0)) figures.oldestAgeSeconds.set(p.topic, ageS);
      // retention.ms -1 keeps records for ever: no headroom limit.
      if (retentionMs < 0) continue;
      const left = retentionMs / 1000 - ageS;
      if (left < (figures.headroomSeconds.get(p.topic) ?? Number.POSITIVE_INFINITY))
        figures.headroomSeconds.set(p.topic, Math.max(0, left));
    }
  }
  for (const topic of topics) {
    metrics.retentionHeadroomSeconds.set(
      { topic },
      figures.headroomSeconds.get(topic) ?? Number.POSITIVE_INFINITY,
    );
    metrics.oldestUnconsumedAgeSeconds.set({ topic }, figures.oldestAgeSeconds.get(topic) ?? 0);
  }
  return figures;
}
