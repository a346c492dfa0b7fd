/**
 * The account routes as a table: positions (list, convert, exit all), holdings, funds, margin (one
 * order, several), the kill switch, the P&L exit, the order audit trail, the profile and the
 * static-IP status, eDIS and the ledger, and the US account (holdings, funds, trades, market
 * status, charge and margin estimates). Reads pass the service's records through; everything that
 * changes the account is audited (route-specs.ts).
 */
import type {
  ConvertPositionRequest,
  EdisFormRequest,
  EdisSingleFormRequest,
  KillSwitchStatus,
  MarginRequest,
  PnlExitRequest,
  TransactionType,
} from '@feedpipe/broker-api';
import { TradingGatewayError } from '../errors.js';
import type { AuditLog } from './audit-log.js';
import {
  CONVERT_POSITION_REQUEST,
  CORRELATION_ID,
  EDIS_BULK_FORM_REQUEST,
  EDIS_FORM_REQUEST,
  ISIN_PARAMS,
  KILL_SWITCH_REQUEST,
  LEDGER_QUERY,
  MARGIN_REQUEST,
  MULTI_MARGIN_REQUEST,
  PNL_EXIT_REQUEST,
  SECURITY_PARAMS,
  US_ESTIMATE_REQUEST,
} from './order-schemas.js';
import {
  ACCEPTED,
  AUDIT_ROWS,
  EDIS_FORM,
  EDIS_INQUIRY_LIST,
  FUND_LIMIT,
  HOLDING_LIST,
  KILL_SWITCH,
  LEDGER,
  MARGIN,
  MULTI_MARGIN,
  PNL_EXIT_CONFIG,
  PNL_EXIT_RESULT,
  POSITION_LIST,
  PROFILE,
  STATIC_IP,
  TPIN,
  US_CHARGES,
  US_FUNDS,
  US_MARGIN,
  US_MARKET_STATUS,
  US_RECORD_LIST,
} from './response-schemas.js';
import { actSpec, listOrdersSpec, readRows, readSpec } from './route-specs.js';
import { AUDIT_ERRORS, CANCEL_ERRORS, PLACE_ERRORS, type RouteSpec, type TradeCall } from './trade-route.js';

const AUDIT_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    correlationId: CORRELATION_ID,
    limit: { type: 'integer', minimum: 1, maximum: 10_000, default: 100, description: 'rows in the answer' },
  },
} as const;

const bodyOf = <T>(call: TradeCall) => call.request.body as T;

const aTags = ['account'];

/** The account's reads without parameters: the service's answer passed through. */
const ACCOUNT_READS: readonly RouteSpec[] = readRows(aTags, [
  ['/v1/positions', 'listPositions', 'Open positions', POSITION_LIST, (c) => c.broker.portfolio.positions()],
  ['/v1/holdings', 'listHoldings', 'Holdings', HOLDING_LIST, (c) => c.broker.portfolio.holdings()],
  ['/v1/funds', 'getFundLimit', 'Fund limit', FUND_LIMIT, (c) => c.broker.funds.fundLimit()],
  [
    '/v1/kill-switch',
    'getKillSwitch',
    'Kill-switch state',
    KILL_SWITCH,
    async (c) => {
      const state = await c.broker.funds.killSwitch();
      c.desk.checks.noteKillSwitch(state.killSwitchStatus === 'ACTIVATE');
      return state;
    },
  ],
  [
    '/v1/pnl-exit',
    'getPnlExit',
    'P&L-based exit configuration',
    PNL_EXIT_CONFIG,
    (c) => c.broker.funds.pnlExit(),
  ],
  [
    '/v1/profile',
    'getProfile',
    "The account's profile: token validity, active segments, DDPI, MTF and data plan",
    PROFILE,
    (c) => c.broker.account.profile(),
  ],
  [
    '/v1/static-ip',
    'getStaticIp',
    "The account's whitelisted static IPs and the days from which each may be changed",
    STATIC_IP,
    (c) => c.broker.account.getIp(),
  ],
]);

const PORTFOLIO: readonly RouteSpec[] = [
  actSpec({
    method: 'DELETE',
    url: '/v1/positions',
    doc: {
      tags: aTags,
      operationId: 'exitAllPositions',
      summary: 'Exit every position and cancel every open order of the day',
      response: ACCEPTED,
      errors: CANCEL_ERRORS,
    },
    action: 'positions.exitAll',
    request: () => ({}),
    send: async (c) => {
      await c.broker.portfolio.exitAll();
      return { status: 'accepted' };
    },
  }),
  actSpec({
    method: 'POST',
    url: '/v1/positions/convert',
    doc: {
      tags: aTags,
      operationId: 'convertPosition',
      summary:
        'Convert (part of) an open position to another product type; refused under the kill switch, the quantity checked against the per-order limit',
      response: ACCEPTED,
      errors: PLACE_ERRORS,
      body: CONVERT_POSITION_REQUEST,
    },
    action: 'positions.convert',
    summary: (c) => {
      const b = bodyOf<ConvertPositionRequest>(c);
      return { securityId: b.securityId, exchangeSegment: b.exchangeSegment, quantity: b.convertQty };
    },
    // The position exists already: no price is at stake, only the quantity moved between products.
    checks: (c) => {
      const b = bodyOf<Required<ConvertPositionRequest>>(c);
      return [{ securityId: b.securityId, quantity: b.convertQty, price: 0 }];
    },
    killSwitch: true,
    send: async (c) => {
      await c.broker.portfolio.convertPosition(bodyOf<ConvertPositionRequest>(c));
      return { status: 'accepted' };
    },
  }),
  readSpec(
    '/v1/margin',
    {
      tags: aTags,
      operationId: 'getMargin',
      summary: 'Margin needed for one order',
      response: MARGIN,
      body: MARGIN_REQUEST,
    },
    (c) => c.broker.funds.margin(bodyOf<MarginRequest>(c)),
    'POST',
  ),
  readSpec(
    '/v1/margin/multi',
    {
      tags: aTags,
      operationId: 'getMultiOrderMargin',
      summary: 'Margin several orders need together (indicative, for the current session)',
      response: MULTI_MARGIN,
      body: MULTI_MARGIN_REQUEST,
    },
    (c) => {
      const b = bodyOf<{ includePosition?: boolean; includeOrder?: boolean; scripList: MarginRequest[] }>(c);
      return c.broker.funds.marginMulti({
        includePosition: b.includePosition ? 'true' : 'false',
        includeOrder: b.includeOrder ? 'true' : 'false',
        scripList: b.scripList,
      });
    },
    'POST',
  ),
];

const RISK: readonly RouteSpec[] = [
  {
    method: 'POST',
    url: '/v1/kill-switch',
    doc: {
      tags: aTags,
      operationId: 'setKillSwitch',
      summary:
        'Activate (any trade or admin key) or deactivate (a key with the admin scope: the admin key or a supervisor) the kill switch',
      response: KILL_SWITCH,
      errors: [403, 409, 503],
      body: KILL_SWITCH_REQUEST,
      scopes: ['trade', 'admin'],
    },
    handle: async ({ request, broker, desk, keyId }) => {
      const { status } = request.body as { status: KillSwitchStatus };
      const result = await desk.execute({
        action: 'killSwitch.set',
        keyId,
        request: { status },
        summary: {},
        // Any trade key may stop trading; only a key with the admin scope (the admin key, or a
        // supervisor: trade + admin) may restart it, so a desk's stop cannot be undone by the key
        // (or the strategy) it was meant to stop. A refused attempt is audited like any refused
        // request.
        authorize: async () => {
          if (status === 'DEACTIVATE' && !(request.apiKey?.scopes ?? []).includes('admin')) {
            throw new TradingGatewayError(
              'FORBIDDEN',
              'lifting the kill switch needs a key with the admin scope (the admin key or a supervisor); any trade key may activate it',
              { field: 'status' },
            );
          }
        },
        send: () => broker.funds.setKillSwitch(status),
      });
      desk.checks.noteKillSwitch(status === 'ACTIVATE');
      return result;
    },
  },
  actSpec({
    method: 'POST',
    url: '/v1/pnl-exit',
    doc: {
      tags: aTags,
      operationId: 'setPnlExit',
      summary: 'Configure the P&L-based automatic exit',
      response: PNL_EXIT_RESULT,
      errors: PLACE_ERRORS,
      body: PNL_EXIT_REQUEST,
    },
    action: 'pnlExit.set',
    send: (c) => c.broker.funds.setPnlExit(bodyOf<PnlExitRequest>(c)),
  }),
];

const LEDGER_READS: readonly RouteSpec[] = [
  readSpec(
    '/v1/ledger',
    {
      tags: aTags,
      operationId: 'getLedger',
      summary: 'Ledger entries over a date range (both ends optional)',
      response: LEDGER,
      querystring: LEDGER_QUERY,
    },
    (c) => {
      const q = c.request.query as { fromDate?: string; toDate?: string };
      return c.broker.edis.ledger(q.fromDate, q.toDate);
    },
  ),
];

const edisTags = ['eDIS'];
const EDIS: readonly RouteSpec[] = [
  actSpec({
    method: 'POST',
    url: '/v1/edis/tpin',
    doc: {
      tags: edisTags,
      operationId: 'requestEdisTpin',
      summary: "Send a T-PIN to the account's registered mobile number",
      response: TPIN,
      errors: PLACE_ERRORS,
    },
    action: 'edis.tpin',
    request: () => ({}),
    send: (c) => c.broker.edis.requestTpin(),
  }),
  actSpec({
    method: 'POST',
    url: '/v1/edis/bulk-form',
    doc: {
      tags: edisTags,
      operationId: 'getEdisBulkForm',
      summary: "The depository's form authorising several holdings for sale (escaped HTML, to be rendered)",
      response: EDIS_FORM,
      errors: PLACE_ERRORS,
      body: EDIS_BULK_FORM_REQUEST,
    },
    action: 'edis.bulkForm',
    send: (c) => c.broker.edis.bulkForm(bodyOf<EdisFormRequest>(c)),
  }),
  actSpec({
    method: 'POST',
    url: '/v1/edis/form',
    doc: {
      tags: edisTags,
      operationId: 'getEdisForm',
      summary: "The depository's form authorising one holding for sale (escaped HTML, to be rendered)",
      response: EDIS_FORM,
      errors: PLACE_ERRORS,
      body: EDIS_FORM_REQUEST,
    },
    action: 'edis.form',
    send: (c) => c.broker.edis.singleForm(bodyOf<EdisSingleFormRequest>(c)),
  }),
  readSpec(
    '/v1/edis/inquire/:isin',
    {
      tags: edisTags,
      operationId: 'getEdisStatus',
      summary: 'eDIS authorisation of one holding (or ALL)',
      response: EDIS_INQUIRY_LIST,
      params: ISIN_PARAMS,
    },
    (c) => c.broker.edis.inquire((c.request.params as { isin: string }).isin),
  ),
];

/** A US estimate's body as the spec types it (text numbers). */
function usEstimate(c: TradeCall) {
  const b = bodyOf<{ securityId: string; price: number; quantity: number; transactionType: TransactionType }>(
    c,
  );
  return {
    securityId: b.securityId,
    price: String(b.price),
    quantity: String(b.quantity),
    transactionType: b.transactionType,
  };
}

const usTags = ['US stocks'];
const US_ACCOUNT: readonly RouteSpec[] = [
  ...readRows(usTags, [
    [
      '/v1/us/holdings',
      'listUsHoldings',
      'US-stock holdings',
      US_RECORD_LIST,
      (c) => c.broker.globalStocks.holdings(),
    ],
    [
      '/v1/us/funds',
      'getUsFundLimit',
      'US-stock fund limit',
      US_FUNDS,
      (c) => c.broker.globalStocks.fundLimit(),
    ],
    [
      '/v1/us/market-status',
      'getUsMarketStatus',
      'Whether the US market is open, and its hours',
      US_MARKET_STATUS,
      (c) => c.broker.globalStocks.marketStatus(),
    ],
  ]),
  listOrdersSpec(
    '/v1/us/trades',
    {
      tags: usTags,
      operationId: 'listUsTrades',
      summary: "US-stock trades of the day: the key's own orders' (a supervisor's: all)",
      response: US_RECORD_LIST,
    },
    (c) => c.broker.globalStocks.trades(),
  ),
  listOrdersSpec(
    '/v1/us/trades/:securityId',
    {
      tags: usTags,
      operationId: 'listUsTradesOfSecurity',
      summary: "US-stock trades of one stock: the key's own orders' (a supervisor's: all)",
      response: US_RECORD_LIST,
      params: SECURITY_PARAMS,
    },
    (c) => c.broker.globalStocks.tradesBySecurity((c.request.params as { securityId: string }).securityId),
  ),
  readSpec(
    '/v1/us/charges',
    {
      tags: usTags,
      operationId: 'getUsChargeEstimate',
      summary: 'Charges one US-stock order would cost',
      response: US_CHARGES,
      body: US_ESTIMATE_REQUEST,
    },
    (c) => c.broker.globalStocks.chargeEstimate(usEstimate(c)),
    'POST',
  ),
  readSpec(
    '/v1/us/margin',
    {
      tags: usTags,
      operationId: 'getUsMargin',
      summary: 'Margin one US-stock order needs',
      response: US_MARGIN,
      body: US_ESTIMATE_REQUEST,
    },
    (c) => c.broker.globalStocks.margin(usEstimate(c)),
    'POST',
  ),
];

/** The order audit trail, the key's own rows (a supervisor's: every key's). */
function auditRoute(audit: AuditLog): RouteSpec {
  return {
    method: 'GET',
    url: '/v1/order-audit',
    doc: {
      tags: aTags,
      operationId: 'listOrderAudit',
      summary: "The order audit trail (newest first): the key's own rows (a supervisor's: every key's)",
      response: AUDIT_ROWS,
      errors: AUDIT_ERRORS,
      querystring: AUDIT_QUERY,
    },
    handle: async ({ request, caller }) => {
      const q = request.query as { correlationId?: string; limit: number };
      const keyId = caller.supervisor ? undefined : caller.keyId;
      return { rows: await audit.list({ correlationId: q.correlationId, keyId, limit: q.limit }) };
    },
  };
}

/** Every account route of the gateway. */
export function accountRoutes(audit: AuditLog): readonly RouteSpec[] {
  return [
    ...ACCOUNT_READS,
    ...PORTFOLIO,
    ...RISK,
    ...LEDGER_READS,
    ...EDIS,
    ...US_ACCOUNT,
    auditRoute(audit),
  ];
}
