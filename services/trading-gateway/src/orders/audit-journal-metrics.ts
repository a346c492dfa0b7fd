/**
 * `trading_gateway_audit_journal_*`: what an operator asks of the audit journal first: how many
 * rows wait for the store and since when (the alert TradingGatewayAuditJournalBacklog reads the
 * age), how full it is against its limit, and what was drained, refused or failed. Read from the
 * journal's and the drain's counters at scrape time, so the order path counts nothing twice.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { GATEWAY_METRIC_PREFIX } from '../metrics.js';
import type { AuditDrain } from './audit-drain.js';
import type { AuditJournal } from './audit-journal.js';

const PREFIX = `${GATEWAY_METRIC_PREFIX}audit_journal_`;

export function registerAuditJournalMetrics(
  registry: Registry,
  journal: AuditJournal,
  drain: AuditDrain,
  limits: { maxRows: number },
  now: () => number,
): void {
  const level = (name: string, help: string, value: () => number) =>
    new Gauge({
      name: `${PREFIX}${name}`,
      help,
      registers: [registry],
      collect() {
        this.set(value());
      },
    });
  const total = (name: string, help: string, value: () => number) =>
    new Counter({
      name: `${PREFIX}${name}`,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(value());
      },
    });
  level('rows', 'Audit rows journaled and not yet in the store', () => journal.stats().rows);
  level('bytes', 'Bytes of audit rows journaled and not yet in the store', () => journal.stats().bytes);
  level(
    'max_rows',
    'The journal limit of rows not yet in the store (new orders refused past it)',
    () => limits.maxRows,
  );
  level('oldest_age_seconds', 'Age of the oldest audit row not yet in the store (0: none waiting)', () => {
    const oldest = journal.stats().oldestAtMs;
    return oldest === undefined ? 0 : Math.max(0, (now() - oldest) / 1_000);
  });
  total(
    'drained_rows_total',
    'Audit rows written from the journal to the store',
    () => drain.stats().drainedRows,
  );
  total(
    'recovered_rows_total',
    "Audit rows read back at start from an earlier process's journal",
    () => journal.stats().recovered,
  );
  total(
    'drain_failures_total',
    'Failed inserts of journaled audit rows (retried with backoff)',
    () => drain.stats().failures,
  );
  total(
    'refused_total',
    'Orders refused because the audit journal was full (503 AUDIT_BACKLOG_FULL)',
    () => journal.stats().refusedFull,
  );
  total(
    'write_failures_total',
    'Audit rows whose journal write or sync failed (disk full, I/O error; 503 AUDIT_JOURNAL_FAILED)',
    () => journal.stats().failedWrites,
  );
}
