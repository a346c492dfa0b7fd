/**
 * The order audit trail in market.order_audit: a 'request' row before the service is called and an
 * 'outcome' row after (see migration 004). The request row is durable before the order is sent, so
 * an order never leaves without a trace; if it cannot be written, the order is not sent.
 *
 * With a journal (audit-journal.ts, the gateway's default under its CLI and npm start) "durable"
 * means synced to the journal's file, and the rows reach the store behind the answer
 * (audit-drain.ts): no store statement is left on a new order's answer path. Until drained, the
 * journal is the source of truth: a retry's history adds the journal's rows of its correlationId to
 * the store's, and a read of the trail first waits for the rows journaled before it. Without a
 * journal each row is inserted into the store before the order goes on.
 */
import { SERVICE_TABLES } from '@feedpipe/contracts';
import type { StoreLane } from '@feedpipe/store';
import { TradingGatewayError } from '../errors.js';
import { type AuditTarget, auditIdentity } from './audit-drain.js';
import type { AuditJournal, JournaledRow } from './audit-journal.js';
import { CorrelationIndex } from './correlation-index.js';

export type AuditOutcome = '' | 'accepted' | 'rejected' | 'refused' | 'unknown' | 'replayed';

export interface AuditRow {
  requestId: string;
  phase: 'request' | 'outcome';
  keyId: string;
  action: string;
  correlationId: string;
  orderId?: string;
  securityId?: string;
  exchangeSegment?: string;
  transactionType?: string;
  quantity?: number;
  price?: number;
  request: unknown;
  outcome: AuditOutcome;
  httpStatus?: number;
  orderStatus?: string;
  errorCode?: string;
  errorMessage?: string;
  response?: unknown;
  latencyMs?: number;
}

export interface LastAudit {
  phase: 'request' | 'outcome';
  outcome: AuditOutcome;
  action: string;
  orderId: string;
  response: unknown;
}

export interface CorrelationHistory {
  /** The newest row of the asking key, if it has one. */
  last: LastAudit | undefined;
  /** Another key has sent an order with this correlationId. */
  otherKeys: boolean;
}

const AUDIT_TABLE = SERVICE_TABLES.orderAudit.name;
const COLUMNS = SERVICE_TABLES.orderAudit.columns;

function toDateTime64(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** Outcomes that follow a request row of the same request: their order may exist. */
const AFTER_SENDING: ReadonlySet<AuditOutcome> = new Set(['accepted', 'rejected', 'unknown']);
/** How long a read of the trail waits for the rows journaled before it to be drained. */
const READ_WAIT_MS = 5_000;

function columnsOf({ atMs, row }: JournaledRow): unknown[] {
  return [
    toDateTime64(atMs),
    row.requestId,
    row.phase,
    row.keyId,
    row.action,
    row.correlationId,
    row.orderId ?? '',
    row.securityId ?? '',
    row.exchangeSegment ?? '',
    row.transactionType ?? '',
    row.quantity ?? 0,
    row.price ?? 0,
    JSON.stringify(row.request ?? null),
    row.outcome,
    row.httpStatus ?? 0,
    row.orderStatus ?? '',
    row.errorCode ?? '',
    (row.errorMessage ?? '').slice(0, 2_000),
    row.response === undefined ? '' : JSON.stringify(row.response),
    Math.max(0, Math.round(row.latencyMs ?? 0)),
  ];
}

/** Where the audit drain writes: one insert per batch, and the lookup that keeps recovered rows once. */
export function storedAuditRows(store: StoreLane): AuditTarget {
  return {
    insert: (rows) => store.insertRows(AUDIT_TABLE, COLUMNS, rows.map(columnsOf)),
    async storedIdentities(rows) {
      const found = await store.rows<{ request_id: string; phase: string; order_id: string }>(
        // correlation_id first: the table is ordered by it.
        `SELECT request_id, toString(phase) AS phase, order_id FROM ${AUDIT_TABLE}
         WHERE correlation_id IN {cids:Array(String)} AND request_id IN {ids:Array(String)}`,
        {
          cids: [...new Set(rows.map((r) => r.row.correlationId))],
          ids: [...new Set(rows.map((r) => r.row.requestId))],
        },
      );
      return new Set(
        found.map((r) =>
          auditIdentity({
            requestId: r.request_id,
            phase: r.phase === 'request' ? 'request' : 'outcome',
            orderId: r.order_id,
          }),
        ),
      );
    },
  };
}

/** The newest own row and other keys' claims, with the journal's rows not yet drained (oldest first). */
function withPending(
  stored: CorrelationHistory,
  pending: readonly JournaledRow[],
  keyId: string,
): CorrelationHistory {
  let { last, otherKeys } = stored;
  for (const { row } of pending) {
    if (row.keyId === keyId) {
      last = {
        phase: row.phase,
        outcome: row.outcome,
        action: row.action,
        orderId: row.orderId ?? '',
        response: row.response,
      };
    } else if (row.phase === 'request' && row.keyId !== '') {
      otherKeys = true;
    }
  }
  return { last, otherKeys };
}

export class AuditLog {
  readonly #store: StoreLane;
  readonly #now: () => number;
  readonly #index: CorrelationIndex;
  readonly #journal: AuditJournal | undefined;

  constructor(
    store: StoreLane,
    now: () => number = Date.now,
    index = new CorrelationIndex(store),
    journal?: AuditJournal,
  ) {
    this.#store = store;
    this.#now = now;
    this.#index = index;
    this.#journal = journal;
    // Rows an earlier process journaled may not be stored yet: the index must count their ids.
    for (const { row } of journal?.recoveredRows() ?? []) index.note(row.correlationId);
  }

  async write(row: AuditRow): Promise<void> {
    this.#index.note(row.correlationId);
    const item = { atMs: this.#now(), row };
    if (this.#journal) {
      const limit = row.phase === 'outcome' && AFTER_SENDING.has(row.outcome) ? 'always' : 'bounded';
      return this.#journal.append(item, limit);
    }
    try {
      await this.#store.insertRows(AUDIT_TABLE, COLUMNS, [columnsOf(item)]);
    } catch (error) {
      throw new TradingGatewayError(
        'AUDIT_UNAVAILABLE',
        'the order audit cannot be written right now; nothing was sent',
        {
          cause: error,
          retryable: true,
        },
      );
    }
  }

  /**
   * What the audit trail knows of a correlationId for one key: that key's newest row (to answer a
   * retried request without placing twice) and whether another key has sent an order with it.
   * Correlation ids are scoped per key: a row of another key is never answered as this key's, and
   * only rows that reached the service (phase `request`) claim an id, so a refused attempt of one
   * key does not block another. Rows without a key (none are written so) claim nothing.
   */
  async history(correlationId: string, keyId: string): Promise<CorrelationHistory> {
    // Taken before the store is read: a row drained meanwhile is then seen twice, never missed.
    const pending = this.#journal?.pendingOf(correlationId) ?? [];
    const stored = (await this.#index.mayHaveRows(correlationId))
      ? await this.#storedHistory(correlationId, keyId)
      : { last: undefined, otherKeys: false };
    return withPending(stored, pending, keyId);
  }

  async #storedHistory(correlationId: string, keyId: string): Promise<CorrelationHistory> {
    let rows: {
      own: string;
      others: string;
      last_phase: string;
      last_outcome: string;
      last_action: string;
      last_order_id: string;
      last_response: string;
    }[];
    try {
      rows = await this.#store.rows(
        // Aliases differ from the column names: ClickHouse lets an alias shadow a column in the
        // other expressions of the same SELECT.
        `SELECT countIf(key_id = {key:String}) AS own,
           countIf(phase = 'request' AND key_id NOT IN ('', {key:String})) AS others,
           argMaxIf(toString(phase), (at, toUInt8(phase)), key_id = {key:String}) AS last_phase,
           argMaxIf(outcome, (at, toUInt8(phase)), key_id = {key:String}) AS last_outcome,
           argMaxIf(action, (at, toUInt8(phase)), key_id = {key:String}) AS last_action,
           argMaxIf(order_id, (at, toUInt8(phase)), key_id = {key:String}) AS last_order_id,
           argMaxIf(response_json, (at, toUInt8(phase)), key_id = {key:String}) AS last_response
         FROM ${AUDIT_TABLE} WHERE correlation_id = {cid:String}`,
        { cid: correlationId, key: keyId },
      );
    } catch (error) {
      throw new TradingGatewayError(
        'AUDIT_UNAVAILABLE',
        'the order audit cannot be read right now; nothing was sent',
        {
          cause: error,
          retryable: true,
        },
      );
    }
    const r = rows[0];
    const otherKeys = Number(r?.others ?? 0) > 0;
    if (!r || Number(r.own) === 0) return { last: undefined, otherKeys };
    return {
      otherKeys,
      last: {
        phase: r.last_phase === 'request' ? 'request' : 'outcome',
        outcome: r.last_outcome as AuditOutcome,
        action: r.last_action,
        orderId: r.last_order_id,
        response: r.last_response === '' ? undefined : JSON.parse(r.last_response),
      },
    };
  }

  /** The keys that sent an order with this correlationId (phase `request` rows). */
  async keysOf(correlationId: string): Promise<string[]> {
    if (!(await this.#index.mayHaveRows(correlationId))) return [];
    await this.#journal?.whenDrained(READ_WAIT_MS);
    try {
      const rows = await this.#store.rows<{ key_id: string }>(
        `SELECT DISTINCT key_id FROM ${AUDIT_TABLE}
         WHERE correlation_id = {cid:String} AND phase = 'request' AND key_id != ''`,
        { cid: correlationId },
      );
      return rows.map((r) => r.key_id);
    } catch (error) {
      throw new TradingGatewayError('AUDIT_UNAVAILABLE', 'the order audit cannot be read right now', {
        cause: error,
        retryable: true,
      });
    }
  }

  /**
   * The newest rows, of one key (`keyId`) or of every key (undefined: a supervisor's view). A key
   * reads its own trail only: another key's rows hold its orders, sizes and correlation ids.
   */
  async list(filter: {
    correlationId?: string | undefined;
    keyId: string | undefined;
    limit: number;
  }): Promise<Record<string, unknown>[]> {
    await this.#journal?.whenDrained(READ_WAIT_MS);
    return this.#store.rows(
      `SELECT toString(at) AS at, request_id, toString(phase) AS phase, key_id, action, correlation_id, order_id,
         security_id, exchange_segment, transaction_type, quantity, price, outcome, http_status, order_status,
         error_code, error_message, latency_ms
       FROM ${AUDIT_TABLE}
       WHERE ({cid:String} = '' OR correlation_id = {cid:String})
         AND ({all:UInt8} = 1 OR key_id = {key:String})
       ORDER BY at DESC, phase DESC LIMIT {limit:UInt32}`,
      {
        cid: filter.correlationId ?? '',
        all: filter.keyId === undefined ? 1 : 0,
        key: filter.keyId ?? '',
        limit: filter.limit,
      },
    );
  }
}
