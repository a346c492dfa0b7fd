/**
 * What an operator does with a running `npm start` (issue #33 items 4 and 5), on one run of it.
 *
 * The dashboard and the alerts (item 4): every metric a
 * panel's or an alert's query names is exported by one of the `/metrics` endpoints `npm start`
 * prints (pipeline, query API, gateway, and its local broker's JMX exporter, as in compose), read
 * from those endpoints, not from the code; and every panel has a query that `npm start` answers
 * whole, so no panel is empty under it. The compose deployment's own names (one process per
 * service, the same names, told apart by `job`) are held by test/infra-metrics.test.ts.
 *
 * Outside `npm start` stay only the series of processes it does not run: a ClickHouse server's
 * asynchronous metrics and node-exporter's file systems (compose's volumes), named below.
 *
 * Replay (item 5): the feed `npm start` captured (CAPTURE_FILE) goes back into Kafka through
 * `npx feed-ingestor replay` at 10x, into a scratch topic, and nothing is stored twice.
 *
 * Subscriptions while running (item 6): an instrument of the simulator that `npm start` did not
 * subscribe is added through the ingestor's ops route with the key the banner prints, and its
 * trades are stored within seconds.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_FEED_TOPICS, FEED_TABLES } from '@feedpipe/contracts';
import { readTopic, tempDir, waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertRulesOf, dashboardPanels, exposedNames, metricNamesOf } from './infra-promql.js';
import { type RunningStart, startNpmStart } from './npm-start/running-start.js';
import { runNode } from './support/run-command.js';

const root = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** Prometheus writes `up` for every target it scrapes, `npm start`'s endpoints included. */
const PROMETHEUS_SERIES = new Set(['up']);

/**
 * Series of processes only compose runs: `npm start` embeds chDB (no ClickHouse server, so no
 * ClickHouseAsyncMetrics_*) and mounts no volumes (node-exporter's filesystem collector watches
 * compose's Kafka and ClickHouse volumes). Its store's disk is the sink's `sink_store_free_*`.
 */
const COMPOSE_ONLY = new Set([
  'ClickHouseAsyncMetrics_DiskAvailable_default',
  'ClickHouseAsyncMetrics_DiskTotal_default',
  'node_filesystem_avail_bytes',
  'node_filesystem_size_bytes',
]);

let start: RunningStart | undefined;
const capture = join(tempDir('npm-start-capture'), 'feed.cap');
/** Names the endpoints declare (`# TYPE`), as series: histograms with _bucket, _sum and _count. */
const exported = new Set<string>();

beforeAll(async () => {
  // The history load on (its default), so the loader's metrics are there, kept short.
  // 2,000 instruments: enough feed for the capture writer's first 1 MiB within seconds.
  start = await startNpmStart({
    HISTORY_LOAD: 'on',
    HISTORY_MAX_SECONDS: '10',
    CAPTURE_FILE: capture,
    DEMO_INSTRUMENTS: '2000',
  });
  expect(start.metricsUrls.length, start.banner).toBe(4);
  for (const url of start.metricsUrls) {
    const response = await fetch(url);
    expect(response.status, url).toBe(200);
    const text = await response.text();
    for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm))
      for (const name of exposedNames({ name: m[1] as string, type: m[2] as string })) exported.add(name);
  }
}, 600_000);

afterAll(async () => {
  await start?.stop();
}, 90_000);

const answered = (name: string) => exported.has(name) || PROMETHEUS_SERIES.has(name);

describe('the dashboard and the alerts under npm start', () => {
  it('name only metrics that npm start exports (or, for compose’s own processes, the listed ones)', () => {
    const panels = dashboardPanels(read('infra/grafana/dashboards/feedpipe.json'));
    const rules = alertRulesOf(read('infra/prometheus/alerts.yml'));
    expect(panels.length).toBeGreaterThan(40);
    expect(rules.length).toBeGreaterThan(20);
    const queries = [
      ...panels.flatMap((p) => p.exprs.map((expr) => ({ where: `panel "${p.title}"`, expr }))),
      ...rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr })),
    ];
    const missing = queries.flatMap(({ where, expr }) =>
      metricNamesOf(expr)
        .filter((name) => !answered(name) && !COMPOSE_ONLY.has(name))
        .map((name) => `${name} (${where})`),
    );
    expect(missing).toEqual([]);
    // Every exception is still used, and still not exported: the list cannot go stale.
    const used = new Set(queries.flatMap(({ expr }) => metricNamesOf(expr)));
    for (const name of COMPOSE_ONLY) {
      expect(used.has(name), name).toBe(true);
      expect(exported.has(name), name).toBe(false);
    }
  });

  it('give every panel a query npm start answers whole', () => {
    const panels = dashboardPanels(read('infra/grafana/dashboards/feedpipe.json'));
    const empty = panels
      .filter((p) => !p.exprs.some((expr) => metricNamesOf(expr).every(answered)))
      .map((p) => p.title);
    expect(empty).toEqual([]);
  });

  it('read the process metrics under one name in every process, the Kafka broker’s through its exporter', () => {
    for (const name of [
      'feedpipe_process_resident_memory_bytes',
      'feedpipe_nodejs_heap_size_used_bytes',
      'feedpipe_nodejs_eventloop_lag_p99_seconds',
      'kafka_server_replica_manager_underreplicatedpartitions',
      'history_loader_requests_total',
      'trading_gateway_http_requests_total',
    ])
      expect(exported.has(name), name).toBe(true);
  });
});

/** A SQL query through the query API with the read key: the first row. */
async function sqlRow(sql: string): Promise<Record<string, number>> {
  const running = start as RunningStart;
  const response = await fetch(`${running.apiUrl}/v1/sql`, {
    method: 'POST',
    headers: { 'x-api-key': running.readKey, 'content-type': 'application/json' },
    body: JSON.stringify({ sql }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  const body = (await response.json()) as { data: Array<Record<string, number>> };
  return body.data[0] ?? {};
}

describe("replaying npm start's capture", () => {
  it('goes into a scratch topic at 10x and stores nothing twice', async () => {
    const running = start as RunningStart;
    // Some seconds of the live feed in the capture (written a MiB at a time).
    await waitFor(() => (statSync(capture, { throwIfNoEntry: false })?.size ?? 0) > 0, 120_000, 'a capture');
    const replay = await runNode(
      [
        'services/feed-ingestor/bin/feed-ingestor.mjs',
        'replay',
        capture,
        '--speed',
        '10x',
        '--topic-prefix',
        'scratch.',
      ],
      { KAFKA_BROKERS: running.brokers.join(',') },
    );
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stderr).toMatch(/replay: \d+ records in .* \(done\)/);
    const result = JSON.parse(replay.stdout) as {
      topics: { trades: string };
      produced: number;
      producedByKind: { trades: number };
    };
    expect(result.topics.trades).toBe(`scratch.${DEFAULT_FEED_TOPICS.trades}`);
    expect(result.producedByKind.trades).toBeGreaterThan(0);
    expect((await readTopic(running.brokers, result.topics.trades)).length).toBeGreaterThanOrEqual(
      result.producedByKind.trades,
    );
    // The live sink reads the live topics only: every stored trade is there once.
    const row = await sqlRow(
      `SELECT count() AS n, uniqExact(security_id, received_at, volume, ltt) AS u FROM ${FEED_TABLES.ticks.name}`,
    );
    expect(Number(row.n)).toBeGreaterThan(0);
    expect(Number(row.n)).toBe(Number(row.u));
  });
});

describe("npm start's subscriptions while running", () => {
  it('add an instrument through the ops route, and its trades are stored within seconds', async () => {
    const running = start as RunningStart;
    const { url, key } = running.subscriptions;
    // The simulator's last INX_EQ instrument: npm start subscribes its first DEMO_INSTRUMENTS.
    const { id } = await sqlRow(
      "SELECT max(security_id) AS id FROM market.instruments WHERE exchange_segment = 'INX_EQ' AND valid_to IS NULL",
    );
    expect(Number(id)).toBeGreaterThan(0);
    const before = await sqlRow(
      `SELECT count() AS n FROM ${FEED_TABLES.ticks.name} WHERE security_id = ${Number(id)}`,
    );
    expect(Number(before.n)).toBe(0);
    const refused = await fetch(url, { method: 'POST', body: JSON.stringify({ add: [Number(id)] }) });
    expect(refused.status).toBe(401);
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'trade', add: [Number(id)] }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(((await response.json()) as { added: string[] }).added).toEqual([String(id)]);
    await waitFor(
      async () =>
        Number(
          (
            await sqlRow(
              `SELECT count() AS n FROM ${FEED_TABLES.ticks.name} WHERE security_id = ${Number(id)}`,
            )
          ).n,
        ) > 0,
      30_000,
      'a stored trade of the instrument added while running',
    );
  });
});
