/** What the API knows about its own state, as JSON: health (open) and table statistics (read). */
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.js';
import { READ_SECURITY } from '../http/schemas.js';

export interface StatusExtras {
  streamStats(): Record<string, number | boolean>;
}

export function registerStatusRoutes(app: FastifyInstance, ctx: ApiContext, extras: StatusExtras): void {
  app.get(
    '/healthz',
    {
      config: { scope: 'open' },
      schema: { tags: ['status'], summary: 'Liveness: the API answers and ClickHouse answers' },
    },
    async (_request, reply) => {
      try {
        await ctx.runner.rows('SELECT 1 AS ok');
        return { status: 'ok' };
      } catch {
        return reply.status(503).send({ status: 'unavailable', reason: 'ClickHouse does not answer' });
      }
    },
  );

  app.get(
    '/v1/status',
    {
      schema: {
        tags: ['status'],
        summary: 'Row counts and freshness of the stored data, cache and live-stream figures',
        security: READ_SECURITY,
      },
    },
    async () => {
      const tables = await ctx.runner.rows<{ table: string; rows: number; bytes: number }>(
        `SELECT table, sum(rows) AS rows, sum(bytes_on_disk) AS bytes FROM system.parts
         WHERE database = 'market' AND active GROUP BY table ORDER BY table`,
      );
      const fresh = await ctx.runner.rows<{ last_tick_received_at: string | null }>(
        `SELECT if(count() > 0, toString(max(received_at)), NULL) AS last_tick_received_at FROM market.ticks`,
      );
      return {
        tables: Object.fromEntries(
          tables.map((t) => [t.table, { rows: Number(t.rows), bytes: Number(t.bytes) }]),
        ),
        ticks: fresh[0] ?? null,
        cache: { entries: ctx.cache.size },
        stream: extras.streamStats(),
        trading: { enabled: ctx.broker !== undefined },
      };
    },
  );
}
