/**
 * Brings a store's TTLs to a retention policy without rewriting data: only tables whose TTL differs
 * are altered, each with `materialize_ttl_after_modify = 0`, so the change is metadata: parts
 * written before it keep their rows until a merge or a whole-part drop applies the new TTL (a
 * shorter TTL frees space as parts age out, never in one burst that rewrites months of data).
 * `ttl_only_drop_parts = 1` (set by migration 009) makes that a drop of whole parts.
 *
 * Run at start by the process that owns the store's schema (the sink, `npm start`) and by
 * `feedpipe-store retention`; idempotent, so every start may run it. On a ClickHouse cluster the
 * market tables are Distributed over `<table>_local` (packages/contracts, cluster DDL): the TTL
 * belongs to the local tables, altered ON CLUSTER. (Only the embedded engine is tested here: no
 * server binary is available to the tests.)
 */
import { StoreError } from '../errors.js';
import type { StoreLane } from '../port.js';
import { RETENTION_RULES, type RetentionPolicy, type RetentionRule } from './retention-rules.js';

export interface RetentionChange {
  table: string;
  /** Days of the TTL found (0: none), or `other` for a TTL this package did not write. */
  from: number | 'other';
  /** Days now (0: none, kept forever). */
  to: number;
}

/** The TTL clause `applyRetention` writes, as ClickHouse prints it back in engine_full. */
const OUR_TTL = /^(\w+) \+ toIntervalDay\((\d+)\)$/;

/** The table's TTL in days (0: none), or `other` when it is not one of ours for this column. */
export function ttlDaysOf(engineFull: string, column: string): number | 'other' {
  const ttl = /\sTTL (.+?)(?: SETTINGS |$)/.exec(engineFull)?.[1];
  if (ttl === undefined) return 0;
  const ours = OUR_TTL.exec(ttl.trim());
  return ours && ours[1] === column ? Number(ours[2]) : 'other';
}

/** The statement that gives `target` (a table, with ON CLUSTER where needed) a TTL of `days`. */
export function retentionStatement(target: string, column: string, days: number): string {
  if (days === 0) return `ALTER TABLE ${target} REMOVE TTL`;
  return `ALTER TABLE ${target} MODIFY TTL ${column} + INTERVAL ${days} DAY SETTINGS materialize_ttl_after_modify = 0`;
}

function checkPolicy(policy: RetentionPolicy): void {
  const known = new Set(RETENTION_RULES.map((r) => r.table));
  for (const [table, days] of Object.entries(policy)) {
    if (!known.has(table)) {
      throw new StoreError(
        'STORE_CONFIG_INVALID',
        `retention names ${table}, which has no retention rule; allowed: ${[...known].join(', ')}`,
      );
    }
    if (!Number.isInteger(days) || days < 0) {
      throw new StoreError('STORE_CONFIG_INVALID', `retention of ${table} must be whole days >= 0`);
    }
  }
}

interface TableRow {
  engine: string;
  engine_full: string;
}

/** The table that holds the rows: itself, or its `_local` table (ON CLUSTER) behind a Distributed one. */
async function storageOf(lane: StoreLane, rule: RetentionRule): Promise<{ target: string; row: TableRow }> {
  const [database, name] = rule.table.split('.') as [string, string];
  const read = (table: string) =>
    lane.rows<TableRow>(
      'SELECT engine, engine_full FROM system.tables WHERE database = {db:String} AND name = {name:String}',
      { db: database, name: table },
    );
  const [row] = await read(name);
  if (!row) {
    throw new StoreError(
      'MIGRATION_FAILED',
      `retention: ${rule.table} does not exist; run the migrations first`,
    );
  }
  if (row.engine !== 'Distributed') return { target: rule.table, row };
  const [local] = await read(`${name}_local`);
  if (!local) {
    throw new StoreError(
      'MIGRATION_FAILED',
      `retention: ${rule.table} is Distributed but ${rule.table}_local is not on this node`,
    );
  }
  return { target: `${rule.table}_local ON CLUSTER '{cluster}'`, row: local };
}

/** Alters the tables whose TTL differs from `policy` (tables it does not name keep theirs). */
export async function applyRetention(lane: StoreLane, policy: RetentionPolicy): Promise<RetentionChange[]> {
  checkPolicy(policy);
  const changes: RetentionChange[] = [];
  for (const rule of RETENTION_RULES) {
    const days = policy[rule.table];
    if (days === undefined) continue;
    const { target, row } = await storageOf(lane, rule);
    const from = ttlDaysOf(row.engine_full, rule.column);
    if (from === days) continue;
    await lane.command(retentionStatement(target, rule.column, days));
    changes.push({ table: rule.table, from, to: days });
  }
  return changes;
}
