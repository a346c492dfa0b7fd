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

/** POST /v1/margin/multi: the margin several orders need together. */
export const MULTI_MARGIN_REQUEST = {
  type: 'object',
  additionalProperties: false,
  required: ['scripList'],
  properties: {
    includePosition: { type: 'boolean', description: 'count the open positions in (default false)' },
    includeOrder: { type: 'boolean', description: 'count the open orders in (default false)' },
    scripList: { type: 'array', minItems: 1, maxItems: 100, items: MARGIN_REQUEST },
  },
} as const;

const CONVERTIBLE = { type: 'string', enum: ['CNC', 'INTRADAY', 'MARGIN'] } as const;

/** POST /v1/positions/convert: every field the spec lists, the ones that say what to convert required. */
export const CONVERT_POSITION_REQUEST = {
  type: 'object',
  additionalProperties: false,
  required: ['fromProductType', 'toProductType', 'exchangeSegment', 'securityId', 'convertQty'],
  properties: {
    fromProductType: CONVERTIBLE,
    toProductType: CONVERTIBLE,
    exchangeSegment: { type: 'string', enum: SEGMENTS.filter((s) => s !== 'NSE_COMM') },
    positionType: { type: 'string', enum: ['LONG', 'SHORT', 'CLOSED'] },
    securityId: SECURITY,
    convertQty: QTY,
  },
} as const;

/** POST /v1/us/charges and /v1/us/margin: one prospective US order (numbers here, text at the service). */
export const US_ESTIMATE_REQUEST = {
  type: 'object',
  additionalProperties: false,
  required: ['securityId', 'price', 'quantity', 'transactionType'],
  properties: {
    securityId: SECURITY,
    price: { ...PRICE, description: 'USD; 0 for a market order' },
    quantity: { type: 'number', exclusiveMinimum: 0 },
    transactionType: SIDE,
  },
} as const;

const ISIN = { type: 'string', pattern: '^[A-Z]{2}[A-Z0-9]{9}[0-9]$', description: 'an ISIN' } as const;
/** An ISIN, or ALL for every holding (the bulk form and the status inquiry take it). */
const ISIN_OR_ALL = {
  type: 'string',
  pattern: '^(ALL|[A-Z]{2}[A-Z0-9]{9}[0-9])$',
  description: 'an ISIN, or ALL for every holding',
} as const;
/** Where the holdings to authorise are, for both eDIS forms. */
const EDIS_PLACE = {
  exchange: { type: 'string', enum: ['NSE', 'BSE', 'MCX', 'ALL'] },
  segment: { type: 'string', enum: ['EQ', 'COMM', 'FNO'] },
  bulk: { type: 'boolean' },
} as const;

/** POST /v1/edis/bulk-form: the depository's form for several holdings. */
export const EDIS_BULK_FORM_REQUEST = {
  type: 'object',
  additionalProperties: false,
  required: ['isin', 'exchange', 'segment'],
  properties: { isin: { type: 'array', minItems: 1, maxItems: 100, items: ISIN_OR_ALL }, ...EDIS_PLACE },
} as const;

/** POST /v1/edis/form: the depository's form for one holding. */
export const EDIS_FORM_REQUEST = {
  type: 'object',
  additionalProperties: false,
  required: ['isin', 'exchange'],
  properties: {
    isin: ISIN,
    qty: { ...QTY, description: 'quantity to authorise (default: the whole holding)' },
    ...EDIS_PLACE,
  },
} as const;

/** GET /v1/edis/inquire/:isin. */
export const ISIN_PARAMS = {
  type: 'object',
  properties: { isin: ISIN_OR_ALL },
  required: ['isin'],
} as const;

/** GET /v1/us/trades/:securityId. */
export const SECURITY_PARAMS = {
  type: 'object',
  properties: { securityId: { ...SECURITY, description: 'the US stock' } },
  required: ['securityId'],
} as const;

/** GET /v1/ledger: a date range, both ends optional. */
export const LEDGER_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    fromDate: { type: 'string', format: 'date', description: 'first day, YYYY-MM-DD' },
    toDate: { type: 'string', format: 'date', description: 'last day, YYYY-MM-DD' },
  },
} as const;
