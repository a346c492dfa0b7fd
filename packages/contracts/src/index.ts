// Public surface of @feedpipe/contracts: what producers and consumers agree on, defined once.
// A leaf: it depends on no other @feedpipe package.

export { ContractError, type ContractErrorCode } from './errors.js';
export {
  ORDER_UPDATE_FIELDS,
  ORDER_UPDATE_KINDS,
  ORDER_UPDATE_SOURCES,
  type OrderUpdateField,
  type OrderUpdateFieldKind,
  type OrderUpdateKind,
  type OrderUpdateRecord,
  type OrderUpdateSource,
} from './order-update.js';
export {
  DEPTH_LEVELS,
  type DepthLevel,
  QUOTE_FIELDS,
  type QuoteField,
  type QuoteFieldKind,
  type QuoteRecord,
} from './quote-record.js';
export { QUANTITY_DOC, RECEIVED_AT_DOC, RECORD_DOCS, type RecordDoc } from './record-docs.js';
export {
  FEED_VALUE_FIELDS,
  type FieldKind,
  GAP_LAYOUT,
  jsonLiterals,
  QUANTITY_FIELD,
  RECEIVED_AT_FIELD,
  RECORD_FIELD_NAMES,
  RECORD_LAYOUTS,
  RECORD_TYPES,
  type RecordField,
  type RecordFieldName,
  type RecordLayout,
} from './record-layout.js';
export {
  FEED_SCHEMA_IDS,
  ORDER_UPDATE_SCHEMA_ID,
  QUOTE_SCHEMA_ID,
  SCHEMA_HEADER,
} from './record-schema-ids.js';
export {
  generateRecordSchemas,
  RECORD_SCHEMAS_DIR,
  type RecordSchemaEntry,
  type RecordTopicKind,
  schemaFileText,
} from './record-schemas/catalog.js';
export { JSON_SCHEMA_DIALECT, type JsonSchema, type JsonValue } from './record-schemas/field-schemas.js';
export type {
  CircuitLimitRecord,
  ErrorRecord,
  FeedRecord,
  FeedRecordType,
  GapCause,
  GapRecord,
  MarketStatusRecord,
  OhlcRecord,
  PrevCloseRecord,
  TradeRecord,
  Week52Record,
} from './records.js';
export { GAP_CAUSES } from './records.js';
export {
  isSourceCopy,
  MAX_SOURCE_STREAMS_PER_PARTITION,
  readSourceIdentity,
  SOURCE_BYTES,
  SOURCE_HEADER,
  type SourceIdentity,
  type SourceMark,
  writeSourceIdentity,
} from './source-identity.js';
export { FEED_TABLE_OF_TOPIC, FEED_TABLES, KAFKA_SOURCE_COLUMNS } from './tables/feed-tables.js';
export { HISTORY_TABLES } from './tables/history-tables.js';
export { REFERENCE_TABLES } from './tables/reference-tables.js';
export { SERVICE_TABLES } from './tables/service-tables.js';
export { type TableContract, table } from './tables/table.js';
export {
  type ContractTopic,
  contractTopics,
  DEFAULT_FEED_TOPICS,
  DEFAULT_ORDER_UPDATES_TOPIC,
  DEFAULT_QUOTES_TOPIC,
  FEED_TOPIC_PARTITIONS,
  type FeedTopics,
  ORDER_UPDATES_PARTITIONS,
  type PerTopicKind,
  perTopicKind,
  prefixedTopics,
  QUOTES_PARTITIONS,
  TOPIC_KIND_OF_RECORD,
  TOPIC_KINDS,
  type TopicKind,
  topicKindOf,
} from './topics.js';
export {
  FEED_TOPICS_ENV,
  type FeedTopicsEnvValues,
  feedTopicsOf,
  feedTopicsProblem,
} from './topics-env.js';
export {
  movesBase,
  type QuantityBase,
  quantityAfter,
  tradeDayOf,
  tradedQuantity,
} from './traded-quantity.js';
