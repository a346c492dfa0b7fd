/**
 * The ledger of gaps (market.feed_gaps, migration 008): every interval in which an instrument's
 * live-feed subscription was not live, with its cause, bounds and connection, as the ingestor
 * recorded it. A gap is listed when it overlaps [from, to). Tabular like the other analytics
 * routes (JSON, CSV, Parquet, ...), so a notebook joins it to the bars (docs/notebook.md).
 */
import { FEED_TABLES } from '@feedpipe/contracts';
import { routeDoc } from '@feedpipe/service-http';
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.js';
import { FORMAT_PROPERTY, SECURITY_ID_SCHEMA } from '../http/schemas.js';
import { tabularResponse } from '../http/tabular-doc.js';
import type { OutputFormat } from '../query/formats.js';
import { outputFormatOf } from '../query/negotiation.js';
import { parseRange, TIME_SCHEMA } from '../query/time.js';
import { cachedTabular, ttlFor } from './tabular-reply.js';

interface GapQuery {
  from: string;
  to?: string;
  securityId?: number;
  format: OutputFormat;
}

const GAPS_SQL = `
SELECT security_id, segment, subscription, cause, started_at, ended_at,
       dateDiff('millisecond', started_at, ended_at) AS duration_ms, connection
FROM ${FEED_TABLES.feedGaps.name}
WHERE started_at < fromUnixTimestamp64Milli({toMs:Int64}, 'UTC')
  AND ended_at >= fromUnixTimestamp64Milli({fromMs:Int64}, 'UTC')
  AND ({sid:UInt32} = 0 OR security_id = {sid:UInt32})
ORDER BY started_at, security_id, subscription`;

/** The answer's columns, as ClickHouse types them (GAPS_SQL over migration 008). */
const GAP_COLUMNS = {
  security_id: 'UInt32',
  segment: 'UInt8',
  subscription: 'LowCardinality(String)',
  cause: 'LowCardinality(String)',
  started_at: "DateTime64(6, 'UTC')",
  ended_at: "DateTime64(6, 'UTC')",
  duration_ms: 'Int64',
  connection: 'UInt8',
} as const;

export function registerDataQualityRoutes(app: FastifyInstance, ctx: ApiContext): void {
  app.get<{ Querystring: GapQuery }>(
    '/v1/data-quality/gaps',
    {
      schema: routeDoc({
        operationId: 'getGaps',
        tags: ['data quality'],
        summary:
          'Intervals in which an instrument was not subscribed live (cause, start, end, connection), overlapping [from, to)',
        querystring: {
          type: 'object',
          additionalProperties: false,
          required: ['from'],
          properties: {
            from: TIME_SCHEMA,
            to: { ...TIME_SCHEMA, description: `${TIME_SCHEMA.description}; default now` },
            securityId: { ...SECURITY_ID_SCHEMA, description: 'only this instrument; default all' },
            ...FORMAT_PROPERTY,
          },
        },
        responses: { 200: tabularResponse('Gap', GAP_COLUMNS) },
        errors: [406],
      }),
    },
    async (request, reply) => {
      const q = request.query;
      const format = outputFormatOf(request);
      const range = parseRange(q.from, q.to, ctx.now());
      const sid = q.securityId ?? 0;
      return cachedTabular(
        ctx,
        reply,
        `gaps|${sid}|${range.fromMs}|${range.toMs}`,
        ttlFor(ctx, range.toMs),
        { sql: GAPS_SQL, params: { fromMs: range.fromMs, toMs: range.toMs, sid }, format },
        sid === 0 ? 'gaps' : `gaps-${sid}`,
      );
    },
  );
}
