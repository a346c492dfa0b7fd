/**
 * `trading_gateway_audit_journal_*`: what an operator asks of the audit journal first: how many
 * rows wait for the store and since when (the alert TradingGatewayAuditJournalBacklog reads the
 * age), how full it is against its limit, and what was drained, refused or failed. Read from the
 * journal's and the drain's counters at scrape time, so the order path counts nothing twice.
 */
import type { Registry } from 'prom-client';
import { GATEWAY_METRIC_PREFIX } from '../metrics.js';
import { scrapedCounter, scrapedGauge } from '../scraped-metrics.js';
import type { AuditDrainStats } from './audit-drain.js';
import type { AuditJournalStats } from './audit-journal.js';

const PREFIX = `${GATEWAY_METRIC_PREFIX}audit_journal_`;

/** What the metrics read at scrape time; undefined before a journal is open. */
export interface AuditJournalSource {
  journal(): AuditJournalStats;
  drain(): AuditDrainStats;
  readonly maxRows: number;
}

export function registerAuditJournalMetrics(
  registry: Registry,
  read: () => AuditJournalSource | undefined = () => undefined,
  now: () => number = Date.now,
): void {
  const level = (name: string, help: string, value: (s: AuditJournalSource) => number) =>
    scrapedGauge(registry, `${PREFIX}${name}`, help, value, read);
  const total = (name: string, help: string, value: (s: AuditJournalSource) => number) =>
    scrapedCounter(registry, `${PREFIX}${name}`, help, value, read);
  level('rows', 'Audit rows journaled and not yet in the store', (s) => s.journal().rows);
  level('bytes', 'Bytes of audit rows journaled and not yet in the store', (s) => s.journal().bytes);
  level(
    'max_rows',
    'The journal limit of rows not yet in the store (new orders refused past it)',
    (s) => s.maxRows,
  );
  level('oldest_age_seconds', 'Age of the oldest audit row not yet in the store (0: none waiting)', (s) => {
    const oldest = s.journal().oldestAtMs;
    return oldest === undefined ? 0 : Math.max(0, (now() - oldest) / 1_000);
  });
  total(
    'drained_rows_total',
    'Audit rows written from the journal to the store',
    (s) => s.drain().drainedRows,
  );
  total(
    'recovered_rows_total',
    "Audit rows read back at start from an earlier process's journal",
    (s) => s.journal().recovered,
  );
  total(
    'drain_failures_total',
    'Failed inserts of journaled audit rows (retried with backoff)',
    (s) => s.drain().failures,
  );
  total(
    'refused_total',
    'Orders refused because the audit journal was full (503 AUDIT_BACKLOG_FULL)',
    (s) => s.journal().refusedFull,
  );
  total(
    'write_failures_total',
    'Audit rows whose journal write or sync failed (disk full, I/O error; 503 AUDIT_JOURNAL_FAILED)',
    (s) => s.journal().failedWrites,
  );
}
