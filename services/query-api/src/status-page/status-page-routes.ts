/**
 * The operator's status page: plain HTML, CSS and one script (no build step), served open because
 * they hold no data; everything they show is fetched with the viewer's API key (read scope):
 * /v1/pipeline for the live figures, /v1/instruments and /v1/instruments/:id/bars for the chart.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {} from '@fastify/swagger';
import { asIsSerializer, routeDoc } from '@feedpipe/service-http';
import type { FastifyInstance } from 'fastify';
import type { PipelineStatusSource } from './pipeline-status.js';

const ASSETS = join(dirname(fileURLToPath(import.meta.url)), 'assets');

const STATIC_FILES: ReadonlyArray<{ path: string; file: string; type: string }> = [
  { path: '/status', file: 'status.html', type: 'text/html; charset=utf-8' },
  { path: '/status/app.js', file: 'app.js', type: 'text/javascript; charset=utf-8' },
  { path: '/status/style.css', file: 'style.css', type: 'text/css; charset=utf-8' },
];

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
      },
    },
  },
} as const;

export function registerStatusPage(app: FastifyInstance, pipeline: PipelineStatusSource | undefined): void {
  for (const asset of STATIC_FILES) {
    // Read once at start: the page is small and never changes while the process runs.
    const body = readFileSync(join(ASSETS, asset.file));
    app.get(asset.path, { config: { scope: 'open' }, schema: { hide: true } }, async (_request, reply) =>
      reply.type(asset.type).header('cache-control', 'no-cache').send(body),
    );
  }
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
      if (!pipeline) {
        return reply.status(503).send({
          error: {
            code: 'NO_PIPELINE',
            message: 'this API instance does not run the pipeline; see /v1/status for stored data',
          },
        });
      }
      return pipeline();
    },
  );
}
