/**
 * One order transition as the receiver records it, built from a postback body (or from the order
 * book by the reconciler). The spec shows no postback shape; the service posts the order record,
 * so the kind is told by its fields: `alertId` is a conditional-order trigger, `orderFlag` a
 * forever order, `exchangeSegment` INX_EQ (with `tradedQty`) a US-stocks order, anything else a
 * regular order (super-order legs included).
 */
import { createHash } from 'node:crypto';
import type { OrderUpdateKind, OrderUpdateRecord, OrderUpdateSource } from '@feedpipe/contracts';

export type OrderEventKind = OrderUpdateKind;
export type OrderEventSource = OrderUpdateSource;

export interface OrderEvent {
  readonly orderId: string;
  /** sha256 hex of the transition identity: equal for a duplicate delivery and for its rebuild. */
  readonly eventKey: string;
  readonly kind: OrderEventKind;
  readonly clientId: string;
  readonly status: string;
  readonly securityId: string;
  readonly exchangeSegment: string;
  readonly transactionType: string;
  readonly correlationId: string;
  readonly legName: string;
  readonly quantity: number;
  readonly filledQty: number;
  readonly remainingQty: number;
  readonly price: number;
  readonly triggerPrice: number;
  readonly averagePrice: number;
  readonly omsErrorCode: string;
  readonly omsErrorDescription: string;
  /** The service's update time as it wrote it: IST wall-clock text, no zone ('' when absent). */
  readonly updateTimeIst: string;
  /** updateTimeIst read as IST: UTC epoch ms; undefined when absent or unreadable. */
  readonly updateTimeMs: number | undefined;
  /** The transition's place in time: updateTimeMs, else the receive time (epoch ms). */
  readonly eventTimeMs: number;
  /** 0 TRANSIT, 1 working, 2 final: orders transitions that share a second and a fill. */
  readonly phase: 0 | 1 | 2;
  readonly source: OrderEventSource;
  /** Epoch microseconds when the receiver accepted it. */
  readonly receivedAtUs: number;
  /** The body as received (or as rebuilt). */
  readonly payload: Record<string, unknown>;
}

const FINAL_STATUSES = new Set(['TRADED', 'CANCELLED', 'REJECTED', 'EXPIRED', 'CLOSED']);

/** Statuses after which an order (or alert, forever order) changes no more. */
export function phaseOf(kind: OrderEventKind, status: string): 0 | 1 | 2 {
  if (status === 'TRANSIT') return 0;
  if (FINAL_STATUSES.has(status)) return 2;
  // A forever order and an alert are done once triggered; a US order's TRIGGERED is a stop touched.
  if (status === 'TRIGGERED' && (kind === 'forever' || kind === 'alert')) return 2;
  return 1;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const num = (v: unknown): number => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : 0;
  return Number.isFinite(n) ? n : 0;
};

const IST_TIME = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d{1,3})?$/;

/** `YYYY-MM-DD HH:MM:SS` in IST (the service's times) to epoch ms, or undefined. */
export function parseIstTime(text: string): number | undefined {
  const m = IST_TIME.exec(text);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}T${m[2]}${m[3] ?? ''}+05:30`);
  return Number.isNaN(ms) ? undefined : ms;
}

export function kindOf(body: Record<string, unknown>): OrderEventKind {
  if (typeof body.alertId === 'string') return 'alert';
  if (body.orderFlag !== undefined) return 'forever';
  if (body.exchangeSegment === 'INX_EQ' || body.tradedQty !== undefined) return 'us_order';
  return 'order';
}

/** Builds the event of one (already schema-checked) body. */
export function toOrderEvent(
  body: Record<string, unknown>,
  source: OrderEventSource,
  receivedAtMs: number,
): OrderEvent {
  const kind = kindOf(body);
  const alert = kind === 'alert';
  const orderId = str(alert ? body.alertId : body.orderId);
  const status = str(alert ? body.alertStatus : body.orderStatus);
  const updateTimeIst = str(alert ? body.triggeredTime : body.updateTime);
  const updateTimeMs = parseIstTime(updateTimeIst);
  const quantity = num(body.quantity);
  const filledQty = num(kind === 'us_order' ? body.tradedQty : body.filledQty);
  const remainingQty =
    body.remainingQuantity === undefined ? quantity - filledQty : num(body.remainingQuantity);
  const price = num(body.price);
  const triggerPrice = num(body.triggerPrice);
  const omsErrorCode = str(body.omsErrorCode);
  const condition = (alert ? body.condition : undefined) as Record<string, unknown> | undefined;
  const identity = [
    kind,
    orderId,
    status,
    filledQty,
    remainingQty,
    quantity,
    price,
    triggerPrice,
    updateTimeIst,
    omsErrorCode,
  ].join('|');
  return {
    orderId,
    eventKey: createHash('sha256').update(identity).digest('hex'),
    kind,
    clientId: str(body.svcClientId),
    status,
    securityId: str(body.securityId ?? condition?.securityId),
    exchangeSegment: str(body.exchangeSegment ?? condition?.exchangeSegment),
    transactionType: str(body.transactionType),
    correlationId: str(body.correlationId),
    legName: str(body.legName),
    quantity,
    filledQty,
    remainingQty,
    price,
    triggerPrice,
    averagePrice: num(kind === 'us_order' ? body.avgTradedPrice : body.averageTradedPrice),
    omsErrorCode,
    omsErrorDescription: str(body.omsErrorDescription),
    updateTimeIst,
    updateTimeMs,
    eventTimeMs: updateTimeMs ?? receivedAtMs,
    phase: phaseOf(kind, status),
    source,
    receivedAtUs: receivedAtMs * 1000,
    payload: body,
  };
}

/**
 * The Kafka value of `orders.updates` and the stream's `data` (@feedpipe/contracts' order-update
 * record): the event without the raw body twice, its times as UTC epoch numbers.
 */
export function toWire(event: OrderEvent, seq: number): OrderUpdateRecord {
  return {
    orderId: event.orderId,
    kind: event.kind,
    status: event.status,
    clientId: event.clientId,
    securityId: event.securityId,
    exchangeSegment: event.exchangeSegment,
    filledQty: event.filledQty,
    remainingQty: event.remainingQty,
    quantity: event.quantity,
    price: event.price,
    averagePrice: event.averagePrice,
    updateTime: event.updateTimeMs ?? null,
    updateTimeIst: event.updateTimeIst,
    eventKey: event.eventKey,
    source: event.source,
    seq,
    receivedAt: event.receivedAtUs,
    payload: event.payload,
  };
}
