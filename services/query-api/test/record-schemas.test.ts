/**
 * The Kafka record schemas on the API: listed with their ids (the fp-schema header values), each
 * served as application/schema+json with exactly the text the repository ships, without a key;
 * an unknown id is a 404 in the error envelope; the OpenAPI document names both operations.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  FEED_SCHEMA_IDS,
  ORDER_UPDATE_SCHEMA_ID,
  QUOTE_SCHEMA_ID,
  RECORD_SCHEMAS_DIR,
} from '@feedpipe/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './helpers.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({}, {}, false);
});
afterAll(async () => {
  await h?.close();
});

interface ListEntry {
  id: string;
  name: string;
  version: number;
  topicKind: string;
  defaultTopic: string;
  url: string;
}

const get = (url: string) => h.api.app.inject({ method: 'GET', url });

describe('record schemas on the API', () => {
  it('lists every topic schema by its header id, without a key', async () => {
    const res = await get('/v1/schemas');
    expect(res.statusCode).toBe(200);
    const { schemas } = res.json() as { schemas: ListEntry[] };
    // feed.trades@1 stays listed beside the @2 the ingestor writes now (its records stay in the topic).
    expect(schemas.map((s) => s.id)).toEqual([
      'feed.trades@1',
      ...Object.values(FEED_SCHEMA_IDS),
      ORDER_UPDATE_SCHEMA_ID,
      QUOTE_SCHEMA_ID,
    ]);
    expect(schemas.find((s) => s.id === 'feed.status@1')).toEqual({
      id: 'feed.status@1',
      name: 'feed.status',
      version: 1,
      topicKind: 'status',
      defaultTopic: 'feed.status',
      url: '/v1/schemas/feed.status@1',
    });
    expect(schemas.find((s) => s.id === ORDER_UPDATE_SCHEMA_ID)?.topicKind).toBe('order_updates');
  });

  it('serves each schema as application/schema+json, the shipped file byte for byte', async () => {
    const { schemas } = (await get('/v1/schemas')).json() as { schemas: ListEntry[] };
    for (const entry of schemas) {
      const res = await get(entry.url);
      expect(res.statusCode, entry.url).toBe(200);
      expect(res.headers['content-type']).toBe('application/schema+json; charset=utf-8');
      const file = `${entry.name}.v${entry.version}.schema.json`;
      expect(res.body).toBe(readFileSync(join(RECORD_SCHEMAS_DIR, file), 'utf8'));
      expect((res.json() as { $id: string }).$id).toBe(entry.id);
    }
    // A client that percent-encodes the @ gets the same schema.
    expect((await get('/v1/schemas/feed.trades%401')).json()).toMatchObject({ $id: 'feed.trades@1' });
  });

  it('answers an unknown id with 404 in the error envelope, naming the known ids', async () => {
    const res = await get('/v1/schemas/feed.trades@9');
    expect(res.statusCode).toBe(404);
    const body = res.json() as { error: { code: string; message: string } };
    expect(body.error.code).toBe('NOT_FOUND');
    expect(body.error.message).toContain('feed.trades@9');
    expect(body.error.message).toContain('orders.updates@1');
  });

  it('documents both operations in the OpenAPI document', async () => {
    const doc = (await get('/docs/json')).json() as {
      paths: Record<string, { get?: { operationId?: string; responses?: Record<string, unknown> } }>;
    };
    expect(doc.paths['/v1/schemas']?.get?.operationId).toBe('listRecordSchemas');
    const one = doc.paths['/v1/schemas/{id}']?.get;
    expect(one?.operationId).toBe('getRecordSchema');
    // Open (no key): no 401/403/429; its path parameter implies 400 and 404.
    expect(Object.keys(one?.responses ?? {}).sort()).toEqual(['200', '400', '404', '5XX']);
    expect(JSON.stringify(one?.responses?.['200'])).toContain('application/schema+json');
  });
});
