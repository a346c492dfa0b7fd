/**
 * Checkpoints in market.load_units: what earlier runs loaded, and which planned units are still to
 * do. A unit counts as loaded when a 'done' row of the same series covers its window (windows sit
 * on a fixed grid, but the first one of a range moves with "today"); 'failed' units (permanent
 * errors) are skipped; 'partial' and 'retry' units are planned again.
 */

import { HISTORY_TABLES } from '@feedpipe/contracts';
import type { StoreLane } from '@feedpipe/store';
import { seriesKey, unitKey, type WorkUnit } from './units.js';

export type UnitStatus = 'done' | 'partial' | 'failed' | 'retry';

export const LOAD_UNITS_TABLE = HISTORY_TABLES.loadUnits.name;
export const LOAD_UNITS_COLUMNS = HISTORY_TABLES.loadUnits.columns;

export interface StoredUnit {
  kind: string;
  securityId: number;
  segment: string;
  interval: number;
  variant: string;
  fromS: number;
  toS: number;
  status: UnitStatus;
  attempts: number;
}

interface StoredRow {
  kind: string;
  security_id: number | string;
  segment: string;
  interval: number | string;
  variant: string;
  f: number | string;
  t: number | string;
  status: UnitStatus;
  attempts: number | string;
}

export async function readCheckpoints(store: StoreLane): Promise<StoredUnit[]> {
  const rows = await store.rows<StoredRow>(
    `SELECT kind, security_id, segment, interval, variant, toUInt32(window_from) AS f,
       toUInt32(window_to) AS t, status, attempts
     FROM ${LOAD_UNITS_TABLE} FINAL`,
  );
  return rows.map((r) => ({
    kind: r.kind,
    securityId: Number(r.security_id),
    segment: r.segment,
    interval: Number(r.interval),
    variant: r.variant,
    fromS: Number(r.f),
    toS: Number(r.t),
    status: r.status,
    attempts: Number(r.attempts),
  }));
}

export interface PlanFilter {
  todo: WorkUnit[];
  /** Already loaded (a 'done' row covers them). */
  skippedDone: number;
  /** Recorded as permanently failed. */
  skippedFailed: number;
}

/** What earlier runs did, indexed for the planner. */
export class CheckpointIndex {
  readonly #done = new Map<string, Array<[number, number]>>();
  readonly #byKey = new Map<string, StoredUnit>();

  constructor(stored: readonly StoredUnit[]) {
    for (const s of stored) {
      this.#byKey.set(unitKey(s), s);
      if (s.status !== 'done') continue;
      const key = seriesKey(s);
      const list = this.#done.get(key) ?? [];
      list.push([s.fromS, s.toS]);
      this.#done.set(key, list);
    }
  }

  isLoaded(u: WorkUnit): boolean {
    const windows = this.#done.get(seriesKey(u));
    return windows?.some(([f, t]) => f <= u.fromS && t >= u.toS) ?? false;
  }

  stored(u: WorkUnit): StoredUnit | undefined {
    return this.#byKey.get(unitKey(u));
  }

  /**
   * The unit without the days 'done' rows of its series already cover from its start: the window
   * that grows with each new day (the grid's last) is then asked only for the days after the last
   * run's, instead of all of it again. Bounded: each step moves the start past one stored window.
   */
  trimmed(u: WorkUnit): WorkUnit {
    const windows = this.#done.get(seriesKey(u));
    if (windows === undefined) return u;
    let fromS = u.fromS;
    for (let step = 0; step <= windows.length; step++) {
      const next = windows.find(([f, t]) => f <= fromS && t > fromS);
      if (next === undefined) break;
      fromS = next[1];
    }
    return fromS === u.fromS ? u : { ...u, fromS: Math.min(fromS, u.toS) };
  }

  /**
   * Drops loaded and failed units; carries the attempts of units to retry. With `incremental`
   * (the scheduled loader), a unit partly loaded by earlier runs keeps only its new days.
   */
  filter(input: readonly WorkUnit[], incremental = false): PlanFilter {
    const out: PlanFilter = { todo: [], skippedDone: 0, skippedFailed: 0 };
    const units = incremental ? input.map((u) => this.trimmed(u)) : input;
    for (const u of units) {
      if (u.fromS >= u.toS || this.isLoaded(u)) {
        out.skippedDone++;
        continue;
      }
      const s = this.stored(u);
      if (s?.status === 'failed') {
        out.skippedFailed++;
        continue;
      }
      out.todo.push(s === undefined ? u : { ...u, priorAttempts: s.attempts });
    }
    return out;
  }
}

export function checkpointRow(
  u: WorkUnit,
  status: UnitStatus,
  rows: number,
  attempts: number,
  error: string,
  runId: string,
  nowMs: number,
): unknown[] {
  return [
    u.kind,
    u.securityId,
    u.segment,
    u.interval,
    u.variant,
    u.fromS,
    u.toS,
    status,
    rows,
    u.priorAttempts + attempts,
    attempts,
    error.slice(0, 500),
    runId,
    nowMs,
  ];
}
