/**
 * Prometheus metrics of the postback receiver: its write-ahead log (what is acknowledged but not
 * yet stored, and since when), what it received and refused, what it stored, dead-lettered and
 * failed. Read from the receiver's counters at scrape time (nothing is counted twice on the hot
 * path). No label carries a secret, a URL or an order id.
 */
import { Counter, type Registry } from 'prom-client';
import { GATEWAY_METRIC_PREFIX } from '../metrics.js';
import { scrapedCounter, scrapedGauge } from '../scraped-metrics.js';
import type { PipelineStats } from './pipeline.js';
import type { RefusalCounters } from './receiver-routes.js';

/** `trading_gateway_postback_*`: the gateway's prefix, like every other metric of the gateway. */
const PREFIX = `${GATEWAY_METRIC_PREFIX}postback_`;

export interface ReceiverMetricsSource {
  readonly pipeline: PipelineStats;
  readonly refused: RefusalCounters;
}

type Read = () => ReceiverMetricsSource | undefined;
const gauge = scrapedGauge<ReceiverMetricsSource>;
const counter = scrapedCounter<ReceiverMetricsSource>;

/** Registers the receiver's metrics on `registry`; `read` answers undefined until a receiver runs. */
export function createReceiverMetrics(registry: Registry, read: Read = () => undefined): void {
  gauge(
    registry,
    `${PREFIX}wal_entries`,
    'Postbacks acknowledged (in the write-ahead log) and not yet stored',
    (s) => s.pipeline.wal.entries,
    read,
  );
  gauge(
    registry,
    `${PREFIX}wal_bytes`,
    'Bytes of the write-ahead log not yet stored',
    (s) => s.pipeline.wal.bytes,
    read,
  );
  gauge(
    registry,
    `${PREFIX}oldest_pending_seconds`,
    'Age of the oldest acknowledged postback not yet stored (0 when none)',
    (s) =>
      s.pipeline.oldestPendingMs === undefined
        ? 0
        : Math.max(0, (Date.now() - s.pipeline.oldestPendingMs) / 1000),
    read,
  );
  new Counter({
    name: `${PREFIX}requests_total`,
    help: 'Postbacks received, by outcome (accepted, duplicate, unauthenticated, source_refused, malformed, busy, wal_failed)',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      const s = read();
      this.reset();
      const outcomes: Record<string, number> = {
        accepted: s?.pipeline.accepted ?? 0,
        duplicate: s?.pipeline.duplicates ?? 0,
        unauthenticated: s?.refused.secret ?? 0,
        source_refused: s?.refused.source ?? 0,
        malformed: s?.refused.malformed ?? 0,
        busy: s?.refused.busy ?? 0,
        wal_failed: s?.refused.walFailed ?? 0,
      };
      for (const [outcome, n] of Object.entries(outcomes)) this.inc({ outcome }, n);
    },
  });
  counter(
    registry,
    `${PREFIX}stored_total`,
    'Order updates stored in ClickHouse (new rows)',
    (s) => s.pipeline.persisted,
    read,
  );
  counter(
    registry,
    `${PREFIX}dead_letters_total`,
    'Acknowledged postbacks that could not be stored and went to the dead-letter table',
    (s) => s.pipeline.deadLetters,
    read,
  );
  counter(
    registry,
    `${PREFIX}persist_errors_total`,
    'Failed attempts to write a batch to Kafka or ClickHouse (retried)',
    (s) => s.pipeline.persistErrors,
    read,
  );
  counter(
    registry,
    `${PREFIX}wal_failures_total`,
    'Write-ahead log writes or syncs that failed (their postbacks got 503)',
    (s) => s.pipeline.wal.failures,
    read,
  );
  counter(
    registry,
    `${PREFIX}replayed_total`,
    'Records replayed from the write-ahead log on start',
    (s) => s.pipeline.replayed,
    read,
  );
}
