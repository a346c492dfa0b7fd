/**
 * The query API as `bench:api` runs it, in its own process or in worker processes
 * (api-worker-process.ts): one configuration, and the wait for its hot tier.
 */
import type { FeedTopics } from '@feedpipe/contracts';
import type { QueryApi, QueryApiConfig } from '@feedpipe/query-api';

export interface BenchApiOptions {
  cache: 'on' | 'off';
  /** The hot tier's feed (the recent workload), or undefined for none. */
  topics: FeedTopics | undefined;
  instruments: number;
  port: number;
  /** Workers share one port (SO_REUSEPORT). */
  reusePort: boolean;
}

export function benchApiConfig(o: BenchApiOptions): QueryApiConfig {
  return {
    port: o.port,
    reusePort: o.reusePort,
    logLevel: false,
    rateLimit: { perSecond: 1_000_000, burst: 1_000_000 },
    // Every client of the benchmark comes from one address: it measures the engine, not that limit.
    addressLimit: { perSecond: 1_000_000, burst: 1_000_000 },
    ...(o.cache === 'off' ? { cache: { maxEntries: 0 } } : {}),
    ...(o.topics === undefined
      ? {}
      : { topics: o.topics, hotTier: { windowHours: 24, maxInstruments: o.instruments } }),
  };
}

/** JavaScript memory of this process: heap and array buffers (the tier's columns), not chDB's. */
export function jsBytes(): number {
  globalThis.gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

export interface HotTierFigures {
  load_s: number;
  trades: number;
  memory_bytes: number;
  row_text_bytes: number;
  trades_per_instrument_day: number;
  bytes_per_instrument_day: number;
  js_bytes_per_instrument_day: number;
}

/**
 * Waits for the hot tier to be loaded and caught up (bounded), and says what it holds: its own
 * count of column bytes (and kept row text), and the growth of the process's JavaScript memory
 * (heap and array buffers, after a GC when --expose-gc is on) from `jsBefore`, per instrument-day.
 */
export async function hotTierReady(
  api: QueryApi,
  jsBefore: number,
  instrumentDays: number,
): Promise<HotTierFigures> {
  const started = performance.now();
  const deadline = Date.now() + 900_000;
  for (let state = api.hotTier?.state; state !== 'ready'; state = api.hotTier?.state) {
    if (state === 'failed' || state === undefined || Date.now() > deadline)
      throw new Error(`the hot tier did not get ready (${state ?? 'none'})`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const stats = api.hotTier?.tier.stats();
  return {
    load_s: Math.round((performance.now() - started) / 100) / 10,
    trades: stats?.trades ?? 0,
    memory_bytes: stats?.bytes ?? 0,
    row_text_bytes: stats?.rowTextBytes ?? 0,
    trades_per_instrument_day: Math.round((stats?.trades ?? 0) / instrumentDays),
    bytes_per_instrument_day: Math.round((stats?.bytes ?? 0) / instrumentDays),
    js_bytes_per_instrument_day: Math.round((jsBytes() - jsBefore) / instrumentDays),
  };
}
