/**
 * The operator's status page: plain HTML, CSS and one script (no build step), served open because
 * they hold no data; everything they show is fetched with the viewer's API key (read scope):
 * /v1/pipeline for the live figures, /v1/instruments and /v1/instruments/:id/bars for the chart.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {} from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { PipelineStatusSource } from './pipeline-status.js';

const ASSETS = join(dirname(fileURLToPath(import.meta.url)), 'assets');

const STATIC_FILES: ReadonlyArray<{ path: string; file: string; type: string }> = [
  { path: '/status', file: 'status.html', type: 'text/html; charset=utf-8' },
  { path: '/status/app.js', file: 'app.js', type: 'text/javascript; charset=utf-8' },
  { path: '/status/style.css', file: 'style.css', type: 'text/css; charset=utf-8' },
];

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
      schema: {
        tags: ['status'],
        summary:
          'Live pipeline figures: feed connections, ticks per second, Kafka lag, rows stored, loader progress',
      },
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
