import { Kafka, logLevel } from 'kafkajs';
import { Backoff } from './backoff.js';

/**
 * Creates the topics that do not exist yet and waits for their leaders. kafkajs's leader wait can
 * race with a fresh topic's metadata ("does not host this topic-partition"), so the whole step is
 * retried a bounded number of times.
 */
export async function ensureTopics(
  brokers: string[],
  topics: readonly string[],
  partitions?: number,
): Promise<void> {
  const kafka = new Kafka({ clientId: 'feedpipe-admin', brokers, logLevel: logLevel.NOTHING });
  const backoff = new Backoff({ initialMs: 200, maxMs: 2_000 });
  for (let attempt = 1; ; attempt++) {
    const admin = kafka.admin();
    try {
      await admin.connect();
      await admin.createTopics({
        topics: topics.map((topic) => (partitions ? { topic, numPartitions: partitions } : { topic })),
        waitForLeaders: true,
      });
      await admin.fetchTopicMetadata({ topics: [...topics] });
      return;
    } catch (error) {
      if (attempt >= 10) throw error;
      await new Promise((r) => setTimeout(r, backoff.next()));
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }
}
