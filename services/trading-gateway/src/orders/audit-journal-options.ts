/** The audit journal's options (TradingGatewayConfig.auditJournal), checked once with their defaults. */
import { type OptionsSchema, readOptions } from '@feedpipe/config';
import { TradingGatewayError } from '../errors.js';
import type { AuditJournalOptions } from './audit-journal.js';

const SCHEMA = {
  /** A directory of its own on a persistent disk (the CLI and npm start: `$DATA_DIR/audit-journal`). */
  dir: { kind: 'string', required: true },
  /** Rows not yet in the store; past it new orders are refused (503 AUDIT_BACKLOG_FULL). ~1 KB a row. */
  maxRows: { kind: 'integer', min: 100, max: 10_000_000, default: 100_000 },
  /** Bytes of rows not yet in the store; past it new orders are refused. */
  maxBytes: { kind: 'integer', min: 1 << 20, max: 1 << 34, default: 256 << 20 },
  /** A journal file past this size is closed and a new one started. */
  fileBytes: { kind: 'integer', min: 1 << 16, max: 1 << 30, default: 8 << 20 },
  /** Rows per insert of the drain. */
  batchRows: { kind: 'integer', min: 1, max: 100_000, default: 1_000 },
} as const satisfies OptionsSchema;

export type AuditJournalConfig = Partial<AuditJournalOptions & { batchRows: number }> & { dir: string };
export type ResolvedAuditJournalConfig = AuditJournalOptions & { batchRows: number };

export function readAuditJournalOptions(given: AuditJournalConfig): ResolvedAuditJournalConfig {
  const values = readOptions(SCHEMA, given, {
    where: 'trading-gateway config.auditJournal',
    fail: (message) => new TradingGatewayError('CONFIG_INVALID', message),
  });
  if (values.dir.trim() === '') {
    throw new TradingGatewayError(
      'CONFIG_INVALID',
      'trading-gateway config.auditJournal: "dir" must not be empty',
    );
  }
  return values;
}
