/**
 * Writes order events to the `orders.updates` topic, keyed by order id so one order's updates
 * share a partition and keep their order. @feedpipe/kafka-client's JsonProducer: idempotent,
 * acks=all, and the pipeline awaits each send before the next, so the broker drops duplicates of
 * the producer's own retries and the partition order is the send order.
 *
 * Every record carries the `fp-schema` header naming the JSON Schema (and version) of its value,
 * so a reader that knows nothing of this code can tell what it holds.
 *
 * Creates its topic at once (with the contract's partitions), and connects the producer lazily, on
 * the first send, and again after a failed one: the receiver starts and
 * acknowledges postbacks (they are in its write-ahead log) while Kafka is down, and the pipeline's
 * retries bring the records to Kafka once it is back.
 */
import { ORDER_UPDATE_SCHEMA_ID, SCHEMA_HEADER } from '@feedpipe/contracts';
import { JsonProducer, KafkaAdmin } from '@feedpipe/kafka-client';

export interface KafkaWriter {
  /** Sends values (already serialised) keyed by order id, in order. */
  send(messages: ReadonlyArray<{ key: string; value: string }>): Promise<void>;
  close(): Promise<void>;
}

/** The same header on every record: one Buffer, shared. */
const HEADERS = { [SCHEMA_HEADER]: Buffer.from(ORDER_UPDATE_SCHEMA_ID) };

/** Creates the topic if it is missing and waits for its leaders (bounded; a fresh topic's leader can lag). */
async function ensureTopic(options: WriterOptions): Promise<void> {
  const admin = new KafkaAdmin({ brokers: options.brokers, clientId: options.clientId });
  try {
    await admin.ensureTopics([options.topic], { partitions: options.partitions, timeoutMs: 10_000 });
  } finally {
    await admin.close();
  }
}

interface WriterOptions {
  brokers: readonly string[];
  topic: string;
  clientId: string;
  partitions: number;
}

export function createKafkaWriter(options: WriterOptions): KafkaWriter {
  let producer: JsonProducer | undefined;
  let topicReady = false;
  let creating: Promise<void> | undefined;
  const createTopic = (): Promise<void> => {
    creating ??= ensureTopic(options)
      .then(() => {
        topicReady = true;
      })
      .finally(() => {
        creating = undefined;
      });
    return creating;
  };
  // Created at once, not with the first update: a consumer that subscribes before the first order
  // must find the topic. Kafka down at start is no failure here: the first send tries again.
  void createTopic().catch(() => undefined);
  const connected = async (): Promise<JsonProducer> => {
    if (producer) return producer;
    if (!topicReady) await createTopic();
    producer = new JsonProducer({ brokers: options.brokers, clientId: options.clientId });
    return producer;
  };
  return {
    async send(messages) {
      if (messages.length === 0) return;
      const p = await connected();
      try {
        await p.send(
          options.topic,
          messages.map((m) => ({ key: m.key, value: Buffer.from(m.value), headers: HEADERS })),
        );
      } catch (error) {
        // A fresh producer (and producer id) next time: its sequence state after a failed send is
        // not worth trusting, and the pipeline resends the whole batch anyway (at least once).
        producer = undefined;
        await p.close();
        throw error;
      }
    },
    async close() {
      const p = producer;
      producer = undefined;
      await p?.close();
    },
  };
}
