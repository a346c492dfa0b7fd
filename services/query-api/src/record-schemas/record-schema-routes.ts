/**
 * The Kafka data contract over HTTP: the JSON Schema of every topic's records, as
 * @feedpipe/contracts generates them (the same text as the files it ships), so a consumer that
 * reads a record's `fp-schema` header (e.g. `feed.trades@1`) can fetch its schema by that id.
 * Open, like /docs: the schemas describe records and hold no data.
 */
import { generateRecordSchemas, SCHEMA_HEADER, schemaFileText } from '@feedpipe/contracts';
import { routeDoc } from '@feedpipe/service-http';
import type { FastifyInstance } from 'fastify';
import { notFound } from '../errors.js';

/** Schemas change only with a new version (a new id), so a client may keep one for a day. */
const CACHE_CONTROL = 'public, max-age=86400';
const SCHEMA_MEDIA_TYPE = 'application/schema+json';

const LIST_ITEM = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'version', 'topicKind', 'defaultTopic', 'url'],
  properties: {
    id: { type: 'string', description: `The schema id: the ${SCHEMA_HEADER} header value of its records` },
    name: { type: 'string', description: 'The schema name (the id before @)' },
    version: { type: 'integer', minimum: 1, description: 'The schema version (the id after @)' },
    topicKind: {
      type: 'string',
      enum: ['trades', 'ohlc', 'reference', 'status', 'order_updates'],
      description: 'Which topic the records are on',
    },
    defaultTopic: { type: 'string', description: "The topic's default name (names are configurable)" },
    url: { type: 'string', description: 'Path of the schema on this API' },
  },
} as const;

export function registerRecordSchemaRoutes(app: FastifyInstance): void {
  const catalog = generateRecordSchemas();
  const texts = new Map(catalog.map((e) => [e.id, schemaFileText(e.schema)]));
  const list = catalog.map((e) => ({
    id: e.id,
    name: e.name,
    version: e.version,
    topicKind: e.topicKind,
    defaultTopic: e.defaultTopic,
    url: `/v1/schemas/${e.id}`,
  }));
  const tags = ['schemas'];

  app.get(
    '/v1/schemas',
    {
      config: { scope: 'open' },
      schema: routeDoc({
        tags,
        auth: 'open',
        operationId: 'listRecordSchemas',
        summary: "The JSON Schemas (2020-12) of the Kafka topics' records",
        description: `One entry per schema; a record names its schema in the ${SCHEMA_HEADER} header, whose value is the entry's id.`,
        responses: {
          200: {
            title: 'RecordSchemaList',
            description: 'Every record schema',
            type: 'object',
            additionalProperties: false,
            required: ['schemas'],
            properties: { schemas: { type: 'array', items: LIST_ITEM } },
          },
        },
      }),
    },
    async (_request, reply) => {
      reply.header('cache-control', CACHE_CONTROL);
      return { schemas: list };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/schemas/:id',
    {
      config: { scope: 'open' },
      schema: routeDoc({
        tags,
        auth: 'open',
        operationId: 'getRecordSchema',
        summary: 'One record schema by id, as application/schema+json',
        params: {
          type: 'object',
          required: ['id'],
          properties: {
            id: {
              type: 'string',
              maxLength: 100,
              description: `Schema id, the ${SCHEMA_HEADER} header value of a record (e.g. feed.trades@1)`,
            },
          },
        },
        responses: {
          200: {
            description: 'The JSON Schema (draft 2020-12) of the records',
            content: { [SCHEMA_MEDIA_TYPE]: { schema: { type: 'object', additionalProperties: true } } },
          },
        },
      }),
    },
    async (request, reply) => {
      const text = texts.get(request.params.id);
      if (text === undefined) {
        throw notFound(
          `no record schema ${JSON.stringify(request.params.id)}; known: ${[...texts.keys()].join(', ')}`,
        );
      }
      // Sent as the shipped file's text, so a client gets exactly what the repository holds.
      return reply.header('cache-control', CACHE_CONTROL).type(SCHEMA_MEDIA_TYPE).send(text);
    },
  );
}
