/**
 * What the API knows about its own state, as JSON: liveness and readiness (open) and table
 * statistics (read). /healthz and /readyz never wait on the store: liveness is the process
 * answering at all, and readiness reads the outcome of a background probe (query/store-probe.ts),
 * so a slow query, a long queue or a stuck engine cannot make a health check hang.
 */
import { FEED_TABLES } from '@feedpipe/contracts';
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.js';
import { READ_SECURITY } from '../http/schemas.js';
import type { StoreProbe } from '../query/store-probe.js';

export interface StatusExtras {
  streamStats(): Record<string, number | boolean>;
  /** Store health for /readyz; started when the server is ready, stopped when it closes. */
  storeProbe: StoreProbe;
}

export function registerStatusRoutes(app: FastifyInstance, ctx: ApiContext, extras: StatusExtras): void {
  app.get(
    '/healthz',
    {
      config: { scope: 'open' },
      schema: { tags: ['status'], summary: 'Liveness: the process answers (never waits on the store)' },
    },
    async () => ({ status: 'ok', uptimeSec: Math.round(process.uptime()) }),
  );

  app.addHook('onReady', async () => extras.storeProbe.start());
  app.addHook('onClose', async () => extras.storeProbe.stop());
  app.get(
    '/readyz',
    {
      config: { scope: 'open' },
      schema: {
        tags: ['status'],
        summary: 'Readiness: the store answered its last background probe (never waits on the store)',
      },
    },
    async (_request, reply) => {
      const store = extras.storeProbe.health();
      const body = {
        status: store.ok ? 'ready' : 'unavailable',
        store: {
          ok: store.ok,
          checkedAt: store.checkedAt,
          ...(store.reason ? { reason: store.reason } : {}),
        },
      };
      return store.ok ? body : reply.status(503).send(body);
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
        `SELECT if(count() > 0, max(received_at), NULL) AS last_tick_received_at FROM ${FEED_TABLES.ticks.name}`,
      );
      return {
        tables: Object.fromEntries(
          tables.map((t) => [t.table, { rows: Number(t.rows), bytes: Number(t.bytes) }]),
        ),
        ticks: fresh[0] ?? null,
        cache: { entries: ctx.cache.size },
        stream: extras.streamStats(),
      };
    },
  );
}
