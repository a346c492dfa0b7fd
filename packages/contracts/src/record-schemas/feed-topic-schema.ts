/**
 * The JSON Schema of one feed topic's record values, generated from the record contracts: the
 * topic's record types (TOPIC_KIND_OF_RECORD), each type's fields in text order with their kinds
 * (FEED_VALUE_FIELDS) and their meanings (RECORD_DOCS). A topic with several record types (the
 * reference and status topics) is a `oneOf` told apart by the `type` field's constant.
 */
import { GAP_DOC, QUANTITY_DOC, RECEIVED_AT_DOC, RECORD_DOCS } from '../record-docs.js';
import { FEED_VALUE_FIELDS, GAP_LAYOUT, RECORD_TYPES, type RecordField } from '../record-layout.js';
import { FEED_SCHEMA_IDS, SCHEMA_HEADER } from '../record-schema-ids.js';
import { type FeedRecordType, GAP_CAUSES } from '../records.js';
import { SOURCE_BYTES, SOURCE_HEADER } from '../source-identity.js';
import { DEFAULT_FEED_TOPICS, TOPIC_KIND_OF_RECORD, type TopicKind } from '../topics.js';
import { feedFieldSchema, JSON_SCHEMA_DIALECT, type JsonSchema } from './field-schemas.js';

/** The record types a feed topic carries, in the contract's order. */
export function recordTypesOf(kind: TopicKind): FeedRecordType[] {
  return RECORD_TYPES.filter((type) => TOPIC_KIND_OF_RECORD[type] === kind);
}

function fieldDoc(type: FeedRecordType, field: RecordField): string {
  if (field.name === 'receivedAt') return RECEIVED_AT_DOC;
  if (field.name === 'quantity') return QUANTITY_DOC;
  const docs: Readonly<Record<string, string>> = RECORD_DOCS[type].fields;
  return docs[field.name] ?? '';
}

/** The value fields of `type` in its topic's schema `version`. */
function fieldsIn(type: FeedRecordType, version: number): readonly RecordField[] {
  return FEED_VALUE_FIELDS[type].filter((f) => f.addedIn <= version);
}

/**
 * One record type's value in schema `version`: `type`, its fields, then receivedAt and what later
 * versions added; nothing else. A field of the first version is required, a later one optional.
 */
function recordTypeSchema(type: FeedRecordType, version: number): JsonSchema {
  const fields = fieldsIn(type, version);
  const properties: Record<string, JsonSchema> = {
    type: { const: type, description: 'Record type: selects the fields that follow.' },
  };
  for (const field of fields) {
    properties[field.name] = { ...feedFieldSchema(field.kind), description: fieldDoc(type, field) };
  }
  return {
    title: type,
    description: RECORD_DOCS[type].summary,
    type: 'object',
    properties,
    required: ['type', ...fields.filter((f) => f.addedIn === 1).map((f) => f.name)],
    additionalProperties: false,
  };
}

/** The closed sets of the gap record's word fields. */
const GAP_WORDS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  subscription: ['trade', 'ohlc'],
  cause: GAP_CAUSES,
});

/** The `gap` record the ingestor writes to the status topic itself (GAP_LAYOUT; no receivedAt). */
function gapSchema(): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    type: { const: 'gap', description: 'Record type: selects the fields that follow.' },
  };
  for (const field of GAP_LAYOUT.fields) {
    const words = GAP_WORDS[field.name];
    properties[field.name] = {
      ...feedFieldSchema(field.kind),
      ...(words ? { enum: [...words] } : {}),
      description: GAP_DOC.fields[field.name],
    };
  }
  return {
    title: 'gap',
    description: GAP_DOC.summary,
    type: 'object',
    properties,
    required: ['type', ...GAP_LAYOUT.fields.map((f) => f.name)],
    additionalProperties: false,
  };
}

/** The names of the fields of `kind` among the topic's record types, in first-seen order. */
function fieldsOfKind(
  types: readonly FeedRecordType[],
  kind: RecordField['kind'],
  version: number,
): string[] {
  const names = types.flatMap((type) => fieldsIn(type, version).filter((f) => f.kind === kind));
  return [...new Set(names.map((f) => f.name))];
}

function topicDescription(kind: TopicKind, types: readonly FeedRecordType[], id: string): string {
  const seconds = fieldsOfKind(types, 'epochSeconds', schemaVersion(id));
  const times = seconds.length > 0 ? `${seconds.join(' and ')} in Unix epoch seconds (the feed's), ` : '';
  const prices =
    fieldsOfKind(types, 'float32', schemaVersion(id)).length > 0
      ? ' Prices are float32 values in their shortest decimal spelling.'
      : '';
  const key = types.includes('error') ? ' ("0" for error records)' : '';
  return [
    `Values of the ${DEFAULT_FEED_TOPICS[kind]} topic (its default name; the name is configurable): one JSON object per record, ASCII, of type ${types.join(', ')}, written by the feed ingestor (live feed and replay of captures)${kind === 'status' ? "; and the ingestor's own gap records (the ledger of gaps: intervals in which a subscription was not live)" : ''}.`,
    `Kafka key: the security id as decimal text${key}, so one instrument's records share a partition and keep their order. Headers: ${SCHEMA_HEADER} = "${id}" (this schema's $id: pick the schema by it), ${SOURCE_HEADER} = ${SOURCE_BYTES} bytes (big-endian run u32, connection u16, chunk u32, row u32) naming the packet a record was decoded from, equal on a duplicate.`,
    `Times are UTC: ${times}receivedAt in Unix epoch microseconds (the ingestor's).${prices} segment is the numeric exchange-segment code (14 = INX_EQ; 0 on error packets).`,
  ].join('\n\n');
}

const schemaVersion = (id: string): number => Number(id.slice(id.lastIndexOf('@') + 1));

/**
 * The schema of `kind`'s records in `version` (default: the one written now), `$id` its fp-schema
 * header value.
 */
export function feedTopicSchema(kind: TopicKind, version = schemaVersion(FEED_SCHEMA_IDS[kind])): JsonSchema {
  const current = FEED_SCHEMA_IDS[kind];
  const id = `${current.slice(0, current.lastIndexOf('@'))}@${version}`;
  const types = recordTypesOf(kind);
  // The status topic also carries the ingestor's own `gap` records (the ledger of gaps).
  const extra: [string, JsonSchema][] = kind === 'status' ? [['gap', gapSchema()]] : [];
  return {
    $schema: JSON_SCHEMA_DIALECT,
    $id: id,
    title: `${DEFAULT_FEED_TOPICS[kind]} record`,
    description: topicDescription(kind, types, id),
    oneOf: [...types, ...extra.map(([name]) => name)].map((type) => ({ $ref: `#/$defs/${type}` })),
    $defs: Object.fromEntries([...types.map((type) => [type, recordTypeSchema(type, version)]), ...extra]),
  };
}
