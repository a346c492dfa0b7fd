/**
 * bench:flood, issue #37's acceptance: the whole pipeline as `npm start` runs it, flooded from
 * loopback the way the hostile user did, while a legitimate user keeps checking that the
 * sink stores and that orders are answered.
 *
 *   npm run bench:flood -- --scenario keys|idle|both [--seconds 60] [--baseline-seconds 30]
 *                          [--rate 300] [--connections 19600] [--addresses 256] [--instruments 5000]
 *                          [--cpu-prof DIR]
 *
 * - keys: ~`rate` requests/s with made-up API keys (and a share of wrong secrets for the read and
 *   trade keys' ids) against /v1/sql, /clickhouse, /v1/orders and the postback route, from many
 *   loopback addresses (bench/support/flood-keys.ts);
 * - idle: `connections` TCP connections that send nothing, held for the whole run (bounded by the
 *   flood process's open-file limit), plus slow bodies, one byte every 5 s, on the same four routes
 *   (bench/support/flood-connections.ts);
 * - both: the two at once, each flood in a process of its own.
 *
 * Every 10 s (bench/support/flood-probes.ts): the stored ticks, each service's readiness and one
 * order placed with the trade key, first for `baseline-seconds` without a flood (the baseline of
 * the same run), then for `seconds` under it. One JSON line last: the flood's figures at the top
 * level, the baseline's under `baseline`; `ok` is true when the stored ticks rose in every window
 * and every order was placed (2xx) within 1 s.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { parseArgs } from 'node:util';
import { parseKey } from '@feedpipe/service-http';
import { type RunningStart, startNpmStart } from '../test/npm-start/running-start.js';
import { intFlag } from './support/flags.js';
import {
  connectionCounters,
  type HistogramTotals,
  type ProbeSample,
  type ProbeTargets,
  sample,
} from './support/flood-probes.js';
import type { FloodJob } from './support/flood-process.js';

const WINDOW_MS = 10_000;
const ORDER_DEADLINE_MS = 1_000;
const SCENARIOS = ['keys', 'idle', 'both'] as const;
type Scenario = (typeof SCENARIOS)[number];

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'keys' },
    seconds: { type: 'string' },
    'baseline-seconds': { type: 'string' },
    rate: { type: 'string' },
    connections: { type: 'string' },
    addresses: { type: 'string' },
    instruments: { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
});
if (!SCENARIOS.includes(values.scenario as Scenario)) {
  throw new Error(`--scenario must be one of ${SCENARIOS.join(', ')}`);
}
const scenario = values.scenario as Scenario;
const seconds = intFlag(values.seconds, 60, 'seconds', 10, 600);
/** Probed before the flood starts, for the baseline (0: none). */
const baselineWindows = Math.floor(intFlag(values['baseline-seconds'], 30, 'baseline-seconds', 0, 600) / 10);
const rate = intFlag(values.rate, 300, 'rate', 1, 5_000);
/** The 19,600 connections (the flood process's open-file limit may hold it lower). */
const connections = intFlag(values.connections, 19_600, 'connections', 1, 60_000);
const addresses = intFlag(values.addresses, 256, 'addresses', 1, 60_000);
/** npm start's own default universe. */
const instruments = intFlag(values.instruments, 5_000, 'instruments', 1, 25_000);
/** A directory for V8 CPU profiles of the npm start process (and its engine's), written as they exit. */
const cpuProfDir = values['cpu-prof'];

const log = (message: string) => process.stderr.write(`bench:flood: ${message}\n`);

function keyIdOf(key: string, what: string): string {
  const id = parseKey(key)?.keyId;
  if (!id) throw new Error(`the banner's ${what} is not a key`);
  return id;
}

function floodJobs(start: RunningStart): FloodJob[] {
  const jobs: FloodJob[] = [];
  if (scenario !== 'idle') {
    jobs.push({
      kind: 'keys',
      targets: {
        apiUrl: start.apiUrl,
        gatewayUrl: start.gatewayUrl,
        knownQueryKeyId: keyIdOf(start.readKey, 'read key'),
        knownTradeKeyId: keyIdOf(start.tradeKey, 'trade key'),
      },
      options: { ratePerSecond: rate, addresses, wrongSecretShare: 0.1, maxInFlight: 1_000 },
    });
  }
  if (scenario !== 'keys') {
    const api = new URL(start.apiUrl);
    const gateway = new URL(start.gatewayUrl);
    const apiEndpoint = { host: api.hostname, port: Number(api.port) };
    const gatewayEndpoint = { host: gateway.hostname, port: Number(gateway.port) };
    const head = (method: string, path: string, host: URL, extra: string) =>
      `${method} ${path} HTTP/1.1\r\nHost: ${host.host}\r\nContent-Type: application/json\r\nContent-Length: 100000${extra}`;
    jobs.push({
      kind: 'idle',
      endpoints: [apiEndpoint, gatewayEndpoint],
      connections,
      options: { maxOpens: connections * 20, maxPendingConnects: 500, opensPerSecond: 2_000, addresses },
      slowBodies: {
        perRoute: 10,
        everyMs: 5_000,
        targets: [
          {
            route: 'sql',
            endpoint: apiEndpoint,
            head: head('POST', '/v1/sql', api, `\r\nx-api-key: ${start.readKey}`),
          },
          {
            route: 'clickhouse',
            endpoint: apiEndpoint,
            head: head('POST', '/clickhouse', api, `\r\nX-ClickHouse-Key: ${start.readKey}`),
          },
          {
            route: 'orders',
            endpoint: gatewayEndpoint,
            head: head('POST', '/v1/orders', gateway, `\r\nx-api-key: ${start.tradeKey}`),
          },
          {
            route: 'postback',
            endpoint: gatewayEndpoint,
            head: head('POST', '/postbacks/orders', gateway, '\r\nx-postback-secret: not-the-secret'),
          },
        ],
      },
    });
  }
  return jobs;
}

interface RunningFlood {
  child: ChildProcess;
  report: () => Promise<unknown>;
}

async function startFlood(job: FloodJob): Promise<RunningFlood> {
  const child = fork(new URL('./support/flood-process.ts', import.meta.url), [JSON.stringify(job)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const started = await new Promise<unknown>((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) =>
      reject(new Error(`the ${job.kind} flood exited (${code}) before it started`)),
    );
  });
  log(`${job.kind} flood started ${JSON.stringify(started)}`);
  const report = () =>
    new Promise<unknown>((resolve) => {
      child.on('message', (m: { type?: string; report?: unknown }) => {
        if (m.type === 'report') resolve(m.report);
      });
      child.send({ cmd: 'stop' });
    });
  return { child, report };
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number);

/**
 * The sink's inserts between two samples: their mean time, the share of the time the store's one
 * pipeline session (the lane the gateway's audit rows also take) was inserting, and the failures.
 */
function sinkInserts(first: ProbeSample | undefined, last: ProbeSample | undefined, windows: number) {
  const a = first?.sink_inserts;
  const b = last?.sink_inserts;
  if (!a || !b || b.count === a.count || windows === 0)
    return { mean_ms: null, lane_busy_share: null, failed: null };
  const seconds = b.seconds - a.seconds;
  return {
    failed: b.failed - a.failed,
    mean_ms: Math.round((seconds / (b.count - a.count)) * 1000),
    lane_busy_share: Math.round((seconds / (windows * (WINDOW_MS / 1000))) * 100) / 100,
  };
}

/**
 * A histogram's observations between two samples, by label: how many and their mean time. For the
 * gateway's store statements (the probes' orders, what their postbacks read, the audit journal's
 * drain behind the answers) and the desk's phases of the probes' orders.
 */
function totalsBetween(a: HistogramTotals | null | undefined, b: HistogramTotals | null | undefined) {
  if (!a || !b) return null;
  const out: Record<string, { count: number; mean_ms: number | null }> = {};
  for (const [label, end] of Object.entries(b)) {
    const begin = a[label] ?? { count: 0, seconds: 0 };
    const count = end.count - begin.count;
    out[label] = {
      count,
      mean_ms: count === 0 ? null : Math.round(((end.seconds - begin.seconds) / count) * 1000),
    };
  }
  return out;
}

/** Each probe order's time in the desk by phase (ms): the difference of one window's phase sums. */
function phasesOfEachOrder(samples: ProbeSample[]) {
  return samples.slice(1).map((s, i) => {
    const a = samples[i]?.order_phases;
    const b = s.order_phases;
    if (!a || !b) return null;
    return Object.fromEntries(
      Object.entries(b).map(([phase, end]) => [
        phase,
        Math.round((end.seconds - (a[phase]?.seconds ?? 0)) * 1000),
      ]),
    );
  });
}

/** A phase's figures: `samples[0]` is the sample its first window starts from. */
function phase(samples: ProbeSample[]) {
  const stored = samples.map((s) => s.stored_ticks);
  const rose = stored.slice(1).map((n, i) => n !== null && stored[i] !== null && n > (stored[i] as number));
  const orders = samples.slice(1).map((s) => s.order);
  const latencies = orders.map((o) => o.ms).sort((a, b) => a - b);
  const codes: Record<string, number> = {};
  for (const o of orders) codes[o.status] = (codes[o.status] ?? 0) + 1;
  const readyzFailures = samples.slice(1).flatMap((s) =>
    Object.entries(s.ready)
      .filter(([, status]) => status !== '200')
      .map(([name]) => name),
  );
  return {
    stored_ticks: stored,
    sink_inserted: samples.map((s) => s.sink_inserted),
    windows_rose: rose,
    order_ms: { p50: percentile(latencies, 0.5), max: latencies.at(-1) ?? 0, each: orders.map((o) => o.ms) },
    order_codes: codes,
    gateway_healthz_ms: samples.slice(1).map((s) => s.gateway_healthz_ms),
    event_loop_lag_max_ms: samples.slice(1).map((s) => s.event_loop_lag_max_ms),
    gateway_event_loop_lag_max_ms: samples.slice(1).map((s) => s.gateway_event_loop_lag_max_ms),
    readyz_failures: readyzFailures.length,
    readyz_failed: [...new Set(readyzFailures)],
    sink_inserts: sinkInserts(samples[0], samples.at(-1), samples.length - 1),
    order_store: totalsBetween(samples[0]?.order_store, samples.at(-1)?.order_store),
    order_phases_ms_each: phasesOfEachOrder(samples),
    npm_start_fds: samples.map((s) => s.fds),
    ok:
      rose.length > 0 &&
      rose.every(Boolean) &&
      orders.length > 0 &&
      orders.every((o) => o.status.startsWith('2') && o.ms < ORDER_DEADLINE_MS),
  };
}

/** Samples every WINDOW_MS from `began` for `windows` windows, appended to `samples`. */
async function sampleWindows(
  targets: ProbeTargets,
  samples: ProbeSample[],
  began: number,
  windows: number,
  label: string,
): Promise<void> {
  for (let w = 1; w <= windows; w += 1) {
    const wait = began + w * WINDOW_MS - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const s = await sample(targets, Math.round((performance.now() - began) / 1000));
    samples.push(s);
    log(`${label} window ${w}: ${JSON.stringify(s)}`);
  }
}

async function main(): Promise<void> {
  log(`starting npm start (${instruments} instruments, the history load on, as npm start runs it)...`);
  const start = await startNpmStart({
    DEMO_INSTRUMENTS: String(instruments),
    HISTORY_LOAD: 'on',
    ...(cpuProfDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${cpuProfDir}` } : {}),
  });
  const targets: ProbeTargets = start;
  const jobs = floodJobs(start);
  const floods: RunningFlood[] = [];
  try {
    const apiMetrics = `${start.apiUrl}/metrics`;
    const gatewayMetrics = `${start.gatewayUrl}/metrics`;
    const before = {
      query_api: await connectionCounters(apiMetrics, 'query_api_'),
      trading_gateway: await connectionCounters(gatewayMetrics, 'trading_gateway_'),
    };
    // The same probes without a flood first: the baseline of this run, on this machine as loaded now.
    const baseline: ProbeSample[] = [await sample(targets, 0)];
    await sampleWindows(targets, baseline, performance.now(), baselineWindows, 'baseline');
    const flooded: ProbeSample[] = [baseline.at(-1) as ProbeSample];
    const began = performance.now();
    for (const job of jobs) floods.push(await startFlood(job));
    await sampleWindows(targets, flooded, began, Math.floor((seconds * 1000) / WINDOW_MS), 'flood');
    const reports = await Promise.all(floods.map((f) => f.report()));
    const after = {
      query_api: await connectionCounters(apiMetrics, 'query_api_'),
      trading_gateway: await connectionCounters(gatewayMetrics, 'trading_gateway_'),
    };
    const flood = Object.fromEntries(jobs.map((job, i) => [job.kind, reports[i]]));
    process.stdout.write(
      `${JSON.stringify({
        scenario,
        seconds,
        instruments,
        rate: scenario === 'idle' ? 0 : rate,
        addresses,
        flood,
        server_connections: { before, after },
        ...phase(flooded),
        baseline: phase(baseline),
        machine: 'shared 2-core machine',
      })}\n`,
    );
  } finally {
    for (const f of floods) if (f.child.exitCode === null) f.child.kill('SIGKILL');
    await start.stop();
  }
}

await main();
