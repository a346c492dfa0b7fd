/**
 * Every topic of the contract, created with its partitions as soon as Kafka is there and before any
 * part starts: the feed topics appear with the ingestor's start anyway, but `orders.updates` would
 * appear only with the gateway's first order update, and a consumer that subscribes first (a
 * librdkafka client started with the pipeline) would meet unknown-topic errors until then.
 * Topics that exist already are left as they are (KafkaAdmin.ensureTopics).
 */
import { type ContractTopic, contractTopics } from '@feedpipe/contracts';
import { KafkaAdmin } from '@feedpipe/kafka-client';

/** One creation per partition count: each waits (bounded) until every partition has a leader. */
export async function ensureContractTopics(
  brokers: readonly string[],
  topics: readonly ContractTopic[] = contractTopics(),
): Promise<string[]> {
  const byPartitions = new Map<number, string[]>();
  for (const topic of topics) {
    byPartitions.set(topic.partitions, [...(byPartitions.get(topic.partitions) ?? []), topic.name]);
  }
  for (const [partitions, names] of byPartitions)
    await KafkaAdmin.ensureTopicsOnce(brokers, names, { partitions: partitions });
  return topics.map((t) => t.name);
}
