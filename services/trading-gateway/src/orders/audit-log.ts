/**
 * The order audit trail in market.order_audit: a 'request' row before the service is called and an
 * 'outcome' row after (see migration 004). The request row is awaited before the order is sent, so
 * an order never leaves without a trace; if it cannot be written, the order is not sent.
 */
import { SERVICE_TABLES } from '@feedpipe/contracts';
import type { StoreLane } from '@feedpipe/store';
import { TradingGatewayError } from '../errors.js';

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

const AUDIT_TABLE = SERVICE_TABLES.orderAudit.name;
const COLUMNS = SERVICE_TABLES.orderAudit.columns;

function toDateTime64(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

export class AuditLog {
  readonly #store: StoreLane;
  readonly #now: () => number;

  constructor(store: StoreLane, now: () => number = Date.now) {
    this.#store = store;
    this.#now = now;
  }

  async write(row: AuditRow): Promise<void> {
    try {
      await this.#store.insertRows(AUDIT_TABLE, COLUMNS, [
        [
          toDateTime64(this.#now()),
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
        ],
      ]);
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

  /** The newest audit row of a correlationId, to answer a retried request without placing twice. */
  async last(correlationId: string): Promise<LastAudit | undefined> {
    let rows: { phase: string; outcome: string; action: string; order_id: string; response_json: string }[];
    try {
      rows = await this.#store.rows(
        `SELECT toString(phase) AS phase, outcome, action, order_id, response_json FROM ${AUDIT_TABLE}
         WHERE correlation_id = {cid:String} ORDER BY at DESC, phase DESC LIMIT 1`,
        { cid: correlationId },
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
    if (!r) return undefined;
    return {
      phase: r.phase === 'request' ? 'request' : 'outcome',
      outcome: r.outcome as AuditOutcome,
      action: r.action,
      orderId: r.order_id,
      response: r.response_json === '' ? undefined : JSON.parse(r.response_json),
    };
  }

  async list(filter: { correlationId?: string; limit: number }): Promise<Record<string, unknown>[]> {
    return this.#store.rows(
      `SELECT toString(at) AS at, request_id, toString(phase) AS phase, key_id, action, correlation_id, order_id,
         security_id, exchange_segment, transaction_type, quantity, price, outcome, http_status, order_status,
         error_code, error_message, latency_ms
       FROM ${AUDIT_TABLE}
       WHERE {cid:String} = '' OR correlation_id = {cid:String}
       ORDER BY at DESC, phase DESC LIMIT {limit:UInt32}`,
      { cid: filter.correlationId ?? '', limit: filter.limit },
    );
  }
}
