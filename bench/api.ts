/**
 * `npm run bench:api`: the query API over embedded ClickHouse. Generates `--ticks` ticks for
 * `--instruments` instruments over one trading day inside ClickHouse (INSERT ... SELECT FROM
 * numbers(), no JS rows), starts the API on loopback, and drives `--connections` concurrent clients
 * with autocannon for `--duration` seconds, each asking for the 1-minute bars of one instrument for
 * that day. `--queried <n>` spreads the requests over n instruments (default 1, the case;
 * more instruments means more distinct queries and fewer answers from the result cache).
 *
 * Flags: --ticks (default 10,000,000), --instruments (default 1,000), --connections (default 50),
 * --duration (seconds, default 20), --queried (default 1), --warmup (seconds, default 2).
 * Progress goes to stderr; the last stdout line is
 * {"bench":"api","rps":...,"p50_ms":...,"p99_ms":...,...}.
 */
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FEED_TABLES } from '@feedpipe/contracts';
import { createQueryApi } from '@feedpipe/query-api';
import { createStore, runMigrations } from '@feedpipe/store';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p90: number; p99: number; max: number; average: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}
interface AutocannonRequest {
  path?: string;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  headers: Record<string, string>;
  requests?: { setupRequest: (req: AutocannonRequest) => AutocannonRequest }[];
}) => Promise<AutocannonResult>;

// autocannon ships no type declarations; the shape used is declared above.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

function flag(value: string | undefined, fallback: number, name: string, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`--${name} must be an integer in [${min}, ${max}]`);
  return n;
}

const { values } = parseArgs({
  options: {
    ticks: { type: 'string' },
    instruments: { type: 'string' },
    connections: { type: 'string' },
    duration: { type: 'string' },
    queried: { type: 'string' },
    warmup: { type: 'string' },
  },
});
const ticks = flag(values.ticks, 10_000_000, 'ticks', 1_000, 200_000_000);
const instruments = flag(values.instruments, 1_000, 'instruments', 1, 100_000);
const connections = flag(values.connections, 50, 'connections', 1, 1_000);
const duration = flag(values.duration, 20, 'duration', 1, 600);
const queried = flag(values.queried, 1, 'queried', 1, instruments);
const warmup = flag(values.warmup, 2, 'warmup', 0, 60);

const log = (message: string): void => {
  process.stderr.write(`[bench:api] ${message}\n`);
};

const FIRST_ID = 1_000_001;
const DAY = '2024-03-04';
// A 6.25-hour session (03:45 to 10:00 UTC) shared evenly by every instrument's ticks.
const SESSION_SEC = 22_500;

const dataDir = join(tmpdir(), `feedpipe-bench-api-${process.pid}`);
const store = createStore({ dataDir });
try {
  await runMigrations(store.internal);
  const perInstrument = Math.ceil(ticks / instruments);
  let t = performance.now();
  await store.internal.command(
    `INSERT INTO ${FEED_TABLES.ticks.name} (${FEED_TABLES.ticks.columns.join(', ')})
      SELECT ${FIRST_ID} + number % ${instruments} AS sid, 14,
             toFloat32(100 + (cityHash64(number) % 1000) / 100),
             toInt32((intDiv(number, ${instruments}) + 1) * 10),
             toDateTime('${DAY} 03:45:00', 'UTC') + intDiv(intDiv(number, ${instruments}) * ${SESSION_SEC}, ${perInstrument}) AS t,
             t,
             toDateTime64(t, 6, 'UTC') + toIntervalMicrosecond(number % 1000000),
             toUInt16(number % 16), number, 'bench'
      FROM numbers(${ticks})`,
  );
  log(
    `inserted ${ticks} ticks for ${instruments} instruments in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );

  const api = await createQueryApi(
    { port: 0, rateLimit: { perSecond: 1_000_000, burst: 1_000_000 } },
    { store },
  );
  const { key } = await api.keys.create('bench', ['read']);
  const url = await api.start();
  const path = (i: number): string =>
    `/v1/instruments/${FIRST_ID + (i % queried)}/bars?from=${DAY}&to=2024-03-05&interval=1m`;
  t = performance.now();
  const probe = await fetch(`${url}${path(0)}`, { headers: { 'x-api-key': key } });
  const body = (await probe.json()) as { rows: number };
  log(
    `first (uncached) request: HTTP ${probe.status}, ${body.rows} bars in ${(performance.now() - t).toFixed(1)} ms`,
  );
  let next = 0;
  const requests = [{ setupRequest: (req: AutocannonRequest) => ({ ...req, path: path(next++) }) }];
  const headers = { 'x-api-key': key };
  if (warmup > 0) {
    log(`warm-up ${warmup} s`);
    await autocannon({ url, connections, duration: warmup, headers, requests });
  }
  log(`measuring: ${connections} connections for ${duration} s over ${queried} instrument(s)`);
  const result = await autocannon({ url, connections, duration, headers, requests });
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const cache = (name: string): number =>
    Number(new RegExp(`query_api_cache_lookups_total\\{result="${name}"\\} (\\d+)`).exec(metrics)?.[1] ?? 0);
  await api.stop();
  log(`done: ${result.requests.total} requests, ${result.non2xx} non-2xx, ${result.errors} errors`);
  process.stdout.write(
    `${JSON.stringify({
      bench: 'api',
      rps: Math.round(result.requests.average),
      p50_ms: result.latency.p50,
      p99_ms: result.latency.p99,
      max_ms: result.latency.max,
      requests: result.requests.total,
      non2xx: result.non2xx,
      errors: result.errors,
      ticks,
      instruments,
      queried,
      connections,
      duration_s: duration,
      cache_hit: cache('hit'),
      cache_shared: cache('shared'),
      cache_miss: cache('miss'),
    })}\n`,
  );
} finally {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
}
