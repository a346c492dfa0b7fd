/** JSON schemas of the order bodies: the service's enumerations, spelled as the spec spells them. */
const SEGMENTS = ['NSE_EQ', 'NSE_FNO', 'NSE_COMM', 'BSE_EQ', 'BSE_FNO', 'MCX_COMM'];
const SIDE = { type: 'string', enum: ['BUY', 'SELL'] } as const;
const PRODUCT = { type: 'string', enum: ['CNC', 'INTRADAY', 'MARGIN', 'MTF'] } as const;
const ORDER_TYPE = { type: 'string', enum: ['LIMIT', 'MARKET', 'STOP_LOSS', 'STOP_LOSS_MARKET'] } as const;
const VALIDITY = { type: 'string', enum: ['DAY', 'IOC'] } as const;
const LEG = { type: 'string', enum: ['ENTRY_LEG', 'TARGET_LEG', 'STOP_LOSS_LEG'] } as const;
const SEGMENT = { type: 'string', enum: SEGMENTS } as const;
const SECURITY = { type: 'string', pattern: '^[0-9A-Za-z._-]{1,32}$' } as const;
const QTY = { type: 'integer', minimum: 1 } as const;
const PRICE = { type: 'number', minimum: 0 } as const;

export const CORRELATION_ID = {
  type: 'string',
  pattern: '^[a-zA-Z0-9 _-]{1,30}$',
  description:
    'idempotence key: a retried request with the same id returns the first answer instead of placing again',
} as const;

export const ORDER_ID_PARAMS = {
  type: 'object',
  properties: {
    orderId: { type: 'string', pattern: '^[0-9A-Za-z_-]{1,64}$', description: "the service's order id" },
  },
  required: ['orderId'],
} as const;

const REGULAR_FIELDS = {
  transactionType: SIDE,
  exchangeSegment: SEGMENT,
  productType: PRODUCT,
  orderType: ORDER_TYPE,
  validity: VALIDITY,
  securityId: SECURITY,
  quantity: QTY,
  disclosedQuantity: { type: 'integer', minimum: 0 },
  price: PRICE,
  triggerPrice: PRICE,
  afterMarketOrder: { type: 'boolean' },
} as const;
const REGULAR_REQUIRED = [
  'transactionType',
  'exchangeSegment',
  'productType',
  'orderType',
  'validity',
  'securityId',
  'quantity',
];

export const PLACE_ORDER = {
  type: 'object',
  additionalProperties: false,
  required: REGULAR_REQUIRED,
  properties: {
    correlationId: CORRELATION_ID,
    ...REGULAR_FIELDS,
    amoTime: { type: 'string', enum: ['PRE_OPEN', 'OPEN', 'OPEN_30', 'OPEN_60'] },
  },
} as const;

export const MODIFY_ORDER = {
  type: 'object',
  additionalProperties: false,
  required: ['orderType'],
  properties: {
    orderType: ORDER_TYPE,
    legName: LEG,
    quantity: QTY,
    price: PRICE,
    disclosedQuantity: { type: 'integer', minimum: 0 },
    triggerPrice: PRICE,
    validity: VALIDITY,
  },
} as const;

export const PLACE_SUPER_ORDER = {
  type: 'object',
  additionalProperties: false,
  required: [
    'transactionType',
    'exchangeSegment',
    'productType',
    'orderType',
    'securityId',
    'quantity',
    'price',
    'targetPrice',
    'stopLossPrice',
  ],
  properties: {
    correlationId: CORRELATION_ID,
    transactionType: SIDE,
    exchangeSegment: SEGMENT,
    productType: PRODUCT,
    orderType: { type: 'string', enum: ['LIMIT', 'MARKET'] },
    securityId: SECURITY,
    quantity: QTY,
    price: PRICE,
    targetPrice: PRICE,
    stopLossPrice: PRICE,
    trailingJump: PRICE,
  },
} as const;

export const MODIFY_SUPER_ORDER = {
  type: 'object',
  additionalProperties: false,
  required: ['legName'],
  properties: {
    legName: LEG,
    orderType: { type: 'string', enum: ['LIMIT', 'MARKET'] },
    quantity: QTY,
    price: PRICE,
    targetPrice: PRICE,
    stopLossPrice: PRICE,
    trailingJump: PRICE,
  },
} as const;

export const PLACE_FOREVER_ORDER = {
  type: 'object',
  additionalProperties: false,
  required: ['orderFlag', ...REGULAR_REQUIRED, 'price', 'triggerPrice'],
  properties: {
    correlationId: CORRELATION_ID,
    orderFlag: { type: 'string', enum: ['SINGLE', 'OCO'] },
    ...REGULAR_FIELDS,
    price1: PRICE,
    triggerPrice1: PRICE,
    quantity1: QTY,
  },
} as const;

export const MODIFY_FOREVER_ORDER = {
  type: 'object',
  additionalProperties: false,
  required: ['orderFlag', 'orderType', 'legName'],
  properties: {
    orderFlag: { type: 'string', enum: ['SINGLE', 'OCO'] },
    orderType: ORDER_TYPE,
    legName: LEG,
    quantity: QTY,
    price: PRICE,
    disclosedQuantity: { type: 'integer', minimum: 0 },
    triggerPrice: PRICE,
    validity: VALIDITY,
  },
} as const;

const ALERT_LEG = {
  type: 'object',
  additionalProperties: false,
  required: REGULAR_REQUIRED,
  properties: REGULAR_FIELDS,
} as const;

export const PLACE_CONDITIONAL_ORDER = {
  type: 'object',
  additionalProperties: false,
  required: ['condition', 'orders'],
  properties: {
    correlationId: CORRELATION_ID,
    condition: {
      type: 'object',
      additionalProperties: false,
      required: ['comparisonType', 'exchangeSegment', 'securityId', 'operator'],
      properties: {
        comparisonType: { type: 'string', minLength: 1, maxLength: 64 },
        exchangeSegment: { type: 'string', enum: [...SEGMENTS, 'IDX_I', 'INX_EQ'] },
        securityId: SECURITY,
        indicatorName: { type: 'string', maxLength: 64 },
        timeFrame: { type: 'string', maxLength: 32 },
        operator: { type: 'string', minLength: 1, maxLength: 32 },
        comparingValue: { type: 'number' },
        comparingIndicatorName: { type: 'string', maxLength: 64 },
        // A real calendar day (strict-validation.ts checks `date`): 2026-02-30 is refused, not rolled over.
        expDate: {
          type: 'string',
          format: 'date',
          description: 'YYYY-MM-DD: the alert expires after this day',
        },
        frequency: { type: 'string', maxLength: 32 },
        userNote: { type: 'string', maxLength: 256 },
      },
    },
    orders: { type: 'array', minItems: 1, maxItems: 15, items: ALERT_LEG },
  },
} as const;

const US_ORDER_TYPE = {
  type: 'string',
  enum: ['MARKET', 'LIMIT', 'STOP_LOSS', 'STOP_LOSS_MARKET', 'AMOUNT'],
} as const;

export const PLACE_US_ORDER = {
  type: 'object',
  additionalProperties: false,
  required: ['transactionType', 'orderType', 'securityId'],
  properties: {
    correlationId: CORRELATION_ID,
    transactionType: SIDE,
    orderType: US_ORDER_TYPE,
    securityId: SECURITY,
    quantity: { type: 'number', exclusiveMinimum: 0 },
    price: PRICE,
    triggerPrice: PRICE,
    stopLossPrice: PRICE,
    targetPrice: PRICE,
    amount: { type: 'number', exclusiveMinimum: 0 },
    afterMarketOrder: { type: 'boolean' },
  },
} as const;

export const MODIFY_US_ORDER = {
  type: 'object',
  additionalProperties: false,
  required: ['orderType', 'transactionType', 'securityId'],
  properties: {
    orderType: US_ORDER_TYPE,
    transactionType: SIDE,
    securityId: SECURITY,
    quantity: { type: 'number', exclusiveMinimum: 0 },
    price: PRICE,
    legName: { type: 'string', enum: ['ENTRY_LEG', 'STOP_LOSS_LEG', 'TARGET_LEG', 'NA'] },
  },
} as const;

export const MARGIN_REQUEST = {
  type: 'object',
  additionalProperties: false,
  required: ['exchangeSegment', 'transactionType', 'quantity', 'productType', 'securityId'],
  properties: {
    exchangeSegment: SEGMENT,
    transactionType: SIDE,
    quantity: QTY,
    productType: PRODUCT,
    securityId: SECURITY,
    price: PRICE,
    triggerPrice: PRICE,
  },
} as const;

export const PNL_EXIT_REQUEST = {
  type: 'object',
  additionalProperties: false,
  properties: {
    profitValue: PRICE,
    lossValue: PRICE,
    productType: { type: 'array', items: { type: 'string', enum: ['INTRADAY', 'DELIVERY'] }, maxItems: 2 },
    enableKillSwitch: { type: 'boolean' },
  },
} as const;

export const KILL_SWITCH_REQUEST = {
  type: 'object',
  additionalProperties: false,
  required: ['status'],
  properties: { status: { type: 'string', enum: ['ACTIVATE', 'DEACTIVATE'] } },
} as const;

const { correlationId: _ignored, ...CONDITIONAL_FIELDS } = PLACE_CONDITIONAL_ORDER.properties;
export const MODIFY_CONDITIONAL_ORDER = {
  ...PLACE_CONDITIONAL_ORDER,
  properties: CONDITIONAL_FIELDS,
} as const;
