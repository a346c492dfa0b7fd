/**
 * Walks every route of both HTTP services (query API, trading gateway with its postback routes)
 * through the OpenAPI document each serves at /docs/json, and fails on a route that lacks what
 * a generated client needs: an operationId (unique) and a summary, a success answer with a schema,
 * the ErrorBody on every error answer the route can give (400 with any input, 404 with path
 * parameters, 401/403/429 unless open, 5XX always), a description on every parameter; tabular
 * routes of the query API also need every output media type and 406. Routes left out of the
 * document must be on a short list. A new route without routeDoc() fails here.
 * Embedded chDB; no Kafka (the postback receiver connects only when it first sends).
 */
import { createQueryApi, type QueryApi } from '@feedpipe/query-api';
import { hiddenRoutes } from '@feedpipe/service-http';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { createTradingGateway, type TradingGateway } from '@feedpipe/trading-gateway';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_A, seedFixture } from '../services/query-api/test/helpers.js';

interface Operation {
  operationId?: string;
  summary?: string;
  security?: unknown[];
  parameters?: Array<{ name: string; in: string; description?: string }>;
  requestBody?: unknown;
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown> };
}

const TABULAR_TYPES = [
  'application/json',
  'text/csv',
  'application/x-ndjson',
  'application/vnd.apache.arrow.file',
  'application/vnd.apache.arrow.stream',
  'application/vnd.apache.parquet',
];

/**
 * What the documents may leave out: the docs themselves and metrics; the status page's own files
 * (page, modules, styles, icons, the chart library) and the features it asks for after sign-in;
 * ClickHouse's HTTP protocol under /clickhouse, whose clients are ClickHouse's own and whose errors
 * are ClickHouse's text (docs/sql-clients.md).
 */
const HIDDEN_ALLOWED =
  /^(GET \/(docs.*|metrics|favicon\.ico|status|status\/[a-z0-9_./-]+)|(GET|POST) \/clickhouse(\/|\/ping)?)$/;

let store: Store;
let api: QueryApi;
let gateway: TradingGateway;

beforeAll(async () => {
  store = createStore({ dataDir: tempDir('openapi-documents') });
  await runMigrations(store.internal);
  api = await createQueryApi({ port: 0, logLevel: false }, { store });
  gateway = await createTradingGateway(
    {
      port: 0,
      logLevel: false,
      postbacks: { walDir: tempDir('openapi-documents-wal'), secret: 'openapi-walk-secret-0123' },
    },
    { store, kafkaBrokers: ['127.0.0.1:9'] },
  );
}, 120_000);
afterAll(async () => {
  await api?.stop();
  await gateway?.stop();
  await store?.close();
});

async function documentOf(app: FastifyInstance): Promise<Document> {
  const res = await app.inject({ method: 'GET', url: '/docs/json' });
  expect(res.statusCode).toBe(200);
  return res.json() as Document;
}

/** Every problem of one operation, as text; none means the route is documented. */
function problemsOf(method: string, path: string, op: Operation): string[] {
  const at = `${method.toUpperCase()} ${path}`;
  const problems: string[] = [];
  if (!op.operationId) problems.push(`${at}: no operationId`);
  if (!op.summary) problems.push(`${at}: no summary`);
  const responses = op.responses ?? {};
  const success = Object.entries(responses).filter(([s]) => /^2\d\d$/.test(s));
  if (success.length === 0) problems.push(`${at}: no success answer`);
  for (const [status, response] of success) {
    const schemas = Object.values(response.content ?? {}).map((c) => c.schema);
    if (schemas.length === 0 || schemas.some((s) => s === undefined))
      problems.push(`${at}: ${status} has no schema`);
  }
  const params = op.parameters ?? [];
  for (const p of params)
    if (!p.description) problems.push(`${at}: parameter ${p.in}.${p.name} has no description`);
  const needed = ['5XX'];
  if (params.length > 0 || op.requestBody) needed.push('400');
  if (params.some((p) => p.in === 'path')) needed.push('404');
  if (op.security && op.security.length > 0) needed.push('401', '403', '429');
  if (params.some((p) => p.in === 'query' && p.name === 'format')) needed.push('406');
  for (const status of needed) {
    const ref = (responses[status]?.content?.['application/json']?.schema as { $ref?: string } | undefined)
      ?.$ref;
    if (ref !== '#/components/schemas/ErrorBody')
      problems.push(`${at}: ${status} is not documented as ErrorBody`);
  }
  for (const [status, response] of Object.entries(responses)) {
    if (/^[45]/.test(status) && !response.content?.['application/json'] && status !== '503')
      problems.push(`${at}: ${status} has no JSON body`);
  }
  return problems;
}

function operations(doc: Document): Array<[string, string, Operation]> {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => [method, path, op] as [string, string, Operation]),
  );
}

describe.each([
  ['query API', () => api.app],
  ['trading gateway', () => gateway.app],
])('the OpenAPI document of the %s', (_name, appOf) => {
  it('is OpenAPI 3.1 with the shared ErrorBody component', async () => {
    const doc = await documentOf(appOf());
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components?.schemas).toHaveProperty('ErrorBody');
  });

  it('documents every route: operationId, summary, answers, errors, parameter descriptions', async () => {
    const doc = await documentOf(appOf());
    const ops = operations(doc);
    expect(ops.length).toBeGreaterThan(20);
    expect(ops.flatMap(([m, p, op]) => problemsOf(m, p, op))).toEqual([]);
    const ids = ops.map(([, , op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('leaves out only the docs, metrics and the status page files', async () => {
    await appOf().ready();
    const hidden = hiddenRoutes(appOf());
    expect(hidden.filter((r) => !HIDDEN_ALLOWED.test(r))).toEqual([]);
  });
});

/** A binary download of a tabular route (issue #33): its 200 is bytes only, application/octet-stream among its types. */
/** A download: an operation answering bytes only (the bars operation also answers JSON and text). */
function isDownload(op: Operation): boolean {
  const content = op.responses?.['200']?.content ?? {};
  return 'application/octet-stream' in content && !('application/json' in content);
}

describe('binary downloads of the query API', () => {
  it('declare bytes as OpenAPI 3.1 wants: type string, contentMediaType, format binary', async () => {
    const doc = await documentOf(api.app);
    const downloads = operations(doc).filter(([, , op]) => isDownload(op));
    expect(downloads.map(([m, p]) => `${m} ${p}`).sort()).toEqual([
      'get /v1/instruments/{securityId}/bars.arrow',
      'get /v1/instruments/{securityId}/bars.parquet',
      'post /v1/sql.arrow',
      'post /v1/sql.parquet',
    ]);
    for (const [method, path, op] of downloads) {
      const content = op.responses?.['200']?.content ?? {};
      const media = path.endsWith('.parquet')
        ? 'application/vnd.apache.parquet'
        : 'application/vnd.apache.arrow.file';
      expect(Object.keys(content).sort(), `${method} ${path}`).toEqual(
        [media, 'application/octet-stream'].sort(),
      );
      for (const entry of Object.values(content)) {
        expect(entry.schema, `${method} ${path}`).toEqual({
          type: 'string',
          format: 'binary',
          contentMediaType: media,
        });
      }
      expect(op.parameters?.some((p) => p.name === 'format') ?? false, `${method} ${path}`).toBe(false);
    }
  });

  it('declare the bars operation bytes first: its binary types, application/octet-stream, then JSON and text', async () => {
    const doc = await documentOf(api.app);
    const bars = doc.paths['/v1/instruments/{securityId}/bars']?.get;
    expect(bars?.operationId).toBe('getBars');
    const content = bars?.responses?.['200']?.content ?? {};
    const types = Object.keys(content);
    // A generator types the operation by the first media type it knows: here bytes, whatever the format.
    const octets = types.indexOf('application/octet-stream');
    expect(octets).toBeGreaterThan(0);
    for (const type of types.slice(0, octets)) {
      expect((content[type]?.schema as { format?: string } | undefined)?.format, type).toBe('binary');
    }
    expect(types.slice(octets + 1)).toEqual(['application/json', 'text/csv', 'application/x-ndjson']);
  });

  it('answer the bytes of the route with format= set', async () => {
    await seedFixture(store);
    const read = { 'x-api-key': (await api.keys.create('downloads', ['read'])).key };
    const path = `/v1/instruments/${LIVE_A}/bars`;
    const query = 'from=2024-03-04T09:00:00Z&to=2024-03-04T09:10:00Z&interval=1m';
    const download = await api.app.inject({ method: 'GET', url: `${path}.parquet?${query}`, headers: read });
    const viaFormat = await api.app.inject({
      method: 'GET',
      url: `${path}?${query}&format=parquet`,
      headers: read,
    });
    expect(download.statusCode).toBe(viaFormat.statusCode);
    expect(download.headers['content-type']).toBe('application/vnd.apache.parquet');
    expect(download.rawPayload.equals(viaFormat.rawPayload)).toBe(true);
  });
});

describe('tabular routes of the query API', () => {
  it('list every output media type, the JSON one with its row schema', async () => {
    const doc = await documentOf(api.app);
    // A route is tabular when it takes format= or answers any of the tabular media types; a binary
    // download (`<route>.parquet`, answered as application/octet-stream too) is checked below.
    const tabular = operations(doc).filter(
      ([, , op]) =>
        !isDownload(op) &&
        (op.parameters?.some((p) => p.name === 'format') ||
          Object.keys(op.responses?.['200']?.content ?? {}).some(
            (t) => t !== 'application/json' && TABULAR_TYPES.includes(t),
          )),
    );
    expect(tabular.map(([m, p]) => `${m} ${p}`)).toContain('post /v1/sql');
    expect(tabular.length).toBeGreaterThanOrEqual(14);
    for (const [method, path, op] of tabular) {
      expect(op.responses?.['406'], `${method} ${path}`).toBeDefined();
      const content = op.responses?.['200']?.content ?? {};
      // The bars are declared bytes first, with application/octet-stream for their binary formats.
      const extra = op.operationId === 'getBars' ? ['application/octet-stream'] : [];
      expect(Object.keys(content).sort(), `${method} ${path}`).toEqual([...TABULAR_TYPES, ...extra].sort());
      const json = content['application/json']?.schema as {
        properties?: { data?: { items?: { title?: string } } };
      };
      expect(json.properties?.data?.items?.title, `${method} ${path}`).toMatch(/Row$/);
    }
  });
});
