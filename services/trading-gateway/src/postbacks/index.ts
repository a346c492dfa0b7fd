/** Postbacks: receiver (Kafka `orders.updates` + ClickHouse), live stream, reconciliation. */
export { ALERT_STATUSES, ORDER_STATUSES, POSTBACK_BODY_SCHEMA } from './body-schema.js';
export { readDeadLetters, type StoredDeadLetter } from './dead-letters.js';
export { PostbackError, type PostbackErrorCode } from './errors.js';
export { type EventQuery, readOrderEvents, type StoredOrderEvent } from './events-table.js';
export {
  POSTBACK_CONFIG,
  type PostbackConfig,
  type PostbackReceiverOptions,
  type ResolvedReceiverOptions,
} from './options.js';
export {
  kindOf,
  type OrderEvent,
  type OrderEventKind,
  type OrderEventSource,
  parseIstTime,
  toOrderEvent,
  toWire,
} from './order-event.js';
export type { AcceptResult, DeadLetter, PipelineStats } from './pipeline.js';
export {
  createPostbackReceiver,
  type PostbackReceiver,
  postbackRoutes,
  type ReceiverStats,
  registerPostbackRoutes,
} from './receiver.js';
export { createReceiverMetrics } from './receiver-metrics.js';
export type { RefusalCounters } from './receiver-routes.js';
export { type ReconcileResult, rebuildOrder, rebuildUsOrder, reconcileOrders } from './reconcile.js';
export { SECRET_HEADER, SIGNATURE_HEADER, signBody } from './source-guard.js';
export type { UpdateFilter } from './update-hub.js';
export type { OrderVisibility } from './visibility.js';
export { type WalStats, WriteAheadLog } from './wal.js';
