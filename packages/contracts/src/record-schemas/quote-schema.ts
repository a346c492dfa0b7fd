/** The JSON Schema of the quotes topic's values, generated from QUOTE_FIELDS (quote-record.ts). */
import { DEPTH_LEVELS, QUOTE_FIELDS, type QuoteFieldKind } from '../quote-record.js';
import { QUOTE_SCHEMA_ID, SCHEMA_HEADER } from '../record-schema-ids.js';
import { DEFAULT_QUOTES_TOPIC } from '../topics.js';
import { JSON_SCHEMA_DIALECT, type JsonSchema } from './field-schemas.js';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const COUNT: JsonSchema = { type: 'integer', minimum: 0, maximum: MAX_SAFE };

function fieldSchema(kind: QuoteFieldKind): JsonSchema {
  switch (kind) {
    case 'securityId':
      return { type: 'integer', minimum: 1, maximum: 4_294_967_295 };
    case 'segment':
      return { type: 'string', pattern: '^[A-Z][A-Z_]{1,15}$' };
    case 'epochMillis':
      return { type: 'integer', minimum: 0, maximum: MAX_SAFE };
    case 'epochSecondsOrNull':
      return { type: ['integer', 'null'], minimum: 0, maximum: 4_294_967_295 };
    case 'price':
      return { type: 'number' };
    case 'count':
      return COUNT;
    case 'depth':
      return {
        type: 'array',
        maxItems: DEPTH_LEVELS,
        items: {
          type: 'object',
          properties: {
            price: { type: 'number', description: 'price of the level' },
            quantity: { ...COUNT, description: 'quantity at the level' },
            orders: { ...COUNT, description: 'orders at the level' },
          },
          required: ['price', 'quantity', 'orders'],
          additionalProperties: false,
        },
      };
  }
}

export function quoteSchema(): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [name, field] of Object.entries(QUOTE_FIELDS)) {
    properties[name] = { ...fieldSchema(field.kind), description: field.description };
  }
  return {
    $schema: JSON_SCHEMA_DIALECT,
    $id: QUOTE_SCHEMA_ID,
    title: `${DEFAULT_QUOTES_TOPIC} record`,
    description: [
      `Values of the ${DEFAULT_QUOTES_TOPIC} topic (its default name; the name is configurable): one JSON object per instrument and poll, the full snapshot quote with five depth levels per side, written by the quote poller (history-loader --quotes).`,
      `Kafka key: the security id as a decimal string. Header: ${SCHEMA_HEADER} = "${QUOTE_SCHEMA_ID}" (this schema's $id). Delivery is at least once; a repeat has the same securityId, exchangeSegment and polledAt.`,
    ].join('\n\n'),
    type: 'object',
    properties,
    required: Object.keys(QUOTE_FIELDS),
    additionalProperties: false,
  };
}
