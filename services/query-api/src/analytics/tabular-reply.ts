/** Answers a tabular route from the result cache (bars, candles, chains) or as a direct stream. */
import type { FastifyReply } from 'fastify';
import type { ApiContext } from '../context.js';
import type { OutputFormat } from '../query/formats.js';
import { sendTabular, type TabularQuery } from '../query/query-runner.js';
import type { CachedResponse } from '../query/result-cache.js';

/** TTL for a response about data up to `rangeEndMs`: long once late ticks can no longer change it. */
export function ttlFor(ctx: ApiContext, rangeEndMs: number): number {
  const final = rangeEndMs <= ctx.now() - ctx.config.cache.finalAfterMs;
  return final ? ctx.config.cache.finalTtlMs : ctx.config.cache.liveTtlMs;
}

/** `load` answers a miss: by default the query's own statement (the bars route folds requests instead). */
export async function cachedTabular(
  ctx: ApiContext,
  reply: FastifyReply,
  cacheKey: string,
  ttlMs: number,
  query: TabularQuery,
  baseName: string,
  load: () => Promise<CachedResponse> = () => ctx.runner.buffer(query),
): Promise<FastifyReply> {
  const { response, result } = await ctx.cache.get(`${query.format}|${cacheKey}`, ttlMs, load);
  ctx.metrics.cacheHits.inc({ result });
  reply.header('x-cache', result);
  return sendTabular(reply, query.format, response.body, baseName);
}

export async function streamedTabular(
  ctx: ApiContext,
  reply: FastifyReply,
  query: TabularQuery,
  baseName: string,
): Promise<FastifyReply> {
  const stream = await ctx.runner.stream(query);
  return sendTabular(reply, query.format as OutputFormat, stream, baseName);
}
