export {
  BatchConsumer,
  type BatchConsumerOptions,
  type BatchConsumerStats,
  type ConsumerState,
  type PartitionLag,
  type TopicPartitionOffset,
} from './clients/batch-consumer.js';
export {
  BatchProducer,
  type BatchProducerOptions,
  type BatchProducerStats,
  type SendResult,
} from './clients/batch-producer.js';
export { JsonProducer, type JsonProducerOptions, type JsonRecord } from './clients/json-producer.js';
export {
  type BrokerInfo,
  type EnsureTopicsOptions,
  KafkaAdmin,
  type PartitionOffsets,
  type PartitionState,
} from './clients/kafka-admin.js';
export {
  chooseLeader,
  KafkaLeadership,
  type KafkaLeadershipOptions,
  type LeadershipRole,
} from './clients/kafka-leadership.js';
export { ProduceSet, type TopicRecords } from './clients/produce-set.js';
export { type ReadRecord, readTopic } from './clients/read-topic.js';
export { RecordAges, type RecordAgeTarget, type RecordAt } from './clients/record-ages.js';
export {
  TopicTail,
  type TopicTailOptions,
  type TopicTailState,
  type TopicTailStats,
} from './clients/topic-tail.js';
export type { TopicPartitions } from './consumer/consumer-protocol.js';
export { isKafkaClientError, KafkaClientError, type KafkaClientErrorCode } from './errors.js';
export type { ConnectionOptions } from './options.js';
export { crc32c } from './protocol/crc32c.js';
export { type ConsumedRecord, headerValue, PartitionBatch } from './protocol/partition-batch.js';
export { partitionOf } from './protocol/partitioner.js';
export {
  BATCH_HEADER_BYTES,
  type BatchBuffers,
  type EncodedBatch,
  type HeaderLayout,
  MAX_BATCH_BYTES,
  type ProducerFields,
  RecordBatchBuilder,
  type RecordBatchBuilderOptions,
  type RecordValueWriter,
} from './protocol/record-batch-builder.js';
