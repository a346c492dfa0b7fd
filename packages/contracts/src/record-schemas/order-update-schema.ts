/**
 * The JSON Schema of the order-updates topic's values, generated from ORDER_UPDATE_FIELDS
 * (order-update.ts): every field in the order the gateway writes it, with its kind and meaning.
 */
import { ORDER_UPDATE_FIELDS } from '../order-update.js';
import { ORDER_UPDATE_SCHEMA_ID, SCHEMA_HEADER } from '../record-schema-ids.js';
import { DEFAULT_ORDER_UPDATES_TOPIC } from '../topics.js';
import { JSON_SCHEMA_DIALECT, type JsonSchema, orderFieldSchema } from './field-schemas.js';

export function orderUpdateSchema(): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [name, field] of Object.entries(ORDER_UPDATE_FIELDS)) {
    properties[name] = { ...orderFieldSchema(field.kind), description: field.description };
  }
  return {
    $schema: JSON_SCHEMA_DIALECT,
    $id: ORDER_UPDATE_SCHEMA_ID,
    title: `${DEFAULT_ORDER_UPDATES_TOPIC} record`,
    description: [
      `Values of the ${DEFAULT_ORDER_UPDATES_TOPIC} topic (its default name; the name is configurable): one JSON object per order transition, written by the trading gateway's postback receiver (postbacks, and transitions its reconciliation rebuilds from the order book).`,
      `Kafka key: the order id, so one order's updates share a partition and keep their order. Header: ${SCHEMA_HEADER} = "${ORDER_UPDATE_SCHEMA_ID}" (this schema's $id: pick the schema by it). Delivery is at least once: a repeat carries the same eventKey and seq.`,
      "Times are UTC Unix epoch numbers: updateTime in milliseconds (the service's own time, which it sends as India Standard Time text, kept as updateTimeIst), receivedAt in microseconds.",
    ].join('\n\n'),
    type: 'object',
    properties,
    required: Object.keys(ORDER_UPDATE_FIELDS),
    additionalProperties: false,
  };
}
