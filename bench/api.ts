/**
 * `npm run bench:api`: the query API under the load research notebooks and dashboards bring.
 *
 * Generates `--ticks` ticks for `--instruments` instruments over `--days` trading days inside
 * ClickHouse (bench/support/api-dataset.ts), starts the API on loopback with the result cache OFF
 * (`--cache on` measures it), and drives `--connections` concurrent clients from a process of
 * their own (bench/support/api-load-process.ts) for `--duration` seconds after `--warmup`.
 *
 * By default every request asks for the 1-minute bars of a random instrument over a random range
 * of 1 to `--max-span-days` whole days (`--workload bars`); `--single` asks for one instrument's
 * first day every time (the case the result cache answers); `--workload mixed` mixes bars, tick
 * pages, candles, movers and read-only SQL (bench/support/api-workload.ts says how).
 *
 * `--clickhouse-url http://user:pass@host:8123` runs the same against a ClickHouse server instead
 * of embedded chDB: a scratch server, since the bench fills the market tables it reads and empties
 * them at the end (it refuses a server whose tables hold anything else).
 *
 * Progress goes to stderr; the last stdout line is
 * {"bench":"api","workload":...,"cache":"off","p50_ms":...,"p99_ms":...,"max_ms":...,"rps":...,
 *  "errors":...,"store_queries":...,...}. `store_queries` counts the queries the API sent to
 * ClickHouse for callers during the measured window (query_api_store_queries_total{lane="user"});
 * `api_cpu_ms_per_request` is the CPU this process (API and embedded engine) spent per request,
 * the figure to compare on a machine shared with other work; `routes` has requests and mean
 * time per route.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createQueryApi } from '@feedpipe/query-api';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import {
  checkServerTablesFree,
  type DatasetSpec,
  insertCandles,
  insertTicks,
  optimizeBenchTables,
  truncateBenchTables,
} from './support/api-dataset.js';
import type { LoadJob, LoadResult } from './support/api-load-process.js';
import type { Workload, WorkloadSpec } from './support/api-workload.js';

function intFlag(
  value: string | undefined,
  fallback: number,
  name: string,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`--${name} must be an integer in [${min}, ${max}]`);
  return n;
}

function choice<T extends string>(
  value: string | undefined,
  fallback: T,
  name: string,
  allowed: readonly T[],
): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value))
    throw new Error(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

const { values } = parseArgs({
  options: {
    ticks: { type: 'string' },
    instruments: { type: 'string' },
    days: { type: 'string' },
    'max-span-days': { type: 'string' },
    connections: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    cache: { type: 'string' },
    workload: { type: 'string' },
    single: { type: 'boolean', default: false },
    seed: { type: 'string' },
    'clickhouse-url': { type: 'string' },
  },
});
const instruments = intFlag(values.instruments, 1_000, 'instruments', 1, 100_000);
const days = intFlag(values.days, 5, 'days', 1, 60);
const dataset: DatasetSpec = {
  ticks: intFlag(values.ticks, 10_000_000, 'ticks', 1_000, 200_000_000),
  instruments,
  days,
  firstId: 1_000_001,
  firstDay: '2024-03-04',
};
const workload = choice<Workload>(values.workload, 'bars', 'workload', ['bars', 'mixed']);
const cache = choice(values.cache, 'off', 'cache', ['on', 'off'] as const);
const spec: WorkloadSpec = {
  workload,
  firstId: dataset.firstId,
  instruments,
  firstDay: dataset.firstDay,
  days,
  maxSpanDays: intFlag(values['max-span-days'], 2, 'max-span-days', 1, days),
  single: values.single ?? false,
  seed: intFlag(values.seed, 42, 'seed', 0, 2 ** 31),
};
const connections = intFlag(values.connections, 50, 'connections', 1, 1_000);
const duration = intFlag(values.duration, 20, 'duration', 1, 600);
const warmup = intFlag(values.warmup, 3, 'warmup', 0, 60);
const serverUrl = values['clickhouse-url'];

const log = (message: string): void => {
  process.stderr.write(`[bench:api] ${message}\n`);
};

/**
 * Runs the clients in their own process: warm-up, then `between()` (the counters are read there),
 * then the measured window. Returns what autocannon measured in that window.
 */
function runLoad(job: LoadJob, between: () => Promise<void>): Promise<LoadResult> {
  const child: ChildProcess = fork(
    fileURLToPath(new URL('./support/api-load-process.ts', import.meta.url)),
    [],
    {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  return new Promise((resolve, reject) => {
    child.on('message', (message: { type: string; result?: LoadResult; message?: string }) => {
      if (message.type === 'warm') {
        between().then(
          () => {
            log(`measuring: ${job.connections} connections for ${job.durationSec} s`);
            child.send({ cmd: 'measure' });
          },
          (error: unknown) => {
            child.kill();
            reject(error);
          },
        );
      } else if (message.type === 'result') resolve(message.result as LoadResult);
      else if (message.type === 'error') reject(new Error(`load process: ${message.message}`));
    });
    child.once('exit', (code) => reject(new Error(`load process exited with code ${code}`)));
    log(`warm-up: ${job.connections} connections for ${job.warmupSec} s`);
    child.send(job);
  });
}

/**
 * Requests and mean time to last byte per route in the window, from the API's histogram
 * (query_api_http_request_duration_seconds): which route of a mixed workload costs what.
 */
function perRoute(before: string, after: string): Record<string, { n: number; mean_ms: number }> {
  const read = (text: string) => {
    const out = new Map<string, { sum: number; count: number }>();
    const line =
      /^query_api_http_request_duration_seconds_(sum|count)\{method="[A-Z]+",route="([^"]+)"\} (\S+)$/;
    for (const l of text.split('\n')) {
      const m = line.exec(l);
      if (m === null) continue;
      const [, kind, route, value] = m as unknown as [string, 'sum' | 'count', string, string];
      const entry = out.get(route) ?? { sum: 0, count: 0 };
      entry[kind] += Number(value);
      out.set(route, entry);
    }
    return out;
  };
  const [b, a] = [read(before), read(after)];
  const routes: Record<string, { n: number; mean_ms: number }> = {};
  for (const [route, end] of a) {
    if (!route.startsWith('/v1/')) continue;
    const start = b.get(route) ?? { sum: 0, count: 0 };
    const n = end.count - start.count;
    if (n > 0) routes[route] = { n, mean_ms: Math.round(((end.sum - start.sum) / n) * 10_000) / 10 };
  }
  return routes;
}

/** A counter of the API's /metrics text (0 when absent). */
function counter(metrics: string, name: string, labels: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Set once a server's tables were found to hold only the bench's rows: only then are they emptied. */
let serverTablesOwned = false;

async function prepare(store: Store): Promise<void> {
  await runMigrations(store.internal);
  if (serverUrl !== undefined) {
    await checkServerTablesFree(store.internal);
    serverTablesOwned = true;
    await truncateBenchTables(store.internal);
  }
  let t = performance.now();
  await insertTicks(store.internal, dataset);
  log(
    `inserted ${dataset.ticks} ticks for ${instruments} instruments over ${days} day(s) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  if (workload === 'mixed') {
    t = performance.now();
    await insertCandles(store.internal, dataset);
    log(`inserted daily and 5-minute candles in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  // The inserts leave parts that the engine would merge in the background during the measured
  // window, charging the merges to the queries; a table that has been live for a while is merged.
  t = performance.now();
  await optimizeBenchTables(store.internal);
  log(`merged the tables' parts in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

async function measure(store: Store): Promise<Record<string, unknown>> {
  const api = await createQueryApi(
    {
      port: 0,
      logLevel: false,
      rateLimit: { perSecond: 1_000_000, burst: 1_000_000 },
      // Every client of the benchmark comes from one address: it measures the engine, not that limit.
      addressLimit: { perSecond: 1_000_000, burst: 1_000_000 },
      ...(cache === 'off' ? { cache: { maxEntries: 0 } } : {}),
    },
    { store },
  );
  const apiKeys: string[] = [];
  for (let i = 0; i < connections; i++) apiKeys.push((await api.keys.create(`bench-${i}`, ['read'])).key);
  const url = await api.start();
  try {
    const scrape = async () => (await fetch(`${url}/metrics`)).text();
    let before = '';
    let cpuBefore = process.cpuUsage();
    const job: LoadJob = { url, apiKeys, connections, durationSec: duration, warmupSec: warmup, spec };
    const r = await runLoad(job, async () => {
      before = await scrape();
      cpuBefore = process.cpuUsage();
    });
    // CPU of this process (the API and, embedded, the engine) over the window: what a request
    // costs, which a machine shared with other work does not change the way it changes latency.
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const after = await scrape();
    const delta = (name: string, labels: string) =>
      counter(after, name, labels) - counter(before, name, labels);
    log(
      `done: ${r.requests} requests, ${r.non2xx} non-2xx ${JSON.stringify(r.statusCodes)}, ${r.errors} errors`,
    );
    for (const f of r.failures) log(`  e.g. HTTP ${f.status} near ${f.path}: ${f.body}`);
    return {
      bench: 'api',
      workload: spec.single ? `${workload}-single` : workload,
      cache,
      store: serverUrl === undefined ? 'embedded' : 'server',
      p50_ms: r.p50,
      p99_ms: r.p99,
      max_ms: r.max,
      rps: Math.round(r.rps),
      requests: r.requests,
      // autocannon's errors count its time-outs already.
      errors: r.errors + r.non2xx,
      timeouts: r.timeouts,
      non2xx: r.non2xx,
      store_queries: delta('query_api_store_queries_total', 'lane="user"'),
      api_cpu_ms_per_request: r.requests > 0 ? Math.round((cpuMs / r.requests) * 100) / 100 : null,
      api_cpu_cores: Math.round((cpuMs / (duration * 1000)) * 100) / 100,
      cache_hit: delta('query_api_cache_lookups_total', 'result="hit"'),
      cache_shared: delta('query_api_cache_lookups_total', 'result="shared"'),
      cache_miss: delta('query_api_cache_lookups_total', 'result="miss"'),
      routes: perRoute(before, after),
      ticks: dataset.ticks,
      instruments,
      days,
      max_span_days: spec.maxSpanDays,
      connections,
      duration_s: duration,
    };
  } finally {
    await api.stop();
  }
}

const dataDir = join(tmpdir(), `feedpipe-bench-api-${process.pid}`);
const store = createStore(serverUrl === undefined ? { dataDir } : { url: serverUrl });
try {
  await prepare(store);
  process.stdout.write(`${JSON.stringify(await measure(store))}\n`);
} catch (error) {
  // The store's location has no credentials in it.
  log(`failed against ${store.location}: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  if (serverTablesOwned) await truncateBenchTables(store.internal).catch(() => undefined);
  await store.close();
  if (serverUrl === undefined) rmSync(dataDir, { recursive: true, force: true });
}
