/**
 * The account at the close: positions, holdings, the fund limit, the day's ledger and the US
 * holdings and funds, read from the service once a day at `atIst` (IST wall clock) and kept in
 * market.account_snapshots (migration 012), one row per day and kind with the answer whole. The
 * service only answers "now", so a day not snapshotted at its close cannot be rebuilt later;
 * `take()` (POST /v1/account/snapshots) takes one at any time, and the latest of a day wins.
 * Each kind is read and stored on its own: one failing call leaves the others stored.
 */
import type { BrokerClient } from '@feedpipe/broker-api';
import { SERVICE_TABLES } from '@feedpipe/contracts';
import type { QueryParam, StoreLane } from '@feedpipe/store';
import { TradingGatewayError } from '../errors.js';
import type { FillMetrics } from './fill-metrics.js';
import { istDate } from './fill-record.js';

export const SNAPSHOT_KINDS = [
  'positions',
  'holdings',
  'funds',
  'ledger',
  'us_holdings',
  'us_funds',
] as const;
export type SnapshotKind = (typeof SNAPSHOT_KINDS)[number];

const TABLE = SERVICE_TABLES.accountSnapshots.name;
const IST_OFFSET_MS = 19_800_000;
const DAY_MS = 86_400_000;

export interface SnapshotOutcome {
  kind: SnapshotKind;
  outcome: 'stored' | 'failed';
  records: number;
  error?: string;
}

export interface StoredSnapshot {
  kind: SnapshotKind;
  snapshotDate: string;
  /** Epoch ms the gateway read it. */
  takenAt: number;
  records: number;
  /** The service's answer, with its field names. */
  data: unknown;
}

/** `HH:MM` of the IST day to ms after IST midnight; throws CONFIG_INVALID otherwise. */
export function parseIstClock(text: string, where: string): number {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  if (!m)
    throw new TradingGatewayError(
      'CONFIG_INVALID',
      `${where} must be HH:MM (IST, 00:00-23:59), got "${text}"`,
    );
  return (Number(m[1]) * 60 + Number(m[2])) * 60_000;
}

/** Ms from `now` to the next time the IST clock shows `offsetMs` after midnight. */
export function msUntilIst(now: number, offsetMs: number): number {
  const sinceIstMidnight = (((now + IST_OFFSET_MS) % DAY_MS) + DAY_MS) % DAY_MS;
  const wait = offsetMs - sinceIstMidnight;
  return wait > 0 ? wait : wait + DAY_MS;
}

export class AccountSnapshots {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(
    private readonly store: StoreLane,
    private readonly broker: BrokerClient,
    private readonly metrics: FillMetrics,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes a snapshot every day at `atMs` after IST midnight until `stop()`. */
  schedule(atMs: number): void {
    if (this.#stopped) return;
    // The next day's is scheduled once this one is taken; a stop meanwhile ends the schedule.
    const next = () => void this.take().finally(() => this.schedule(atMs));
    this.#timer = setTimeout(next, msUntilIst(this.now(), atMs));
    this.#timer.unref?.();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Reads every kind now and stores it under today's IST date. */
  async take(): Promise<{ snapshotDate: string; kinds: SnapshotOutcome[] }> {
    const at = this.now();
    const date = istDate(at);
    const reads: Record<SnapshotKind, () => Promise<unknown>> = {
      positions: () => this.broker.portfolio.positions(),
      holdings: () => this.broker.portfolio.holdings(),
      funds: () => this.broker.funds.fundLimit(),
      ledger: () => this.broker.edis.ledger(date, date),
      us_holdings: () => this.broker.globalStocks.holdings(),
      us_funds: () => this.broker.globalStocks.fundLimit(),
    };
    const kinds = await Promise.all(SNAPSHOT_KINDS.map((kind) => this.#takeOne(kind, reads[kind], date, at)));
    return { snapshotDate: date, kinds };
  }

  async #takeOne(
    kind: SnapshotKind,
    read: () => Promise<unknown>,
    date: string,
    at: number,
  ): Promise<SnapshotOutcome> {
    try {
      const data = await read();
      const records = Array.isArray(data) ? data.length : 1;
      const clientId = this.broker.clientId ?? '';
      await this.store.insertRows(TABLE, SERVICE_TABLES.accountSnapshots.columns, [
        [
          clientId,
          date,
          kind,
          new Date(at).toISOString().replace('T', ' ').replace('Z', ''),
          records,
          JSON.stringify(data),
        ],
      ]);
      this.metrics.snapshots.inc({ kind, outcome: 'stored' });
      return { kind, outcome: 'stored', records };
    } catch (error) {
      this.metrics.snapshots.inc({ kind, outcome: 'failed' });
      return {
        kind,
        outcome: 'failed',
        records: 0,
        error: error instanceof Error ? error.message : String(error),
      };
    }
  }

  /** The latest snapshot of each kind on `date` (or one kind). */
  async read(date: string, kind?: SnapshotKind): Promise<StoredSnapshot[]> {
    const params: Record<string, QueryParam> = { date, clientId: this.broker.clientId ?? '' };
    if (kind) params.kind = kind;
    let rows: { kind: SnapshotKind; taken_ms: number | string; records: number | string; payload: string }[];
    try {
      rows = await this.store.rows(
        `SELECT kind, toUnixTimestamp64Milli(taken_at) AS taken_ms, records, payload FROM ${TABLE} FINAL
          WHERE client_id = {clientId:String} AND snapshot_date = {date:Date}
            ${kind ? 'AND kind = {kind:String}' : ''}
          ORDER BY kind`,
        params,
      );
    } catch (error) {
      throw new TradingGatewayError('STORE_UNAVAILABLE', 'account snapshots cannot be read right now', {
        cause: error,
        retryable: true,
      });
    }
    return rows.map((r) => ({
      kind: r.kind,
      snapshotDate: date,
      takenAt: Number(r.taken_ms),
      records: Number(r.records),
      data: JSON.parse(r.payload) as unknown,
    }));
  }
}
