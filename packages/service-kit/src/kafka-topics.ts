import { KafkaAdmin } from '@feedpipe/kafka-client';

/**
 * Creates the topics that do not exist yet (with `partitions` each, else the broker's default) and
 * waits until every partition has a leader. Bounded: KafkaAdmin retries with backoff and gives up
 * with TOPIC_NOT_READY after `timeoutMs`.
 */
export async function ensureTopics(
  brokers: readonly string[],
  topics: readonly string[],
  partitions?: number,
  timeoutMs = 60_000,
): Promise<void> {
  const admin = new KafkaAdmin({ brokers, clientId: 'feedpipe-admin' });
  try {
    await admin.ensureTopics(topics, partitions === undefined ? { timeoutMs } : { partitions, timeoutMs });
  } finally {
    await admin.close();
  }
}
