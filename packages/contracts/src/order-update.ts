/**
 * The record of the order-updates topic (`orders.updates` by default), written by the trading
 * gateway's postback receiver (and its reconciliation) and read by anyone who follows orders: one
 * record per order transition, keyed by order id, its value the JSON of OrderUpdateRecord.
 *
 * Times are UTC epoch numbers like everywhere else on Kafka: `updateTime` in milliseconds (the
 * service's own update time, which it writes as India Standard Time wall-clock text without a zone;
 * that text is kept beside it as `updateTimeIst`), `receivedAt` in microseconds (the feed topics'
 * unit for the same meaning).
 *
 * ORDER_UPDATE_FIELDS is the one description of each field (its kind and meaning): the JSON Schema
 * of the topic (schemas/record-schemas.ts) is generated from it, and its type makes a field that
 * is added to the record without a description a compile error.
 */

/** What an update is about, told from the postback's fields (see the gateway's order-event.ts). */
export type OrderUpdateKind = 'order' | 'us_order' | 'forever' | 'alert';
export const ORDER_UPDATE_KINDS: readonly OrderUpdateKind[] = Object.freeze([
  'order',
  'us_order',
  'forever',
  'alert',
]);

/** Who produced the update: the service's postback, or the receiver's reconciliation. */
export type OrderUpdateSource = 'postback' | 'reconcile';
export const ORDER_UPDATE_SOURCES: readonly OrderUpdateSource[] = Object.freeze(['postback', 'reconcile']);

export interface OrderUpdateRecord {
  orderId: string;
  kind: OrderUpdateKind;
  status: string;
  clientId: string;
  securityId: string;
  exchangeSegment: string;
  filledQty: number;
  remainingQty: number;
  quantity: number;
  price: number;
  averagePrice: number;
  /** UTC epoch milliseconds; null when the service's time is missing or unreadable. */
  updateTime: number | null;
  /** The service's update time as sent: IST wall-clock text, no zone. */
  updateTimeIst: string;
  eventKey: string;
  source: OrderUpdateSource;
  seq: number;
  /** UTC epoch microseconds. */
  receivedAt: number;
  payload: Record<string, unknown>;
}

/**
 * What a field of the order-update record holds: `text` any string, `quantity` and `price` JSON
 * numbers (fractional allowed), `epochMillisOrNull` / `epochMicros` UTC epoch integers, `sequence`
 * a non-negative integer, `sha256Hex` 64 lowercase hex digits, `kind` / `source` one of their
 * enumerations, `object` the posted body.
 */
export type OrderUpdateFieldKind =
  | 'text'
  | 'quantity'
  | 'price'
  | 'epochMillisOrNull'
  | 'epochMicros'
  | 'sequence'
  | 'sha256Hex'
  | 'kind'
  | 'source'
  | 'object';

export interface OrderUpdateField {
  readonly kind: OrderUpdateFieldKind;
  readonly description: string;
}

const f = (kind: OrderUpdateFieldKind, description: string): OrderUpdateField =>
  Object.freeze({ kind, description });

/** Every field of the record, in the order the gateway writes them. */
export const ORDER_UPDATE_FIELDS: { readonly [K in keyof OrderUpdateRecord]-?: OrderUpdateField } =
  Object.freeze({
    orderId: f(
      'text',
      "Order id as the service gives it (a conditional-order trigger: its alert id). The record's Kafka key.",
    ),
    kind: f(
      'kind',
      'What the update is about: order (a regular order, super-order legs included), us_order (a global stocks order, segment INX_EQ), forever (a forever order), alert (a conditional-order trigger).',
    ),
    status: f(
      'text',
      'Status as the service reports it: TRANSIT, PENDING, CLOSED, REJECTED, CANCELLED, PART_TRADED, TRADED, EXPIRED; global stocks orders also MODIFIED, TRIGGERED, INACTIVE; an alert its alert status.',
    ),
    clientId: f('text', 'svcClientId of the account the order belongs to.'),
    securityId: f(
      'text',
      'Security id of the instrument as text (the form the order APIs use); empty when the update names none.',
    ),
    exchangeSegment: f(
      'text',
      "Exchange segment as the service's text enumeration: NSE_EQ, NSE_FNO, NSE_COMM, BSE_EQ, BSE_FNO, MCX_COMM, INX_EQ (global stocks); empty when the update names none.",
    ),
    filledQty: f(
      'quantity',
      'Quantity filled so far (filledQty; tradedQty for global stocks orders, where it can be fractional).',
    ),
    remainingQty: f(
      'quantity',
      'Quantity still open: remainingQuantity of the update, else quantity - filledQty.',
    ),
    quantity: f('quantity', 'Order quantity.'),
    price: f(
      'price',
      "Order price in the instrument's currency (INR on the Indian segments, USD on INX_EQ); 0 for market orders.",
    ),
    averagePrice: f(
      'price',
      'Average traded price (averageTradedPrice; avgTradedPrice for global stocks orders); 0 before a fill.',
    ),
    updateTime: f(
      'epochMillisOrNull',
      "When the service last updated the order: UTC Unix epoch milliseconds, read from the service's update time (India Standard Time, UTC+05:30, one-second resolution; an alert's triggeredTime). null when the service sent no time or one that does not read as a date and time.",
    ),
    updateTimeIst: f(
      'text',
      'The service\'s update time exactly as sent: India Standard Time wall-clock text without a zone ("YYYY-MM-DD HH:MM:SS"), empty when absent. For reference only; updateTime is the same instant as an epoch number.',
    ),
    eventKey: f(
      'sha256Hex',
      "sha256 (hex) of the transition's identity (kind, order id, status, quantities, prices, update time, OMS error code): the same for a repeated delivery of one transition and for its rebuild by reconciliation, so a consumer drops duplicates by it.",
    ),
    source: f(
      'source',
      'postback: delivered by the service; reconcile: rebuilt from the order book for a transition whose postback never arrived.',
    ),
    seq: f(
      'sequence',
      "The receiver's sequence number of the update (its write-ahead log position): grows in the order the receiver accepted updates; a repeat in Kafka carries the same value.",
    ),
    receivedAt: f('epochMicros', 'When the receiver accepted the update: UTC Unix epoch microseconds.'),
    payload: f(
      'object',
      "The body as the service posted it (or as reconciliation rebuilt it), unchanged: its times are the service's IST text.",
    ),
  });
