/**
 * Alerts reach a person: the real Prometheus and Alertmanager binaries, with the shipped alert rules
 * and Alertmanager configuration, scrape a running feed ingestor that reads the simulator's feed.
 *
 * - The simulator's feed server stops: IngestorNoOpenConnection (the real expression; the test copy
 *   of alerts.yml only shortens every `for` to FOR_S) reaches the on-call webhook within its `for`
 *   plus two scrape intervals of the stop. The feed server comes back on the same port: the
 *   ingestor reconnects and the resolved notification arrives.
 * - Inhibition, on the real inhibit rules: an IngestorNoData of an instance whose
 *   IngestorNoOpenConnection fires is never delivered, while the same alert of another instance is.
 *
 * The copies differ from the shipped files only where a test must be short: `for`, scrape and
 * evaluation intervals, Alertmanager's group timings, the scrape targets and the receivers' URLs
 * (this test's webhook receiver). Everything runs on 127.0.0.1; every wait is bounded; every process
 * is stopped at the end.
 */

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FeedServer, MarketModel, startFeedServer } from '@feedpipe/broker-sim';
import { prefixedTopics } from '@feedpipe/contracts';
import { createFeedIngestor, type FeedIngestor } from '@feedpipe/feed-ingestor';
import { type OpsServer, startOpsServer } from '@feedpipe/service-kit';
import { tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse, stringify } from 'yaml';
import {
  type Daemon,
  findBinary,
  freePort,
  type Notification,
  startDaemon,
  startWebhookReceiver,
  type WebhookReceiver,
} from './support/prometheus-stack.js';

const root = join(import.meta.dirname, '..');
const brokers = inject('kafkaBrokers');

/** Scrape interval, evaluation interval and the `for` of every rule in the test copy, in seconds. */
const SCRAPE_S = 5;
const EVALUATION_S = 1;
const FOR_S = 10;
const SIM_CLIENT = { clientId: '1000000001', token: 'sim-token-1000000001', authType: 2 as const };

const scratch = tempDir('alert-delivery');
let model: MarketModel;
let feedPort: number;
let feed: FeedServer | undefined;
let ingestor: FeedIngestor | undefined;
let ops: OpsServer | undefined;
let webhook: WebhookReceiver | undefined;
let alertmanager: Daemon | undefined;
let prometheus: Daemon | undefined;

/** alerts.yml with every non-zero `for` shortened to FOR_S; expressions, labels, annotations as shipped. */
function testRules(): string {
  const rules = parse(readFileSync(join(root, 'infra/prometheus/alerts.yml'), 'utf8')) as {
    groups: Array<{ rules: Array<{ for?: string }> }>;
  };
  for (const group of rules.groups) {
    for (const rule of group.rules) {
      if (rule.for !== undefined && rule.for !== '0m' && rule.for !== '0s') rule.for = `${FOR_S}s`;
    }
  }
  return stringify(rules);
}

interface Route {
  group_wait?: string;
  group_interval?: string;
  repeat_interval?: string;
  routes?: Route[];
}

/** alertmanager.yml with short group timings and the receivers pointed at `receiverUrl`. */
function testAlertmanagerConfig(receiverUrl: string): string {
  const config = parse(readFileSync(join(root, 'infra/alertmanager/alertmanager.yml'), 'utf8')) as {
    route: Route;
    receivers: Array<{ webhook_configs?: Array<{ url: string }> }>;
  };
  const shorten = (route: Route): void => {
    if (route.group_wait !== undefined || route === config.route) route.group_wait = '1s';
    if (route.group_interval !== undefined || route === config.route) route.group_interval = '2s';
    for (const child of route.routes ?? []) shorten(child);
  };
  shorten(config.route);
  for (const receiver of config.receivers) {
    for (const hook of receiver.webhook_configs ?? []) {
      hook.url = `${receiverUrl}${new URL(hook.url).pathname}`;
    }
  }
  return stringify(config);
}

/** prometheus.yml's global labels and alerting, scraping the test's ingestor. */
function testPrometheusConfig(ingestorTarget: string, alertmanagerTarget: string): string {
  const shipped = parse(readFileSync(join(root, 'infra/prometheus/prometheus.yml'), 'utf8')) as {
    global: Record<string, unknown>;
    alerting: { alertmanagers: Array<{ static_configs: Array<{ targets: string[] }> }> };
  };
  const alertmanagers = shipped.alerting.alertmanagers.map((a) => ({
    ...a,
    static_configs: [{ targets: [alertmanagerTarget] }],
  }));
  return stringify({
    global: { ...shipped.global, scrape_interval: `${SCRAPE_S}s`, evaluation_interval: `${EVALUATION_S}s` },
    rule_files: ['alerts.yml'],
    alerting: { alertmanagers },
    scrape_configs: [{ job_name: 'feed-ingestor', static_configs: [{ targets: [ingestorTarget] }] }],
  });
}

/** Notifications carrying an alert named `alertname` with `status`, optionally of one instance. */
function delivered(status: 'firing' | 'resolved', alertname: string, instance?: string): Notification[] {
  return (webhook?.notifications ?? []).filter((n) =>
    n.alerts.some(
      (a) =>
        a.status === status &&
        a.labels.alertname === alertname &&
        (instance === undefined || a.labels.instance === instance),
    ),
  );
}

async function promQuery(
  query: string,
): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
  const response = await fetch(`${prometheus?.url}/api/v1/query?query=${encodeURIComponent(query)}`);
  const body = (await response.json()) as {
    data?: { result?: Array<{ metric: Record<string, string>; value: [number, string] }> };
  };
  return body.data?.result ?? [];
}

function diagnosis(): string {
  const sent = (webhook?.notifications ?? []).map(
    (n) =>
      `${new Date(n.receivedAt).toISOString()} ${n.path} ${n.status} ${n.alerts.map((a) => `${a.labels.alertname}/${a.status}`).join(',')}`,
  );
  return `notifications:\n${sent.join('\n')}\nprometheus:\n${prometheus?.output().slice(-2_000)}\nalertmanager:\n${alertmanager?.output().slice(-2_000)}`;
}

async function startFeed(): Promise<FeedServer> {
  return startFeedServer({
    model,
    host: '127.0.0.1',
    port: feedPort,
    tradesPerSecond: 5,
    tickIntervalMs: 100,
  });
}

beforeAll(async () => {
  const prometheusBin = findBinary(['prometheus'], 'prometheus');
  const alertmanagerBin = findBinary(['alertmanager', 'prometheus-alertmanager'], 'prometheus-alertmanager');
  model = new MarketModel({ seed: 29, instruments: 200 });
  feedPort = await freePort();
  feed = await startFeed();
  const ids = model.universe
    .filter((i) => i.exchangeSegment === 'INX_EQ')
    .slice(0, 20)
    .map((i) => String(i.securityId));
  ingestor = createFeedIngestor(
    {
      feedUrl: feed.url,
      brokers,
      topics: prefixedTopics(uniqueName('alerts')),
      partitions: 1,
      connections: 2,
      instruments: { trade: ids },
      workers: 1,
    },
    {
      credentials: SIM_CLIENT,
      log: () => undefined,
    },
  );
  await ingestor.start();
  const running = ingestor;
  ops = await startOpsServer({
    registries: [running.registry],
    host: '127.0.0.1',
    port: 0,
    ready: () => ({ ready: true, detail: null }),
  });
  webhook = await startWebhookReceiver();

  const amDir = join(scratch, 'alertmanager');
  const promDir = join(scratch, 'prometheus');
  mkdirSync(amDir, { recursive: true });
  mkdirSync(promDir, { recursive: true });
  writeFileSync(join(amDir, 'alertmanager.yml'), testAlertmanagerConfig(webhook.url));
  const amPort = await freePort();
  alertmanager = await startDaemon(
    alertmanagerBin,
    [
      `--config.file=${join(amDir, 'alertmanager.yml')}`,
      `--storage.path=${join(amDir, 'data')}`,
      `--web.listen-address=127.0.0.1:${amPort}`,
      // No cluster: it would listen for gossip on every interface.
      '--cluster.listen-address=',
    ],
    amPort,
  );
  writeFileSync(join(promDir, 'alerts.yml'), testRules());
  const opsPort = new URL(ops.url).port;
  writeFileSync(
    join(promDir, 'prometheus.yml'),
    testPrometheusConfig(`127.0.0.1:${opsPort}`, `127.0.0.1:${amPort}`),
  );
  const promPort = await freePort();
  prometheus = await startDaemon(
    prometheusBin,
    [
      `--config.file=${join(promDir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(promDir, 'data')}`,
      `--web.listen-address=127.0.0.1:${promPort}`,
    ],
    promPort,
  );
}, 120_000);

afterAll(async () => {
  await prometheus?.stop();
  await alertmanager?.stop();
  await ops?.close().catch(() => undefined);
  await ingestor?.stop().catch(() => undefined);
  await feed?.close().catch(() => undefined);
  await webhook?.close();
  rmSync(scratch, { recursive: true, force: true });
}, 60_000);

describe('alert delivery through the real Prometheus and Alertmanager', () => {
  it('inhibition: IngestorNoData is held back while IngestorNoOpenConnection of its instance fires', async () => {
    const now = new Date();
    const until = new Date(now.getTime() + 5 * 60_000);
    const alert = (alertname: string, severity: string, instance: string) => ({
      labels: { alertname, severity, instance, job: 'feed-ingestor', deployment: 'feedpipe' },
      annotations: { summary: `${alertname} (sent by the test)` },
      startsAt: now.toISOString(),
      endsAt: until.toISOString(),
    });
    const response = await fetch(`${alertmanager?.url}/api/v2/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        alert('IngestorNoOpenConnection', 'critical', 'inhibited:9464'),
        alert('IngestorNoData', 'warning', 'inhibited:9464'),
        alert('IngestorNoData', 'warning', 'control:9464'),
      ]),
    });
    expect(response.status).toBe(200);
    await waitFor(
      () => delivered('firing', 'IngestorNoData', 'control:9464').length > 0,
      30_000,
      () => `the control IngestorNoData\n${diagnosis()}`,
      100,
    );
    await waitFor(
      () => delivered('firing', 'IngestorNoOpenConnection', 'inhibited:9464').length > 0,
      30_000,
      () => `the cause IngestorNoOpenConnection\n${diagnosis()}`,
      100,
    );
    // Both groups were due at once (same group_wait); give the held-back one two more group
    // intervals to show that it stays held back.
    await new Promise((r) => setTimeout(r, 4_000));
    expect(delivered('firing', 'IngestorNoData', 'inhibited:9464'), diagnosis()).toEqual([]);
    // Routed by severity: the cause to the on-call receiver, the warning to the team's.
    expect(delivered('firing', 'IngestorNoOpenConnection', 'inhibited:9464')[0]?.path).toBe('/oncall');
    expect(delivered('firing', 'IngestorNoData', 'control:9464')[0]?.path).toBe('/team');
  }, 90_000);

  it('feed upstream stopped: IngestorNoOpenConnection reaches the webhook within for + 2 scrapes; back: resolved', async () => {
    const instance = `127.0.0.1:${new URL(ops?.url ?? '').port}`;
    // Prometheus scrapes the ingestor and sees its open connections.
    await waitFor(
      async () => {
        const open = await promQuery(`sum(ingestor_connections{state="open", instance="${instance}"})`);
        return Number(open[0]?.value[1] ?? 0) >= 2;
      },
      60_000,
      () => `Prometheus to see 2 open connections\n${diagnosis()}`,
      500,
    );
    expect(delivered('firing', 'IngestorNoOpenConnection', instance)).toEqual([]);

    const stoppedAt = Date.now();
    await feed?.close();
    feed = undefined;
    const boundMs = (FOR_S + 2 * SCRAPE_S) * 1000;
    // Waits past the bound (bounded too), so that a late notification is measured, not just missed.
    await waitFor(
      () => delivered('firing', 'IngestorNoOpenConnection', instance).length > 0,
      boundMs + 30_000,
      () => `IngestorNoOpenConnection of ${instance}\n${diagnosis()}`,
      100,
    );
    const firing = delivered('firing', 'IngestorNoOpenConnection', instance)[0];
    const latencyMs = (firing?.receivedAt ?? 0) - stoppedAt;
    expect(latencyMs, `delivered ${latencyMs} ms after the stop\n${diagnosis()}`).toBeLessThanOrEqual(
      boundMs,
    );
    expect(firing?.path).toBe('/oncall');
    expect(firing?.receiver).toBe('oncall-webhook');
    const sent = firing?.alerts.find((a) => a.labels.alertname === 'IngestorNoOpenConnection');
    expect(sent?.labels.severity).toBe('critical');
    expect(sent?.labels.deployment).toBe('feedpipe');
    expect(sent?.annotations.runbook).toBe('docs/operations.md#ingestornoopenconnection');
    expect(sent?.annotations.summary).toContain(instance);

    feed = await startFeed();
    await waitFor(
      () => delivered('resolved', 'IngestorNoOpenConnection', instance).length > 0,
      120_000,
      () => `the resolved IngestorNoOpenConnection of ${instance}\n${diagnosis()}`,
      200,
    );
    expect(ingestor?.stats().connections.some((c) => c.state === 'open')).toBe(true);
    const resolved = delivered('resolved', 'IngestorNoOpenConnection', instance)[0];
    expect(resolved?.path).toBe('/oncall');
    expect(resolved?.receivedAt ?? 0).toBeGreaterThan(firing?.receivedAt ?? 0);
  }, 240_000);
});
