/**
 * `npm run bench:api`: the query API under the load research notebooks and dashboards bring.
 *
 * Generates `--ticks` ticks for `--instruments` instruments over `--days` trading days inside
 * ClickHouse (bench/support/api-dataset.ts), starts the API on loopback with the result cache OFF
 * (`--cache on` measures it), and drives `--connections` concurrent clients from a process of
 * their own (bench/support/api-load-process.ts) for `--duration` seconds after `--warmup`.
 *
 * By default every request asks for the 1-minute bars of a random instrument over a random range
 * of 1 to `--max-span-days` whole days (`--workload history`, formerly `bars`); `--single` asks
 * for one instrument's first day every time (the case the result cache answers); `--workload
 * mixed` mixes bars, tick pages, candles, movers and read-only SQL (bench/support/api-workload.ts
 * says how).
 *
 * `--workload recent`: the data set is yesterday and today (UTC), inside the API's hot tier
 * window; a local Kafka broker is started for the tier's feed (its trades topic stays empty: the
 * tier loads everything from ClickHouse), the API is measured once the tier is ready, and each
 * request asks for 1-minute bars over 1 hour to one trading session of one of the two days. The
 * JSON line adds the tier's load time, trades and memory per instrument-day, and answers by tier.
 *
 * `--clickhouse-url http://user:pass@host:8123` runs the same against a ClickHouse server instead
 * of embedded chDB: a scratch server, since the bench fills the market tables it reads and empties
 * them at the end (it refuses a server whose tables hold anything else).
 *
 * Progress goes to stderr; the last stdout line is
 * {"bench":"api","workload":...,"cache":"off","p50_ms":...,"p99_ms":...,"max_ms":...,"rps":...,
 *  "errors":...,"store_queries":...,...}. `store_queries` counts the queries the API sent to
 * ClickHouse for callers during the measured window (query_api_store_queries_total{lane="user"});
 * `api_cpu_ms_per_request` is the CPU the API's process spent per request (the embedded engine runs
 * in a child process of its own and is not in it), the figure to compare on a machine shared with
 * other work; `routes` has requests and mean
 * time per route.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { prefixedTopics } from '@feedpipe/contracts';
import { KafkaAdmin } from '@feedpipe/kafka-client';
import { type LocalKafka, startLocalKafka } from '@feedpipe/local-kafka';
import { createQueryApi, type QueryApi } from '@feedpipe/query-api';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import {
  checkServerTablesFree,
  type DatasetSpec,
  insertCandles,
  insertTicks,
  optimizeBenchTables,
  truncateBenchTables,
} from './support/api-dataset.js';
import { benchApiConfig, type HotTierFigures, hotTierReady, jsBytes } from './support/api-instance.js';
import type { LoadJob, LoadResult } from './support/api-load-process.js';
import type { WorkerJob, WorkerSnapshot } from './support/api-worker-process.js';
import type { Workload, WorkloadSpec } from './support/api-workload.js';
import { intFlag } from './support/flags.js';

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
    workers: { type: 'string' },
  },
});
// `bars` is the history workload's name from before the hot tier.
const workload = choice<Workload | 'bars'>(values.workload, 'history', 'workload', [
  'history',
  'bars',
  'recent',
  'mixed',
]).replace('bars', 'history') as Workload;
const recent = workload === 'recent';
const instruments = intFlag(values.instruments, 1_000, 'instruments', 1, 100_000);
// The recent workload's data set is the hot window's two days: yesterday and today (UTC).
const days = recent ? 2 : intFlag(values.days, 5, 'days', 1, 60);
const DAY_MS = 86_400_000;
const dataset: DatasetSpec = {
  ticks: intFlag(values.ticks, recent ? 4_000_000 : 10_000_000, 'ticks', 1_000, 200_000_000),
  instruments,
  days,
  firstId: 1_000_001,
  firstDay: recent
    ? new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS).toISOString().slice(0, 10)
    : '2024-03-04',
};
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
// API processes sharing the port (QUERY_API_WORKERS): 1 runs the API in this process.
const workers = intFlag(values.workers, 1, 'workers', 1, 16);

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

/** A counter of the API's /metrics text, summed over the workers' texts joined (0 when absent). */
function counter(metrics: string, name: string, labels: string): number {
  let sum = 0;
  for (const line of metrics.split('\n')) {
    if (line.startsWith(`${name}{${labels}} `)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
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

interface Feed {
  kafka: LocalKafka;
  topics: ReturnType<typeof prefixedTopics>;
}

/** The hot tier's feed: a local broker with the feed topics (empty: the tier loads from ClickHouse). */
async function startFeed(): Promise<Feed> {
  const dir = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const kafka = await startLocalKafka({
    dataDir: join(dir, `feedpipe-bench-api-kafka-${process.pid}`),
    heap: '512m',
  });
  const topics = prefixedTopics(`bench-api-${process.pid}`);
  const admin = new KafkaAdmin({ brokers: kafka.brokers });
  try {
    await admin.ensureTopics(Object.values(topics), { partitions: 4 });
  } finally {
    await admin.close();
  }
  return { kafka, topics };
}

/** The API under load, in this process or in workers: its address, counters and CPU, and its stop. */
interface Served {
  url: string;
  hotTier: HotTierFigures | undefined;
  /** /metrics of every API process (joined) and their CPU so far, ms. */
  snapshot(): Promise<{ metrics: string; cpuMs: number }>;
  stop(): Promise<void>;
}

async function serveInProcess(api: QueryApi): Promise<Served> {
  const jsBefore = jsBytes();
  const url = await api.start();
  const hotTier = recent ? await hotTierReady(api, jsBefore, instruments * days) : undefined;
  if (hotTier !== undefined) log(`hot tier ready: ${JSON.stringify(hotTier)}`);
  return {
    url,
    hotTier,
    async snapshot() {
      const cpu = process.cpuUsage();
      return { metrics: await (await fetch(`${url}/metrics`)).text(), cpuMs: (cpu.user + cpu.system) / 1000 };
    },
    stop: () => api.stop(),
  };
}

interface WorkerHandle {
  child: ChildProcess;
  next(type: string): Promise<Record<string, unknown>>;
}

function forkWorker(job: WorkerJob): WorkerHandle {
  const child = fork(fileURLToPath(new URL('./support/api-worker-process.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<string, (message: Record<string, unknown>) => void>();
  let failed: Error | undefined;
  child.on('message', (message: Record<string, unknown>) => {
    if (message.type === 'error') failed = new Error(`api worker: ${String(message.message)}`);
    const resolve = waiting.get(String(message.type));
    waiting.delete(String(message.type));
    resolve?.(message);
  });
  child.send(job);
  return {
    child,
    next: (type) =>
      new Promise((resolve, reject) => {
        if (failed) return reject(failed);
        const timer = setTimeout(() => reject(new Error(`api worker: no ${type} in 15 minutes`)), 900_000);
        waiting.set(type, (message) => {
          clearTimeout(timer);
          if (failed) reject(failed);
          else resolve(message);
        });
        child.once('exit', (code) => reject(new Error(`api worker exited (code ${code}) awaiting ${type}`)));
      }),
  };
}

/**
 * `workers` API processes on one port (SO_REUSEPORT), started one after another: the first on a
 * free port, the rest on its. On embedded chDB each opens a copy of the data directory, made with
 * the store closed (the keys are in it already).
 */
async function serveWorkers(store: Store, feed: Feed | undefined): Promise<Served> {
  const copies: string[] = [];
  if (serverUrl === undefined) {
    await store.close();
    for (let i = 0; i < workers; i++) {
      copies.push(`${dataDir}-w${i}`);
      cpSync(dataDir, `${dataDir}-w${i}`, { recursive: true });
    }
  }
  const handles: WorkerHandle[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(
      handles.map(
        (h) =>
          new Promise<void>((resolve) => {
            if (h.child.exitCode !== null) return resolve();
            h.child.once('exit', () => resolve());
            h.child.send({ cmd: 'stop' });
          }),
      ),
    );
    for (const copy of copies) rmSync(copy, { recursive: true, force: true });
  };
  try {
    let port = 0;
    let url = '';
    let hotTier: HotTierFigures | undefined;
    for (let i = 0; i < workers; i++) {
      const handle = forkWorker({
        api: { cache, topics: feed?.topics, instruments, port, reusePort: true },
        store:
          serverUrl === undefined
            ? { dataDir: copies[i] as string, ttlDeletes: 'paused' }
            : { url: serverUrl },
        kafkaBrokers: feed?.kafka.brokers ?? [],
        instrumentDays: instruments * days,
      });
      handles.push(handle);
      const listening = (await handle.next('listening')) as { url: string };
      url = listening.url.replace('[::1]', '127.0.0.1');
      port = Number(new URL(url).port);
      const ready = (await handle.next('ready')) as { hotTier?: HotTierFigures };
      hotTier ??= ready.hotTier;
      log(`worker ${i} ready on ${url}${ready.hotTier ? `: ${JSON.stringify(ready.hotTier)}` : ''}`);
    }
    return {
      url,
      hotTier,
      async snapshot() {
        const snapshots = await Promise.all(
          handles.map(async (h) => {
            const reply = h.next('snapshot');
            h.child.send({ cmd: 'snapshot' });
            return (await reply) as unknown as WorkerSnapshot;
          }),
        );
        return {
          metrics: snapshots.map((s) => s.metrics).join('\n'),
          cpuMs: snapshots.reduce((sum, s) => sum + s.cpuMs, 0),
        };
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function measure(store: Store): Promise<Record<string, unknown>> {
  const feed = recent ? await startFeed() : undefined;
  try {
    const api = await createQueryApi(
      benchApiConfig({ cache, topics: feed?.topics, instruments, port: 0, reusePort: false }),
      { store, ...(feed === undefined ? {} : { kafkaBrokers: feed.kafka.brokers }) },
    );
    const apiKeys: string[] = [];
    for (let i = 0; i < connections; i++) apiKeys.push((await api.keys.create(`bench-${i}`, ['read'])).key);
    let served: Served;
    if (workers === 1) served = await serveInProcess(api);
    else {
      // The keys are stored; the workers are the API from here.
      await api.stop();
      served = await serveWorkers(store, feed);
    }
    try {
      return await load(served, apiKeys);
    } finally {
      await served.stop();
    }
  } finally {
    await feed?.kafka.stop();
  }
}

async function load(served: Served, apiKeys: string[]): Promise<Record<string, unknown>> {
  const { url, hotTier } = served;
  let before = { metrics: '', cpuMs: 0 };
  const job: LoadJob = { url, apiKeys, connections, durationSec: duration, warmupSec: warmup, spec };
  const r = await runLoad(job, async () => {
    before = await served.snapshot();
  });
  const after = await served.snapshot();
  // CPU of the API processes (and, embedded, the engine when it runs in them) over the window:
  // what a request costs, which a machine shared with other work does not change as it does latency.
  const cpuMs = after.cpuMs - before.cpuMs;
  const delta = (name: string, labels: string) =>
    counter(after.metrics, name, labels) - counter(before.metrics, name, labels);
  log(
    `done: ${r.requests} requests, ${r.non2xx} non-2xx ${JSON.stringify(r.statusCodes)}, ${r.errors} errors`,
  );
  for (const f of r.failures) log(`  e.g. HTTP ${f.status} near ${f.path}: ${f.body}`);
  return {
    bench: 'api',
    workload: spec.single ? `${workload}-single` : workload,
    cache,
    store: serverUrl === undefined ? 'embedded' : 'server',
    workers,
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
    routes: perRoute(before.metrics, after.metrics),
    ...(hotTier === undefined
      ? {}
      : {
          hot_tier: hotTier,
          answers: {
            memory: delta('query_api_bars_answers_total', 'tier="memory"'),
            stitched: delta('query_api_bars_answers_total', 'tier="stitched"'),
            clickhouse: delta('query_api_bars_answers_total', 'tier="clickhouse"'),
          },
        }),
    ticks: dataset.ticks,
    instruments,
    days,
    max_span_days: spec.maxSpanDays,
    connections,
    duration_s: duration,
  };
}

const dataDir = join(tmpdir(), `feedpipe-bench-api-${process.pid}`);
// The history dataset is dated 2024, past the raw feed's 90-day TTL: TTL deletes are held off on
// the embedded engine so it stays whole (a server keeps its own retention: load dates it keeps).
const store = createStore(serverUrl === undefined ? { dataDir, ttlDeletes: 'paused' } : { url: serverUrl });
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
