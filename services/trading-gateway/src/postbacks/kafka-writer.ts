/**
 * Writes order events to the `orders.updates` topic, keyed by order id so one order's updates
 * share a partition and keep their order. Idempotent producer with one request in flight: the
 * broker drops duplicates of kafkajs's own retries and the partition order is the send order.
 *
 * Connects lazily, on the first send, and again after a failed one: the receiver starts and
 * acknowledges postbacks (they are in its write-ahead log) while Kafka is down, and the pipeline's
 * retries bring the records to Kafka once it is back.
 */
import { retry } from '@feedpipe/service-kit';
import { Kafka, logLevel, type Producer } from 'kafkajs';

export interface KafkaWriter {
  /** Sends values (already serialised) keyed by order id, in order. */
  send(messages: ReadonlyArray<{ key: string; value: string }>): Promise<void>;
  close(): Promise<void>;
}

/** Creates the topic if it is missing (bounded retries: a fresh topic's leader can lag). */
async function ensureTopic(kafka: Kafka, topic: string, partitions: number): Promise<void> {
  await retry(
    async () => {
      const admin = kafka.admin();
      try {
        await admin.connect();
        await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true });
        await admin.fetchTopicMetadata({ topics: [topic] });
      } finally {
        await admin.disconnect().catch(() => undefined);
      }
    },
    { attempts: 3, initialMs: 400, maxMs: 1_600, floor: 0.5 },
  );
}

export function createKafkaWriter(options: {
  brokers: readonly string[];
  topic: string;
  clientId: string;
  partitions: number;
}): KafkaWriter {
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: [...options.brokers],
    logLevel: logLevel.NOTHING,
    retry: { initialRetryTime: 100, maxRetryTime: 2_000, retries: 5 },
  });
  let producer: Producer | undefined;
  let topicReady = false;
  const connected = async (): Promise<Producer> => {
    if (producer) return producer;
    if (!topicReady) {
      await ensureTopic(kafka, options.topic, options.partitions);
      topicReady = true;
    }
    const p = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    try {
      await p.connect();
    } catch (error) {
      await p.disconnect().catch(() => undefined);
      throw error;
    }
    producer = p;
    return p;
  };
  return {
    async send(messages) {
      if (messages.length === 0) return;
      const p = await connected();
      try {
        await p.send({ topic: options.topic, acks: -1, messages: messages.map((m) => ({ ...m })) });
      } catch (error) {
        // A fresh producer next time: kafkajs's own connection may be wedged after a broker outage.
        producer = undefined;
        await p.disconnect().catch(() => undefined);
        throw error;
      }
    },
    async close() {
      const p = producer;
      producer = undefined;
      await p?.disconnect();
    },
  };
}
