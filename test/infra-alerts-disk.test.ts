/**
 * The disk guard's alerts evaluated by Prometheus's own rule engine (`promtool test rules`) on the
 * shipped alerts.yml: StoreDiskLow fires a minute after the sink's or the loader's paused gauge goes
 * to 1 and not before; KafkaRetentionHeadroomLow fires after 5 minutes under 6 hours of headroom.
 * promtool is Debian's prometheus package (scripts/setup.mjs installs it); missing, this fails.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';

const root = join(import.meta.dirname, '..');
const scratch = mkdtempSync(join(tmpdir(), 'feedpipe-alert-tests-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const DISK_SUMMARY = (instance: string) =>
  `${instance}: writes to the store are paused, its disk is below STORE_MIN_FREE_*`;

const TESTS = {
  rule_files: [join(root, 'infra/prometheus/alerts.yml')],
  evaluation_interval: '30s',
  tests: [
    {
      interval: '30s',
      input_series: [
        { series: 'sink_store_writes_paused{instance="sink:9465",job="sink"}', values: '0 0 1x10' },
        {
          series: 'history_loader_store_writes_paused{instance="history-loader:9466",job="history-loader"}',
          values: '0x12',
        },
      ],
      alert_rule_test: [
        { eval_time: '90s', alertname: 'StoreDiskLow', exp_alerts: [] },
        {
          eval_time: '3m',
          alertname: 'StoreDiskLow',
          exp_alerts: [
            {
              exp_labels: { severity: 'critical', instance: 'sink:9465' },
              exp_annotations: {
                summary: DISK_SUMMARY('sink:9465'),
                runbook: 'docs/operations.md#storedisklow',
              },
            },
          ],
        },
      ],
    },
    {
      interval: '30s',
      input_series: [
        {
          series: 'history_loader_store_writes_paused{instance="history-loader:9466",job="history-loader"}',
          values: '1x10',
        },
      ],
      alert_rule_test: [
        {
          eval_time: '2m',
          alertname: 'StoreDiskLow',
          exp_alerts: [
            {
              exp_labels: { severity: 'critical', instance: 'history-loader:9466' },
              exp_annotations: {
                summary: DISK_SUMMARY('history-loader:9466'),
                runbook: 'docs/operations.md#storedisklow',
              },
            },
          ],
        },
      ],
    },
    {
      interval: '1m',
      input_series: [
        {
          series:
            'sink_kafka_retention_headroom_seconds{instance="sink:9465",job="sink",topic="feed.trades"}',
          values: '86000 86000 20000x20',
        },
      ],
      alert_rule_test: [
        { eval_time: '5m', alertname: 'KafkaRetentionHeadroomLow', exp_alerts: [] },
        {
          eval_time: '8m',
          alertname: 'KafkaRetentionHeadroomLow',
          exp_alerts: [
            {
              exp_labels: { severity: 'critical', topic: 'feed.trades' },
              exp_annotations: {
                summary: 'feed.trades: Kafka deletes records the sink has not stored in 5h 33m 20s',
                runbook: 'docs/operations.md#kafkaretentionheadroomlow',
              },
            },
          ],
        },
      ],
    },
  ],
};

describe('disk guard alerts under promtool test rules', () => {
  it('StoreDiskLow and KafkaRetentionHeadroomLow fire when, and only when, their conditions last', () => {
    const file = join(scratch, 'disk-alerts.test.yml');
    writeFileSync(file, stringify(TESTS));
    const result = spawnSync('promtool', ['test', 'rules', file], { encoding: 'utf8', timeout: 60_000 });
    if (result.error)
      throw new Error(
        `promtool could not run (${result.error.message}): install Debian's prometheus package`,
      );
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
    expect(`${result.stdout}`).toContain('SUCCESS');
  });
});
