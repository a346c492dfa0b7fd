/**
 * Writes order events to the `orders.updates` topic, keyed by order id so one order's updates
 * share a partition and keep their order. Idempotent producer with one request in flight: the
 * broker drops duplicates of kafkajs's own retries and the partition order is the send order.
 */
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { type OrderEvent, toWire } from './order-event.js';

export interface KafkaWriter {
  send(events: readonly OrderEvent[], firstSeq: number): Promise<void>;
  close(): Promise<void>;
}

/** Creates the topic if it is missing (bounded retries: a fresh topic's leader can lag). */
async function ensureTopic(kafka: Kafka, topic: string, partitions: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const admin = kafka.admin();
    try {
      await admin.connect();
      await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true });
      await admin.fetchTopicMetadata({ topics: [topic] });
      return;
    } catch (error) {
      if (attempt >= 10) throw error;
      await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** attempt)));
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }
}

export async function createKafkaWriter(options: {
  brokers: readonly string[];
  topic: string;
  clientId: string;
  partitions: number;
}): Promise<KafkaWriter> {
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: [...options.brokers],
    logLevel: logLevel.NOTHING,
    retry: { initialRetryTime: 100, maxRetryTime: 2_000, retries: 5 },
  });
  await ensureTopic(kafka, options.topic, options.partitions);
  const producer: Producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  return {
    async send(events, firstSeq) {
      if (events.length === 0) return;
      await producer.send({
        topic: options.topic,
        acks: -1,
        messages: events.map((e, i) => ({ key: e.orderId, value: JSON.stringify(toWire(e, firstSeq + i)) })),
      });
    },
    close: () => producer.disconnect(),
  };
}
