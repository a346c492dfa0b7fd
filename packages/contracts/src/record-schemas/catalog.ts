/**
 * Every record schema of the pipeline's Kafka topics, generated from the record contracts, with
 * what a consumer or a server needs to find one: its id (the `fp-schema` header value), name and
 * version, the topic it describes and the file it ships as (packages/contracts/schemas/). The
 * shipped files are this catalogue written out by `npx record-schemas --out`; a test holds them
 * equal, so a record type added to the contracts reaches the files by regeneration.
 */
import { fileURLToPath } from 'node:url';
import { ContractError } from '../errors.js';
import { FEED_SCHEMA_IDS, ORDER_UPDATE_SCHEMA_ID, QUOTE_SCHEMA_ID } from '../record-schema-ids.js';
import {
  DEFAULT_FEED_TOPICS,
  DEFAULT_ORDER_UPDATES_TOPIC,
  DEFAULT_QUOTES_TOPIC,
  TOPIC_KINDS,
  type TopicKind,
} from '../topics.js';
import { feedTopicSchema } from './feed-topic-schema.js';
import type { JsonSchema } from './field-schemas.js';
import { orderUpdateSchema } from './order-update-schema.js';
import { quoteSchema } from './quote-schema.js';

/** The topic a schema describes: a feed topic kind, the order updates or the quotes. */
export type RecordTopicKind = TopicKind | 'order_updates' | 'quotes';

export interface RecordSchemaEntry {
  /** `<name>@<version>`: the `fp-schema` header value and the schema's `$id`. */
  readonly id: string;
  readonly name: string;
  readonly version: number;
  readonly topicKind: RecordTopicKind;
  /** The topic's default name (names are configurable). */
  readonly defaultTopic: string;
  /** The shipped file's name in packages/contracts/schemas/. */
  readonly fileName: string;
  readonly schema: JsonSchema;
}

/** Where the generated schema files ship. */
export const RECORD_SCHEMAS_DIR = fileURLToPath(new URL('../../schemas/', import.meta.url));

const SCHEMA_ID = /^([a-z][a-z0-9_.-]*)@([1-9][0-9]*)$/;

function entry(
  id: string,
  topicKind: RecordTopicKind,
  defaultTopic: string,
  schema: JsonSchema,
): RecordSchemaEntry {
  const match = SCHEMA_ID.exec(id);
  if (!match) {
    throw new ContractError('SCHEMA_ID_INVALID', `schema id ${JSON.stringify(id)} is not <name>@<version>`);
  }
  const [, name = '', version = ''] = match;
  return Object.freeze({
    id,
    name,
    version: Number(version),
    topicKind,
    defaultTopic,
    fileName: `${name}.v${version}.schema.json`,
    schema,
  });
}

/** Every version of a feed topic kind's schema, the oldest first: each stays published. */
function feedTopicEntries(kind: TopicKind): RecordSchemaEntry[] {
  const current = entry(FEED_SCHEMA_IDS[kind], kind, DEFAULT_FEED_TOPICS[kind], feedTopicSchema(kind));
  const earlier = Array.from({ length: current.version - 1 }, (_, i) => {
    const id = `${current.name}@${i + 1}`;
    return entry(id, kind, DEFAULT_FEED_TOPICS[kind], feedTopicSchema(kind, i + 1));
  });
  return [...earlier, current];
}

/**
 * Generates the catalogue: the four feed topics in TOPIC_KINDS order (each version of one, the
 * oldest first), the order updates, the quotes.
 */
export function generateRecordSchemas(): readonly RecordSchemaEntry[] {
  return Object.freeze([
    ...TOPIC_KINDS.flatMap(feedTopicEntries),
    entry(ORDER_UPDATE_SCHEMA_ID, 'order_updates', DEFAULT_ORDER_UPDATES_TOPIC, orderUpdateSchema()),
    entry(QUOTE_SCHEMA_ID, 'quotes', DEFAULT_QUOTES_TOPIC, quoteSchema()),
  ]);
}

/** A schema as its shipped file's text: two-space JSON and a final newline. */
export function schemaFileText(schema: JsonSchema): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
