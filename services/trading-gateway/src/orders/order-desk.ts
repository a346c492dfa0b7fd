/**
 * Every order request goes through here: idempotence by correlationId, pre-trade checks, the audit
 * trail, and the call to the service, in that order.
 *
 * Idempotence: a placement carries a correlationId (the caller's, or one generated here and
 * returned). A request whose id is already in flight in this process waits for that one's answer.
 * Otherwise the newest audit row decides: accepted -> the stored answer is returned (replayed, not
 * placed again); refused or rejected -> nothing was placed, so it is placed now; unknown outcome
 * (lost answer, crash between the audit rows) -> the service is asked by correlationId where it
 * can be (regular orders), and if it cannot, the request is refused rather than risk a double.
 */
import { randomBytes } from 'node:crypto';
import { isBrokerApiError } from '@feedpipe/broker-api';
import { isHttpError } from '@feedpipe/service-http';
import { TradingGatewayError } from '../errors.js';
import type { GatewayMetrics } from '../metrics.js';
import type { AuditLog, AuditOutcome } from './audit-log.js';
import { toGatewayError } from './broker-errors.js';
import type { OrderFacts, PreTradeChecks } from './pre-trade.js';

export interface OrderSummary {
  securityId?: string | undefined;
  exchangeSegment?: string | undefined;
  transactionType?: string | undefined;
  quantity?: number | undefined;
  price?: number | undefined;
  orderId?: string | undefined;
}

export interface OrderRequest<T> {
  /** e.g. orders.place, superOrders.modify, killSwitch.set. */
  action: string;
  keyId: string;
  /** The request as received, for the audit row (order bodies carry no secrets). */
  request: unknown;
  summary: OrderSummary;
  /** Placements: the correlationId makes retries idempotent. */
  placement?: {
    correlationId: string | undefined;
    lookup?: (correlationId: string) => Promise<unknown | undefined>;
  };
  /** Pre-trade checks of every order in the request. */
  checks?: OrderFacts[];
  /** Refuse while the kill switch is active (not for cancels, which reduce risk). */
  killSwitch?: boolean;
  send(correlationId: string): Promise<T>;
}

export interface OrderResult {
  body: Record<string, unknown>;
  replayed: boolean;
}

const UNKNOWN_OUTCOME = new Set(['TIMEOUT', 'NETWORK', 'INVALID_RESPONSE', 'ABORTED']);

function outcomeOf(error: unknown): AuditOutcome {
  if (isBrokerApiError(error)) {
    if (UNKNOWN_OUTCOME.has(error.code) || (error.status !== undefined && error.status >= 500))
      return 'unknown';
    return 'rejected';
  }
  return 'unknown';
}

export function newCorrelationId(): string {
  return `qa-${randomBytes(12).toString('hex')}`;
}

export class OrderDesk {
  readonly #audit: AuditLog;
  readonly #checks: PreTradeChecks;
  readonly #metrics: Pick<GatewayMetrics, 'orders'>;
  readonly #now: () => number;
  readonly #inflight = new Map<string, Promise<OrderResult>>();

  constructor(
    audit: AuditLog,
    checks: PreTradeChecks,
    metrics: Pick<GatewayMetrics, 'orders'>,
    now: () => number = Date.now,
  ) {
    this.#audit = audit;
    this.#checks = checks;
    this.#metrics = metrics;
    this.#now = now;
  }

  get checks(): PreTradeChecks {
    return this.#checks;
  }

  async execute<T>(req: OrderRequest<T>): Promise<OrderResult> {
    if (!req.placement) return this.#run(req, '');
    const correlationId = req.placement.correlationId ?? newCorrelationId();
    const pending = this.#inflight.get(correlationId);
    if (pending) {
      const earlier = await pending;
      return { body: earlier.body, replayed: true };
    }
    const promise = this.#placeOnce(req, correlationId);
    this.#inflight.set(correlationId, promise);
    try {
      return await promise;
    } finally {
      this.#inflight.delete(correlationId);
    }
  }

  async #placeOnce<T>(req: OrderRequest<T>, correlationId: string): Promise<OrderResult> {
    const last = await this.#audit.last(correlationId);
    if (last && last.action !== req.action) {
      throw new TradingGatewayError(
        'BAD_REQUEST',
        `correlationId ${correlationId} was already used for ${last.action}`,
        {
          field: 'correlationId',
        },
      );
    }
    const unknown = last !== undefined && (last.phase === 'request' || last.outcome === 'unknown');
    if (last && (last.outcome === 'accepted' || last.outcome === 'replayed') && last.response !== undefined) {
      return this.#replay(req, correlationId, last.response as Record<string, unknown>);
    }
    if (unknown) {
      const found = req.placement?.lookup
        ? await this.#lookup(req.placement.lookup, correlationId)
        : undefined;
      if (found !== undefined)
        return this.#replay(req, correlationId, { ...(found as Record<string, unknown>), correlationId });
      if (!req.placement?.lookup) {
        throw new TradingGatewayError(
          'OUTCOME_UNKNOWN',
          `an earlier request with correlationId ${correlationId} has an unknown outcome; check the order book before placing it again with a new correlationId`,
        );
      }
    }
    return this.#run(req, correlationId);
  }

  async #lookup(
    lookup: (cid: string) => Promise<unknown | undefined>,
    correlationId: string,
  ): Promise<unknown> {
    try {
      return await lookup(correlationId);
    } catch (error) {
      if (isBrokerApiError(error) && error.status === 404) return undefined;
      throw error;
    }
  }

  async #replay(
    req: OrderRequest<unknown>,
    correlationId: string,
    body: Record<string, unknown>,
  ): Promise<OrderResult> {
    const requestId = randomBytes(8).toString('hex');
    await this.#audit.write({
      ...this.#base(req, requestId, correlationId),
      phase: 'outcome',
      outcome: 'replayed',
      httpStatus: 200,
      orderId: String(body.orderId ?? body.alertId ?? ''),
      orderStatus: String(body.orderStatus ?? body.alertStatus ?? ''),
      response: body,
    });
    this.#metrics.orders.inc({ action: req.action, outcome: 'replayed' });
    return { body, replayed: true };
  }

  #base(req: OrderRequest<unknown>, requestId: string, correlationId: string) {
    return {
      requestId,
      keyId: req.keyId,
      action: req.action,
      correlationId,
      orderId: req.summary.orderId,
      securityId: req.summary.securityId,
      exchangeSegment: req.summary.exchangeSegment,
      transactionType: req.summary.transactionType,
      quantity: req.summary.quantity,
      price: req.summary.price,
      request: req.request,
    };
  }

  async #run<T>(req: OrderRequest<T>, correlationId: string): Promise<OrderResult> {
    const requestId = randomBytes(8).toString('hex');
    const base = this.#base(req, requestId, correlationId);
    const started = this.#now();
    try {
      if (req.killSwitch) await this.#checks.assertKillSwitchOff();
      for (const facts of req.checks ?? []) await this.#checks.check(facts);
    } catch (error) {
      const mapped = toGatewayError(error);
      await this.#audit
        .write({
          ...base,
          phase: 'outcome',
          outcome: 'refused',
          httpStatus: mapped.status,
          errorCode: mapped.code,
          errorMessage: mapped.message,
        })
        .catch(() => undefined);
      this.#metrics.orders.inc({ action: req.action, outcome: 'refused' });
      throw mapped;
    }
    await this.#audit.write({ ...base, phase: 'request', outcome: '' });
    let answer: T;
    try {
      answer = await req.send(correlationId);
    } catch (error) {
      const mapped = toGatewayError(error);
      const outcome = isHttpError(error) ? 'rejected' : outcomeOf(error);
      await this.#audit
        .write({
          ...base,
          phase: 'outcome',
          outcome,
          httpStatus: mapped.status,
          errorCode: mapped.upstream?.errorCode ?? mapped.code,
          errorMessage: mapped.upstream?.errorMessage ?? mapped.message,
          latencyMs: this.#now() - started,
        })
        .catch(() => undefined);
      this.#metrics.orders.inc({ action: req.action, outcome });
      throw mapped;
    }
    const body: Record<string, unknown> =
      typeof answer === 'object' && answer !== null && !Array.isArray(answer)
        ? { ...(answer as Record<string, unknown>) }
        : { result: answer ?? null };
    if (correlationId !== '') body.correlationId = correlationId;
    // The order exists now: a failed outcome row must not turn its success into an error.
    await this.#audit
      .write({
        ...base,
        phase: 'outcome',
        outcome: 'accepted',
        httpStatus: 200,
        orderId: String(body.orderId ?? body.alertId ?? req.summary.orderId ?? ''),
        orderStatus: String(body.orderStatus ?? body.alertStatus ?? body.killSwitchStatus ?? ''),
        response: body,
        latencyMs: this.#now() - started,
      })
      .catch(() => undefined);
    this.#metrics.orders.inc({ action: req.action, outcome: 'accepted' });
    return { body, replayed: false };
  }
}
