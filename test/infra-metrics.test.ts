/**
 * The Grafana dashboard and the Prometheus alert rules only name metrics the services really export:
 * the real metric factories of each service fill real registries, and every name a PromQL expression
 * selects must be among them. Every service metric is also on the dashboard, so a new metric cannot
 * go unseen.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createTokenMetrics } from '../packages/credentials/src/token-metrics.js';
import { registerProcessMetrics } from '../packages/service-kit/src/index.js';
import { createIngestorMetrics } from '../services/feed-ingestor/src/ingestor-metrics.js';
import { createLeadershipMetrics } from '../services/feed-ingestor/src/leader/leadership-metrics.js';
import { createWalMetrics } from '../services/feed-ingestor/src/wal/wal-metrics.js';
import { createSinkMetrics } from '../services/feed-sink/src/sink-metrics.js';
import { instrumentMasterMetrics } from '../services/history-loader/src/instruments/instrument-metrics.js';
import { createLoaderMetrics } from '../services/history-loader/src/metrics.js';
import { createQuotePollerMetrics } from '../services/history-loader/src/quotes/quote-metrics.js';
import { createMetrics as createApiMetrics } from '../services/query-api/src/http/metrics.js';
import { createGatewayMetrics } from '../services/trading-gateway/src/metrics.js';
import { registerAuditJournalMetrics } from '../services/trading-gateway/src/orders/audit-journal-metrics.js';
import { createReceiverMetrics } from '../services/trading-gateway/src/postbacks/receiver-metrics.js';
import {
  type AlertRule,
  alertRulesOf,
  dashboardPanels,
  exposedNames,
  metricNamesOf,
} from './infra-promql.js';

const root = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** Series Prometheus itself writes for every target. */
const PROMETHEUS_SERIES = new Set(['up']);

/**
 * Series of the infrastructure's own exporters in the compose deployment, which the alerts on
 * Kafka's and ClickHouse's disks use. Kafka's are the names infra/kafka/jmx-exporter/kafka-broker.yml
 * gives (a `$1` stands for each alternative of the pattern's first group, lowercased as the file
 * asks). ClickHouse's are its asynchronous metrics on its Prometheus endpoint
 * (`ClickHouseAsyncMetrics_` + the name in system.asynchronous_metrics: DiskAvailable_<disk>,
 * DiskTotal_<disk>, the disk `default` being its data path). node-exporter's are its filesystem
 * collector's.
 */
function infrastructureSeries(): Set<string> {
  const jmx = parse(read('infra/kafka/jmx-exporter/kafka-broker.yml')) as {
    lowercaseOutputName?: boolean;
    rules: Array<{ pattern: string; name: string }>;
  };
  const kafka = jmx.rules.flatMap((rule) => {
    const alternatives = /\(([^()]+)\)/.exec(rule.pattern)?.[1]?.split('|') ?? [];
    const names = rule.name.includes('$1')
      ? alternatives.map((a) => rule.name.replace('$1', a))
      : [rule.name];
    return names.map((name) => (jmx.lowercaseOutputName ? name.toLowerCase() : name));
  });
  return new Set([
    ...kafka,
    'ClickHouseAsyncMetrics_DiskAvailable_default',
    'ClickHouseAsyncMetrics_DiskTotal_default',
    'node_filesystem_avail_bytes',
    'node_filesystem_size_bytes',
  ]);
}

interface ServiceMetrics {
  service: string;
  /** Names as exposed on /metrics (histograms with _bucket, _sum, _count). */
  exposed: Set<string>;
  /** Metrics the service defines itself (not prom-client's default process metrics), with their series. */
  own: Array<{ name: string; series: string[] }>;
}

function withFactory(fill: (registry: Registry) => unknown): Registry {
  const registry = new Registry();
  fill(registry);
  return registry;
}

async function serviceMetrics(): Promise<ServiceMetrics[]> {
  const registries: Array<[string, Registry]> = [
    // Each CLI adds the process metrics (named alike in every process); `npm start` once.
    [
      'feed-ingestor run',
      withFactory((r) => [
        createIngestorMetrics(r),
        createWalMetrics(r),
        createLeadershipMetrics(r),
        registerProcessMetrics(r),
      ]),
    ],
    ['feed-sink run', withFactory((r) => [createSinkMetrics(r), registerProcessMetrics(r)])],
    [
      'history-loader',
      withFactory((r) => [
        createLoaderMetrics(r),
        instrumentMasterMetrics(r),
        createQuotePollerMetrics(r),
        registerProcessMetrics(r),
      ]),
    ],
    ['npm start', withFactory((r) => registerProcessMetrics(r))],
    // The API keeps its own registry, with prom-client's default metrics under its prefix.
    ['query-api', createApiMetrics(true).registry],
    // The gateway likewise, under its own prefix; its postback receiver registers on that registry.
    ['trading-gateway', createGatewayMetrics(true).registry],
    ['trading-gateway postbacks', withFactory((registry) => createReceiverMetrics(registry))],
    ['trading-gateway audit journal', withFactory((registry) => registerAuditJournalMetrics(registry))],
    // Every process that talks to the service registers the token's metrics beside its own.
    [
      'credentials',
      withFactory((registry) =>
        createTokenMetrics(registry, 'totp', { expiresAt: () => Date.now() + 60_000, renewable: () => true }),
      ),
    ],
  ];
  return Promise.all(
    registries.map(async ([service, registry]) => {
      const metrics = (await registry.getMetricsAsJSON()).map((m) => ({
        name: m.name,
        series: exposedNames({ name: m.name, type: String(m.type) }),
      }));
      return {
        service,
        exposed: new Set(metrics.flatMap((m) => m.series)),
        own: metrics.filter(
          (m) =>
            !/^(query_api|trading_gateway|ingestor|sink|history_loader|feedpipe)_(process|nodejs)_/.test(
              m.name,
            ),
        ),
      };
    }),
  );
}

interface Expression {
  where: string;
  expr: string;
}

function dashboardExpressions(): Expression[] {
  return dashboardPanels(read('infra/grafana/dashboards/feedpipe.json')).flatMap((panel) =>
    panel.exprs.map((expr) => ({ where: `panel "${panel.title}"`, expr })),
  );
}

function alertRules(): AlertRule[] {
  return alertRulesOf(read('infra/prometheus/alerts.yml'));
}

describe('metricNamesOf', () => {
  it('finds selected metrics and skips functions, labels, ranges, grouping and numbers', () => {
    expect(
      metricNamesOf(
        'histogram_quantile(0.99, sum by (instance, le) (rate(a_seconds_bucket{job=~"x|y", le!="1"}[$__rate_interval]))) > 1e6',
      ),
    ).toEqual(['a_seconds_bucket']);
    expect(
      metricNamesOf(
        'sum(rate(a_total[5m])) / on (instance) group_left sum without (code) (b_total offset 5m)',
      ),
    ).toEqual(['a_total', 'b_total']);
    expect(metricNamesOf('count(up{job="sink"} == 0) or vector(0)')).toEqual(['up']);
    expect(metricNamesOf('deriv(max by (topic) (lag_gauge)[15m:1m]) > 1000 and bare_metric')).toEqual([
      'lag_gauge',
      'bare_metric',
    ]);
  });
});

describe('dashboard and alerts against the exported metrics', () => {
  it('every metric the Grafana dashboard queries is exported by a service or by Kafka’s and ClickHouse’s exporters', async () => {
    const exported = new Set([
      ...(await serviceMetrics()).flatMap((s) => [...s.exposed]),
      ...infrastructureSeries(),
    ]);
    const expressions = dashboardExpressions();
    expect(expressions.length).toBeGreaterThan(30);
    const unknown = expressions.flatMap(({ where, expr }) =>
      metricNamesOf(expr)
        .filter((name) => !exported.has(name) && !PROMETHEUS_SERIES.has(name))
        .map((name) => `${name} (${where})`),
    );
    expect(unknown).toEqual([]);
  });

  it('every metric an alert rule uses is exported by a service or by Kafka’s and ClickHouse’s exporters', async () => {
    const exported = new Set([
      ...(await serviceMetrics()).flatMap((s) => [...s.exposed]),
      ...infrastructureSeries(),
    ]);
    const rules = alertRules();
    expect(rules.length).toBeGreaterThan(10);
    const unknown = rules.flatMap((rule) =>
      metricNamesOf(rule.expr)
        .filter((name) => !exported.has(name) && !PROMETHEUS_SERIES.has(name))
        .map((name) => `${name} (alert ${rule.alert})`),
    );
    expect(unknown).toEqual([]);
  });

  it('every metric a service defines is on the dashboard', async () => {
    const used = new Set(dashboardExpressions().flatMap(({ expr }) => metricNamesOf(expr)));
    const missing = (await serviceMetrics()).flatMap(({ service, own }) =>
      own.filter((m) => !m.series.some((s) => used.has(s))).map((m) => `${m.name} (${service})`),
    );
    expect(missing).toEqual([]);
  });

  it('the dashboard has a section per part of the pipeline and uses the provisioned data source', () => {
    const dashboard = JSON.parse(read('infra/grafana/dashboards/feedpipe.json')) as {
      panels: Array<{ type: string; title: string; datasource?: { uid?: string } }>;
    };
    const rows = dashboard.panels.filter((p) => p.type === 'row').map((p) => p.title);
    expect(rows).toEqual(
      expect.arrayContaining([
        'Feed',
        'Kafka',
        'Sink',
        'History loader',
        'Query API',
        'Trading gateway',
        'Kafka and ClickHouse',
      ]),
    );
    const provisioned = parse(read('infra/grafana/provisioning/datasources/prometheus.yml')) as {
      datasources: Array<{ uid: string; type: string }>;
    };
    const uids = new Set(provisioned.datasources.map((d) => d.uid));
    const foreign = dashboard.panels
      .filter((p) => p.type !== 'row' && !uids.has(p.datasource?.uid ?? ''))
      .map((p) => p.title);
    expect(foreign).toEqual([]);
  });

  it('the Kafka exporter rules export the series the alerts name, and each job an alert selects is scraped', () => {
    expect([...infrastructureSeries()]).toEqual(
      expect.arrayContaining([
        'kafka_log_manager_offline_log_directory_count',
        'kafka_server_replica_manager_underreplicatedpartitions',
        'kafka_server_broker_topic_messagesinpersec_total',
      ]),
    );
    const prometheus = parse(read('infra/prometheus/prometheus.yml')) as {
      scrape_configs: Array<{ job_name: string }>;
    };
    const jobs = new Set(prometheus.scrape_configs.map((c) => c.job_name));
    const selected = alertRules().flatMap((rule) =>
      [...rule.expr.matchAll(/job=~?"([^"]+)"/g)].flatMap((m) => (m[1] ?? '').split('|')),
    );
    expect(selected.filter((job) => !jobs.has(job))).toEqual([]);
  });

  it('every alert has a section in docs/operations.md and a runbook link to it', () => {
    const operations = read('docs/operations.md');
    const headings = new Set(
      [...operations.matchAll(/^#{2,4} +(\S+)\s*$/gm)].map((m) => (m[1] ?? '').toLowerCase()),
    );
    const problems = alertRules().flatMap((rule) => {
      const anchor = rule.alert.toLowerCase();
      const out: string[] = [];
      if (!headings.has(anchor)) out.push(`${rule.alert}: no "### ${rule.alert}" heading`);
      if (rule.annotations?.runbook !== `docs/operations.md#${anchor}`)
        out.push(`${rule.alert}: runbook link`);
      return out;
    });
    expect(problems).toEqual([]);
  });
});
