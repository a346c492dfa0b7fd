/**
 * The tables of the services' own records (packages/store/migrations/004-007, 012): API keys of the
 * query API and of the trading gateway, the gateway's order audit, the order events and the dead
 * letters of its postback receiver, its fills and end-of-day account snapshots. test/tables.test.ts holds these columns equal to the migrations'.
 */
import { table } from './table.js';

/** Columns of an API key table (the two services keep theirs apart, see service-http's ApiKeyStore). */
const API_KEY_COLUMNS = [
  'key_id',
  'name',
  'scopes',
  'salt',
  'hash',
  'created_at',
  'revoked',
  'version',
] as const;

export const SERVICE_TABLES = Object.freeze({
  /** Keys of the query API (004). */
  apiKeys: table('market.api_keys', API_KEY_COLUMNS),
  /** Keys of the trading gateway (007): a query API key is nothing to the gateway. */
  gatewayApiKeys: table('market.gateway_api_keys', API_KEY_COLUMNS),
  /** Every order request and its outcome, as the gateway handled it (004). */
  orderAudit: table('market.order_audit', [
    'at',
    'request_id',
    'phase',
    'key_id',
    'action',
    'correlation_id',
    'order_id',
    'security_id',
    'exchange_segment',
    'transaction_type',
    'quantity',
    'price',
    'request_json',
    'outcome',
    'http_status',
    'order_status',
    'error_code',
    'error_message',
    'response_json',
    'latency_ms',
  ]),
  /** Order updates received by postback or rebuilt by reconciliation (005). */
  orderEvents: table('market.order_events', [
    'order_id',
    'event_key',
    'kind',
    'client_id',
    'status',
    'security_id',
    'exchange_segment',
    'transaction_type',
    'correlation_id',
    'leg_name',
    'quantity',
    'filled_qty',
    'remaining_qty',
    'price',
    'trigger_price',
    'average_price',
    'oms_error_code',
    'oms_error_description',
    'update_time',
    'event_time',
    'phase',
    'source',
    'received_at',
    'seq',
    'payload',
  ]),
  /** Postbacks acknowledged but not storable, kept with the reason (006). */
  postbackDeadLetters: table('market.postback_dead_letters', [
    'received_at',
    'body_sha256',
    'wal_seq',
    'source',
    'stage',
    'reason',
    'payload',
    'dead_at',
  ]),
  /** Every fill of the account, from the trade book (012): read through the gateway only. */
  fills: table('market.fills', [
    'fill_key',
    'kind',
    'client_id',
    'order_id',
    'exchange_order_id',
    'exchange_trade_id',
    'trade_date',
    'trade_time',
    'security_id',
    'exchange_segment',
    'transaction_type',
    'product_type',
    'traded_qty',
    'traded_price',
    'source',
    'recorded_at',
    'payload',
  ]),
  /** Positions, holdings, funds and the ledger at the close, per day (012): read through the gateway only. */
  accountSnapshots: table('market.account_snapshots', [
    'client_id',
    'snapshot_date',
    'kind',
    'taken_at',
    'records',
    'payload',
  ]),
});
