/**
 * What a legitimate user of a running `npm start` sees while bench:flood floods it, sampled every
 * window from 127.0.0.1 (the flood comes from other loopback addresses): the ticks stored so far
 * (market.ticks through the query API with the read key, and the sink's own count from the
 * pipeline's /metrics), each service's readiness (query API and pipeline /readyz, the gateway's
 * /healthz: it has no /readyz), one real order placed through the gateway with the trade key (its
 * latency and answer), and the descriptors the `npm start` process holds.
 */
import { readdirSync } from 'node:fs';
import { FEED_TABLES } from '@feedpipe/contracts';
import { RESTING_ORDER } from './flood-order.js';

/** A probe is given up after this; it then counts as failed with its time so far. */
const PROBE_TIMEOUT_MS = 30_000;

export interface ProbeTargets {
  apiUrl: string;
  gatewayUrl: string;
  opsUrl: string;
  readKey: string;
  tradeKey: string;
  pid: number;
}

export interface ProbeSample {
  /** Seconds since the flood started. */
  at_s: number;
  /** count() of market.ticks through the query API; null when the query failed. */
  stored_ticks: number | null;
  /** The answer's status of that query (or the error that replaced it). */
  stored_status: string;
  /** The sink's sink_rows_inserted_total for market.ticks; null when /metrics failed. */
  sink_inserted: number | null;
  /** The sink's inserts so far (every table): how many, their seconds in all, and how many failed. */
  sink_inserts: { count: number; seconds: number; failed: number } | null;
  order: { status: string; ms: number };
  /** Status of each readiness endpoint, or the error that replaced it. */
  ready: { query_api: string; pipeline: string; gateway: string };
  /** How long the gateway's /healthz took (no store, no upstream): the process's responsiveness. */
  gateway_healthz_ms: number;
  /** The npm start process's longest event-loop delay since the previous scrape; null if unread. */
  event_loop_lag_max_ms: number | null;
  /**
   * The same for the gateway's process (npm start runs it apart, scripts/start/gateway-process.ts),
   * from its /metrics; null if unread.
   */
  gateway_event_loop_lag_max_ms: number | null;
  /**
   * The gateway's store statements on the order path so far, by statement (its
   * trading_gateway_order_store_seconds), read after the probe's order was answered; null if unread.
   */
  order_store: HistogramTotals | null;
  /**
   * The desk's phases so far (trading_gateway_order_phase_seconds: history, checks, audit,
   * upstream), read with order_store; only the probes' orders reach the desk (the flood's keys are
   * refused before it), so a window's difference is its order's own breakdown.
   */
  order_phases: HistogramTotals | null;
  /** Descriptors open in the npm start process; null where /proc cannot be read. */
  fds: number | null;
}

interface Answer {
  status: string;
  ms: number;
  body: string;
}

async function call(url: string, init: RequestInit = {}): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    const body = await response.text();
    return { status: String(response.status), ms: Math.round(performance.now() - started), body };
  } catch (error) {
    const e = error as Error & { cause?: { code?: string } };
    const status = e.name === 'TimeoutError' ? 'TIMEOUT' : (e.cause?.code ?? e.name);
    return { status, ms: Math.round(performance.now() - started), body: '' };
  }
}

async function storedTicks(t: ProbeTargets): Promise<Pick<ProbeSample, 'stored_ticks' | 'stored_status'>> {
  const answer = await call(`${t.apiUrl}/v1/sql`, {
    method: 'POST',
    headers: { 'x-api-key': t.readKey, 'content-type': 'application/json' },
    body: JSON.stringify({ sql: `SELECT count() AS n FROM ${FEED_TABLES.ticks.name}` }),
  });
  const n =
    answer.status === '200'
      ? (JSON.parse(answer.body) as { data: { n: string | number }[] }).data[0]?.n
      : undefined;
  return { stored_ticks: n === undefined ? null : Number(n), stored_status: answer.status };
}

/** Sum of every series of `name` (all label values) in a Prometheus text page. */
function summed(page: string, name: string): number {
  let total = 0;
  for (const m of page.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))) total += Number(m[1]);
  return total;
}

async function sinkProgress(
  t: ProbeTargets,
): Promise<Pick<ProbeSample, 'sink_inserted' | 'sink_inserts' | 'event_loop_lag_max_ms'>> {
  const answer = await call(`${t.opsUrl}/metrics`);
  if (answer.status !== '200')
    return { sink_inserted: null, sink_inserts: null, event_loop_lag_max_ms: null };
  const lag = eventLoopLagMs(answer.body);
  const table = FEED_TABLES.ticks.name.replace(/\./g, '\\.');
  const match = new RegExp(`^sink_rows_inserted_total\\{table="${table}"\\} (\\S+)$`, 'm').exec(answer.body);
  return {
    event_loop_lag_max_ms: lag,
    sink_inserted: match ? Number(match[1]) : 0,
    sink_inserts: {
      count: summed(answer.body, 'sink_insert_seconds_count'),
      seconds: summed(answer.body, 'sink_insert_seconds_sum'),
      failed: summed(answer.body, 'sink_insert_failures_total'),
    },
  };
}

/** A process's longest event-loop delay since its previous scrape, from its /metrics page (ms). */
function eventLoopLagMs(page: string): number | null {
  const lag = /^feedpipe_nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(page)?.[1];
  return lag === undefined ? null : Math.round(Number(lag) * 1000);
}

async function gatewayLag(t: ProbeTargets): Promise<number | null> {
  const answer = await call(`${t.gatewayUrl}/metrics`);
  return answer.status === '200' ? eventLoopLagMs(answer.body) : null;
}

/** Per label of a histogram: how many were observed, and their seconds in all. */
export type HistogramTotals = Record<string, { count: number; seconds: number }>;

function histogramTotals(body: string, metric: string, label: string): HistogramTotals {
  const totals: HistogramTotals = {};
  const series = new RegExp(`^${metric}_(sum|count)\\{${label}="([a-z_]+)"\\} (\\S+)$`, 'gm');
  for (const [, kind, key, value] of body.matchAll(series)) {
    const entry = totals[key as string] ?? { count: 0, seconds: 0 };
    totals[key as string] = entry;
    if (kind === 'sum') entry.seconds = Number(value);
    else entry.count = Number(value);
  }
  return totals;
}

/** The order path's store statements and the desk's phases so far, from the gateway's /metrics. */
async function orderTotals(
  t: ProbeTargets,
): Promise<{ store: HistogramTotals; phases: HistogramTotals } | null> {
  const answer = await call(`${t.gatewayUrl}/metrics`);
  if (answer.status !== '200') return null;
  return {
    store: histogramTotals(answer.body, 'trading_gateway_order_store_seconds', 'statement'),
    phases: histogramTotals(answer.body, 'trading_gateway_order_phase_seconds', 'phase'),
  };
}

let orders = 0;

/** One real order with the trade key, a correlation id of its own each time. */
async function placeOrder(t: ProbeTargets): Promise<{ status: string; ms: number }> {
  orders += 1;
  const { status, ms } = await call(`${t.gatewayUrl}/v1/orders`, {
    method: 'POST',
    headers: { 'x-api-key': t.tradeKey, 'content-type': 'application/json' },
    body: JSON.stringify({ ...RESTING_ORDER, correlationId: `flood-probe-${process.pid}-${orders}` }),
  });
  return { status, ms };
}

function openDescriptors(pid: number): number | null {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return null;
  }
}

/** One sample: every probe at once, so a slow one does not delay the others. */
export async function sample(t: ProbeTargets, atS: number): Promise<ProbeSample> {
  const [stored, sink, [order, totals], queryApi, pipeline, gateway, gatewayLagMs] = await Promise.all([
    storedTicks(t),
    sinkProgress(t),
    placeOrder(t).then(async (placed) => [placed, await orderTotals(t)] as const),
    call(`${t.apiUrl}/readyz`),
    call(`${t.opsUrl}/readyz`),
    call(`${t.gatewayUrl}/healthz`),
    gatewayLag(t),
  ]);
  return {
    at_s: atS,
    ...stored,
    ...sink,
    order,
    ready: { query_api: queryApi.status, pipeline: pipeline.status, gateway: gateway.status },
    gateway_healthz_ms: gateway.ms,
    gateway_event_loop_lag_max_ms: gatewayLagMs,
    order_store: totals?.store ?? null,
    order_phases: totals?.phases ?? null,
    fds: openDescriptors(t.pid),
  };
}

/** The connection counters a service's /metrics reports (prefix `query_api_` or `trading_gateway_`). */
export async function connectionCounters(
  metricsUrl: string,
  prefix: string,
): Promise<Record<string, number> | null> {
  const answer = await call(metricsUrl);
  if (answer.status !== '200') return null;
  const out: Record<string, number> = {};
  for (const name of [
    'refused_total',
    'address_refused_total',
    'evicted_total',
    'idle_closed_total',
    'open',
  ]) {
    const match = new RegExp(`^${prefix}http_connections_${name} (\\S+)$`, 'm').exec(answer.body);
    if (match) out[name] = Number(match[1]);
  }
  return out;
}
