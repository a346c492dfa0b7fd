/** Reading a whole Kafka topic back as JSON records, for assertions in tests and benchmarks. */
import { readTopic as readRecords } from '@feedpipe/kafka-client';

export interface TopicRecord {
  partition: number;
  offset: number;
  key: string;
  value: Record<string, unknown>;
  /** Header values by name (the last value of a repeated name). */
  headers: Record<string, Buffer>;
}

/** Every record of `topic` up to its high watermarks now, in partition then offset order; values parsed as JSON. */
export async function readTopic(
  brokers: readonly string[],
  topic: string,
  timeoutMs = 60_000,
): Promise<TopicRecord[]> {
  const records = await readRecords({ brokers, clientId: 'testkit-read-topic' }, topic, timeoutMs);
  return records.map((r) => ({
    partition: r.partition,
    offset: r.offset,
    key: r.key?.toString() ?? '',
    value: JSON.parse(r.value?.toString() ?? 'null') as Record<string, unknown>,
    headers: Object.fromEntries(r.headers),
  }));
}
