/**
 * What the trading routes answer, for the OpenAPI document. Most answers are the service's own
 * records passed through (packages/broker-api's types), so each schema names the fields the spec
 * shows, with their JSON types, and allows more (`additionalProperties`): the service may add
 * fields, and the gateway passes them on unchanged (trade-route.ts writes answers as they are).
 * Only fields the spec always sends are required.
 */

type FieldType = 'string' | 'number' | 'integer' | 'boolean';
type Fields = Readonly<Record<string, FieldType | { type: FieldType; description: string }>>;

function record(title: string, description: string, fields: Fields, required: readonly string[] = []) {
  const properties: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields)) {
    properties[name] = typeof field === 'string' ? { type: field } : field;
  }
  return { title, description, type: 'object', additionalProperties: true, required, properties };
}

function listOf(item: { title: string }) {
  return { type: 'array', items: item };
}

const STATUS = {
  type: 'string',
  description: 'the service status text (TRANSIT, PENDING, TRADED, ...)',
} as const;

/** The acknowledgement of a placement, modification or cancel (plus the correlation id used). */
export const ORDER_ACK = record(
  'OrderAck',
  'The order id and status the service answered; correlationId is the one the gateway sent',
  { orderId: 'string', orderStatus: STATUS, correlationId: 'string' },
  ['orderId'],
);

export const ORDER = record(
  'Order',
  'An order of the order book',
  {
    svcClientId: 'string',
    orderId: 'string',
    exchangeOrderId: 'string',
    correlationId: 'string',
    orderStatus: STATUS,
    transactionType: 'string',
    exchangeSegment: 'string',
    productType: 'string',
    orderType: 'string',
    validity: 'string',
    tradingSymbol: 'string',
    securityId: 'string',
    quantity: 'integer',
    disclosedQuantity: 'integer',
    price: 'number',
    triggerPrice: 'number',
    afterMarketOrder: 'boolean',
    legName: 'string',
    createTime: 'string',
    updateTime: 'string',
    exchangeTime: 'string',
    omsErrorCode: 'string',
    omsErrorDescription: 'string',
    remainingQuantity: 'integer',
    averageTradedPrice: 'number',
    filledQty: 'integer',
  },
  ['orderId'],
);
export const ORDER_LIST = listOf(ORDER);

export const SUPER_ORDER = record(
  'SuperOrder',
  'A super order with its target and stop-loss legs (legDetails)',
  {
    orderId: 'string',
    correlationId: 'string',
    orderStatus: STATUS,
    transactionType: 'string',
    exchangeSegment: 'string',
    productType: 'string',
    orderType: 'string',
    securityId: 'string',
    quantity: 'integer',
    remainingQuantity: 'integer',
    price: 'number',
    ltp: 'number',
    legName: 'string',
    trailingJump: 'number',
    createTime: 'string',
    updateTime: 'string',
  },
  ['orderId'],
);
export const SUPER_ORDER_LIST = listOf(SUPER_ORDER);

export const CANCEL_LEG = record('CancelLegResult', 'The leg cancel the service acknowledged', {
  orderId: 'string',
  orderStatus: STATUS,
});

export const FOREVER_ORDER = record(
  'ForeverOrder',
  'A forever (GTT) order; fields beyond these are not shown by the spec',
  { orderId: 'string', orderStatus: STATUS },
  ['orderId'],
);
export const FOREVER_ORDER_LIST = listOf(FOREVER_ORDER);

export const ALERT_ACK = record('AlertAck', 'The conditional order id and status the service answered', {
  alertId: 'string',
  alertStatus: 'string',
});
export const ALERT = record(
  'ConditionalOrder',
  'A conditional order; fields beyond these are not shown by the spec',
  { alertId: 'string', alertStatus: 'string' },
  ['alertId'],
);
export const ALERT_LIST = listOf(ALERT);

export const US_ORDER = record(
  'UsOrder',
  'A US-stock order',
  {
    orderId: 'string',
    correlationId: 'string',
    orderStatus: STATUS,
    transactionType: 'string',
    orderType: 'string',
    securityId: 'string',
    tradingSymbol: 'string',
    quantity: 'number',
    remainingQuantity: 'number',
    tradedQty: 'number',
    price: 'number',
    avgTradedPrice: 'number',
    amount: 'number',
    fractionalFlag: 'boolean',
    createTime: 'string',
    updateTime: 'string',
  },
  ['orderId'],
);
export const US_ORDER_LIST = listOf(US_ORDER);

export const US_RECORD_LIST = {
  type: 'array',
  items: record('UsAccountRecord', 'A US-stock holding or trade as the service answers it', {
    securityId: 'string',
  }),
};
export const US_FUNDS = record('UsFundLimit', 'The US-stock fund limit as the service answers it', {});

export const POSITION = record('Position', 'An open position', {
  tradingSymbol: 'string',
  securityId: 'string',
  positionType: 'string',
  exchangeSegment: 'string',
  productType: 'string',
  buyAvg: 'number',
  buyQty: 'integer',
  sellAvg: 'number',
  sellQty: 'integer',
  netQty: 'integer',
  realizedProfit: 'number',
  unrealizedProfit: 'number',
});
export const POSITION_LIST = listOf(POSITION);

export const HOLDING = record('Holding', 'A holding', {
  exchange: 'string',
  tradingSymbol: 'string',
  securityId: 'string',
  isin: 'string',
  totalQty: 'integer',
  availableQty: 'integer',
  avgCostPrice: 'number',
  lastTradedPrice: 'number',
});
export const HOLDING_LIST = listOf(HOLDING);

export const FUND_LIMIT = record('FundLimit', 'The fund limit (the spec spells availabelBalance so)', {
  availabelBalance: 'number',
  sodLimit: 'number',
  collateralAmount: 'number',
  receiveableAmount: 'number',
  utilizedAmount: 'number',
  blockedPayoutAmount: 'number',
  withdrawableBalance: 'number',
});

export const MARGIN = record('MarginResult', 'The margin one order needs', {
  totalMargin: 'number',
  spanMargin: 'number',
  exposureMargin: 'number',
  availableBalance: 'number',
  variableMargin: 'number',
  insufficientBalance: 'number',
  brokerage: 'number',
  leverage: 'string',
});

export const KILL_SWITCH = record('KillSwitch', 'The kill-switch state', { killSwitchStatus: 'string' });

export const PNL_EXIT_CONFIG = record('PnlExitConfig', 'The P&L-based exit configuration', {
  pnlExitStatus: 'string',
  profit: 'number',
  loss: 'number',
  enableKillSwitch: 'boolean',
});
export const PNL_EXIT_RESULT = record('PnlExitResult', 'The P&L-exit change the service acknowledged', {
  pnlExitStatus: 'string',
  message: 'string',
});

/** The answer of a request the service accepted without a body of its own. */
export const ACCEPTED = record('Accepted', 'The service accepted the request', { status: 'string' }, [
  'status',
]);

export const AUDIT_ROWS = {
  title: 'OrderAudit',
  type: 'object',
  required: ['rows'],
  properties: {
    rows: {
      type: 'array',
      items: record('OrderAuditRow', 'One audited order action', {}),
      description: 'newest first',
    },
  },
} as const;

/** A stored fill: the service's trade record as read (day book, trade history or US trades). */
export const FILL = record(
  'Fill',
  "One fill as the service's trade book gave it, with the service's field names: a trade-book or trade-history record (exchangeTradeId; customSymbol, charges in history) or a US trade (tradeDate, tradeValue; exchangeSegment INX_EQ)",
  {
    svcClientId: 'string',
    orderId: 'string',
    exchangeOrderId: 'string',
    exchangeTradeId: 'string',
    transactionType: 'string',
    exchangeSegment: 'string',
    productType: 'string',
    orderType: 'string',
    tradingSymbol: 'string',
    customSymbol: 'string',
    securityId: 'string',
    tradedQuantity: 'number',
    tradedPrice: 'number',
    createTime: 'string',
    updateTime: 'string',
    exchangeTime: 'string',
  },
  ['orderId', 'securityId', 'tradedQuantity', 'tradedPrice'],
);
export const FILL_LIST = listOf(FILL);

export const FILL_SYNC = record('FillSync', 'A read of the trade book now', {
  read: { type: 'integer', description: "fills in the day's book (Indian and US)" },
  added: { type: 'integer', description: 'fills that were not stored yet and are now' },
});

export const ACCOUNT_SNAPSHOTS = {
  title: 'AccountSnapshots',
  type: 'object',
  required: ['snapshotDate', 'snapshots'],
  properties: {
    snapshotDate: { type: 'string', description: 'IST trading day, YYYY-MM-DD' },
    snapshots: {
      type: 'array',
      items: record('AccountSnapshot', 'The latest snapshot of one kind on that day', {
        kind: { type: 'string', description: 'positions, holdings, funds, ledger, us_holdings or us_funds' },
        takenAt: { type: 'integer', description: 'when the gateway read it, epoch ms' },
        records: 'integer',
      }),
    },
  },
} as const;

export const SNAPSHOT_TAKEN = {
  title: 'AccountSnapshotTaken',
  type: 'object',
  required: ['snapshotDate', 'kinds'],
  properties: {
    snapshotDate: { type: 'string', description: 'IST trading day, YYYY-MM-DD' },
    kinds: {
      type: 'array',
      items: record('AccountSnapshotOutcome', 'Whether one kind was read and stored', {
        kind: 'string',
        outcome: { type: 'string', description: 'stored or failed' },
        records: 'integer',
        error: 'string',
      }),
    },
  },
} as const;

/** A sliced placement: the order of each slice (every one the key's), and the correlation id sent. */
export const SLICE_ACK = {
  title: 'SliceAck',
  type: 'object',
  required: ['orders'],
  properties: {
    orders: { type: 'array', items: ORDER_ACK, description: 'one acknowledgement per slice' },
    correlationId: { type: 'string', description: 'the correlation id the gateway sent' },
  },
} as const;

export const MULTI_MARGIN = record(
  'MultiOrderMargin',
  'The margin several orders need together (indicative)',
  {
    clientId: 'string',
    totalMargin: 'number',
    spanMargin: 'number',
    exposure: 'number',
    equityMargin: 'number',
    foMargin: 'number',
    commodity: 'number',
    currency: 'number',
  },
);

export const PROFILE = record('Profile', 'The account profile', {
  svcClientId: 'string',
  tokenValidity: { type: 'string', description: 'DD/MM/YYYY HH:MM' },
  activeSegment: { type: 'string', description: 'comma-separated segments' },
  ddpi: { type: 'string', description: 'Active or Deactive' },
  mtf: { type: 'string', description: 'Active or Deactive' },
  dataPlan: { type: 'string', description: 'Active or Deactive' },
  dataValidity: 'string',
});

export const STATIC_IP = record('StaticIpSetting', 'The whitelisted static IPs', {
  primaryIP: 'string',
  secondaryIP: 'string',
  modifyDatePrimary: { type: 'string', description: 'YYYY-MM-DD from which the primary IP may change' },
  modifyDateSecondary: { type: 'string', description: 'YYYY-MM-DD from which the secondary IP may change' },
});

export const LEDGER = listOf(
  record('LedgerEntry', 'One ledger entry (every field text, as the service sends it)', {
    svcClientId: 'string',
    narration: 'string',
    voucherdate: 'string',
    exchange: 'string',
    voucherdesc: 'string',
    vouchernumber: 'string',
    debit: 'string',
    credit: 'string',
    runbal: 'string',
  }),
);

export const TPIN = record('TpinResult', 'Whether the T-PIN was sent', {
  svcClientId: 'string',
  edisStatus: { type: 'string', description: 'SUCCESS or FAILURE' },
  remarks: 'string',
});

export const EDIS_FORM = record('EdisForm', "The depository's form", {
  svcClientId: 'string',
  edisFormHtml: { type: 'string', description: 'escaped HTML form, to be rendered by the caller' },
});

export const EDIS_INQUIRY_LIST = listOf(
  record('EdisStatus', 'eDIS authorisation of a holding', {
    clientId: 'string',
    isin: 'string',
    totalQty: 'integer',
    aprvdQty: { type: 'integer', description: 'quantity approved for sale' },
    status: { type: 'string', description: 'SUCCESS or FAILURE' },
    remarks: 'string',
  }),
);

export const US_MARKET_STATUS = record('UsMarketStatus', 'The US market session', {
  marketOpenTime: 'string',
  marketCloseTime: 'string',
  holidayFlag: 'boolean',
  status: { type: 'string', description: 'open or closed' },
});

export const US_CHARGES = record('UsChargeEstimate', 'What one US-stock order would cost in charges', {
  brokerage: 'number',
  orderCharges: 'number',
  exchangeCharges: 'number',
  turnOverFee: 'number',
  gstCharges: 'number',
  otherCharges: 'number',
});

export const US_MARGIN = record('UsMargin', 'The margin one US-stock order needs', {
  brokerage: 'number',
  leverage: 'string',
  insufficientBal: 'number',
  totalMargin: 'number',
  availableBal: 'number',
});
