/**
 * JSON schema of a postback body. The spec shows no payload; the service posts the order record
 * (the Order resource, the US-stocks order record, the forever-order record) or, for a
 * conditional-order trigger, the alert record. So a body is an object with either
 * orderId + orderStatus or alertId + alertStatus; the fields the receiver stores are typed and
 * bounded, and other fields pass through as they are (the record may grow fields).
 */
export const ORDER_STATUSES = [
  'TRANSIT',
  'PENDING',
  'REJECTED',
  'CANCELLED',
  'PART_TRADED',
  'TRADED',
  'EXPIRED',
  'MODIFIED',
  'TRIGGERED',
  'INACTIVE',
  'CLOSED',
] as const;
export const ALERT_STATUSES = ['ACTIVE', 'TRIGGERED', 'EXPIRED', 'CANCELLED'] as const;

const id = { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$' } as const;
const text = (maxLength: number) => ({ type: 'string', maxLength }) as const;
const amount = { type: 'number', minimum: 0, maximum: 1e12 } as const;

export const POSTBACK_BODY_SCHEMA = {
  type: 'object',
  maxProperties: 100,
  anyOf: [{ required: ['orderId', 'orderStatus'] }, { required: ['alertId', 'alertStatus'] }],
  properties: {
    orderId: id,
    orderStatus: { type: 'string', enum: ORDER_STATUSES },
    alertId: id,
    alertStatus: { type: 'string', enum: ALERT_STATUSES },
    svcClientId: text(32),
    securityId: text(32),
    exchangeSegment: text(16),
    transactionType: text(8),
    correlationId: text(64),
    legName: text(32),
    quantity: amount,
    filledQty: amount,
    tradedQty: amount,
    remainingQuantity: amount,
    price: amount,
    triggerPrice: amount,
    averageTradedPrice: amount,
    avgTradedPrice: amount,
    createTime: text(40),
    updateTime: text(40),
    exchangeTime: text(40),
    triggeredTime: text(40),
    omsErrorCode: text(64),
    omsErrorDescription: text(500),
  },
} as const;
