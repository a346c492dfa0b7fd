import { Kafka, logLevel } from 'kafkajs';
import { retry } from './retry.js';

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
  await retry(
    async () => {
      const admin = kafka.admin();
      try {
        await admin.connect();
        await admin.createTopics({
          topics: topics.map((topic) => (partitions ? { topic, numPartitions: partitions } : { topic })),
          waitForLeaders: true,
        });
        await admin.fetchTopicMetadata({ topics: [...topics] });
      } finally {
        await admin.disconnect().catch(() => undefined);
      }
    },
    { attempts: 10, initialMs: 200, maxMs: 2_000 },
  );
}
