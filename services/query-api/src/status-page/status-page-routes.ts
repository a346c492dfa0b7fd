/**
 * The operator's status page: plain HTML, CSS and browser ES modules (no build step), served open
 * because they hold no data; everything they show is fetched with the viewer's API key (read
 * scope): /v1/pipeline for the live figures, /v1/instruments/search, the bars and the live stream
 * for the chart. The chart library is lightweight-charts' standalone ES module, served straight
 * from its npm package (the version is pinned in package.json).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {} from '@fastify/swagger';
import { asIsSerializer, routeDoc } from '@feedpipe/service-http';
import type { FastifyInstance } from 'fastify';
import type { PipelineStatusSource } from './pipeline-status.js';

const ASSETS = join(dirname(fileURLToPath(import.meta.url)), 'assets');
const CHART_LIBRARY = join(
  dirname(createRequire(import.meta.url).resolve('lightweight-charts/package.json')),
  'dist',
  'lightweight-charts.standalone.production.mjs',
);

const JS = 'text/javascript; charset=utf-8';
/** The gap ledger's route, when this API has it: the chart shades its periods. */
const GAP_LEDGER_ROUTE = '/v1/data-quality/gaps';
const PAGE_MODULES = [
  'app.js',
  'api-client.js',
  'bar-follower.js',
  'chart-data.js',
  'gap-bands.js',
  'instrument-search.js',
  'live-stream.js',
  'pipeline-figures.js',
  'price-chart.js',
  'chart-panel.js',
];

const STATIC_FILES: ReadonlyArray<{ path: string; file: string; type: string }> = [
  { path: '/status', file: join(ASSETS, 'status.html'), type: 'text/html; charset=utf-8' },
  { path: '/status/style.css', file: join(ASSETS, 'style.css'), type: 'text/css; charset=utf-8' },
  { path: '/status/favicon.svg', file: join(ASSETS, 'favicon.svg'), type: 'image/svg+xml' },
  // Browsers ask for /favicon.ico on their own, before and whatever the page says.
  { path: '/favicon.ico', file: join(ASSETS, 'favicon.ico'), type: 'image/x-icon' },
  { path: '/status/vendor/lightweight-charts.mjs', file: CHART_LIBRARY, type: JS },
  ...PAGE_MODULES.map((file) => ({ path: `/status/${file}`, file: join(ASSETS, file), type: JS })),
];

/**
 * Everything the page loads comes from this origin; inline styles stay allowed because the chart
 * library sizes its canvases through style attributes.
 */
const PAGE_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const COUNT = { type: 'number' } as const;

/** PipelineStatus (pipeline-status.ts) as a schema: what the status page draws. */
const PIPELINE_STATUS = {
  title: 'PipelineStatus',
  type: 'object',
  required: ['at'],
  properties: {
    at: { type: 'integer', description: 'epoch milliseconds of the snapshot' },
    feed: {
      type: 'object',
      description: 'the live feed: packets, errors, connections',
      additionalProperties: true,
      properties: {
        ticksPerSecond: COUNT,
        packets: COUNT,
        malformed: COUNT,
        unknown: COUNT,
        bufferedBytes: COUNT,
        fatal: { type: 'string' },
        connections: { type: 'array', items: { type: 'object', additionalProperties: true } },
        recentFeedErrors: { type: 'array', items: { type: 'object', additionalProperties: true } },
      },
    },
    kafka: { type: 'object', properties: { produced: COUNT, lag: COUNT } },
    store: { type: 'object', properties: { ticks: COUNT, ohlc: COUNT, reference: COUNT } },
    loader: {
      type: 'object',
      additionalProperties: true,
      properties: {
        done: COUNT,
        total: COUNT,
        failed: COUNT,
        rate: COUNT,
        budgetLeft: COUNT,
        etaSeconds: COUNT,
        nextRunAt: COUNT,
      },
    },
  },
} as const;

export interface StatusPageSources {
  /** Live figures of the pipeline this process runs; without it /v1/pipeline answers 503. */
  pipeline: PipelineStatusSource | undefined;
  /** Whether /v1/stream can serve (Kafka configured): the page polls instead when it cannot. */
  liveStream: () => boolean;
}

export function registerStatusPage(app: FastifyInstance, sources: StatusPageSources): void {
  for (const asset of STATIC_FILES) {
    // Read once at start: the page is small and never changes while the process runs.
    const body = readFileSync(asset.file);
    app.get(asset.path, { config: { scope: 'open' }, schema: { hide: true } }, async (_request, reply) =>
      reply
        .type(asset.type)
        .header('cache-control', 'no-cache')
        .header('content-security-policy', PAGE_POLICY)
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        .send(body),
    );
  }
  // What this API instance offers the page, asked once after sign-in (read scope, like the data), so
  // the page never probes a route it lacks: each such probe would be a 404 or 503 in the console.
  app.get('/status/features', { schema: { hide: true } }, async () => ({
    liveStream: sources.liveStream(),
    pipeline: sources.pipeline !== undefined,
    gapLedger: app.hasRoute({ method: 'GET', url: GAP_LEDGER_ROUTE }),
  }));
  app.get(
    '/v1/pipeline',
    {
      serializerCompiler: asIsSerializer,
      schema: routeDoc({
        operationId: 'getPipelineStatus',
        tags: ['status'],
        summary:
          'Live pipeline figures: feed connections, ticks per second, Kafka lag, rows stored, loader progress',
        description: '503 with code NO_PIPELINE when this process does not run the pipeline.',
        responses: { 200: PIPELINE_STATUS },
        errors: [503],
      }),
    },
    async (_request, reply) => {
      if (!sources.pipeline) {
        return reply.status(503).send({
          error: {
            code: 'NO_PIPELINE',
            message: 'this API instance does not run the pipeline; see /v1/status for stored data',
          },
        });
      }
      return sources.pipeline();
    },
  );
}
