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
 *
 * Correlation ids are scoped per key. A key's retry is answered from that key's own rows only; an
 * id another key has already sent to the service is refused (409 CORRELATION_ID_CONFLICT) rather
 * than placed again, because the service (and a lookup by correlationId after a lost answer)
 * knows one order per id on the account: placing it a second time would make that lookup answer
 * one key with the other's order. Within this process the same holds for requests in flight.
 *
 * What the answer path waits for: with the audit journal (audit-journal.ts) the audit rows cost an
 * fdatasync, not a store statement; a new correlationId is known to have no history from the
 * correlation index in memory, which also counts a journal's rows not yet drained; the history of
 * an id with rows (a retry) is read from the store and the journal both, because its answer must
 * be exact. Owners of orders this process (or a journal it recovered) placed are in memory
 * (ownership.ts); the pre-trade checks' instruments are cached (instrument-reference.ts).
 */
import { randomBytes } from 'node:crypto';
import { isBrokerApiError } from '@feedpipe/broker-api';
import { type HttpError, isHttpError } from '@feedpipe/service-http';
import { TradingGatewayError } from '../errors.js';
import type { GatewayMetrics } from '../metrics.js';
import type { AuditLog, AuditOutcome } from './audit-log.js';
import { isOrderRefusal, toGatewayError } from './broker-errors.js';
import type { OrderOwners } from './ownership.js';
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
  /**
   * Pre-trade checks of every order in the request; a function when the facts must be read first
   * (a modification: the order's resulting state needs the current order). A failure of the
   * function (the order cannot be read) refuses the request like a failed check.
   */
  checks?: OrderFacts[] | (() => Promise<OrderFacts[]>);
  /** Runs before the checks, refusing the request when it throws (an order of another key). */
  authorize?: () => Promise<void>;
  /** Refuse while the kill switch is active (not for cancels, which reduce risk). */
  killSwitch?: boolean;
  /**
   * The orders one accepted answer created, each given an outcome row (its owner) of its own: a
   * slicing answers several. Default: the answer's orderId (or alertId).
   */
  orderIds?: (answer: Record<string, unknown>) => string[];
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

/**
 * The gateway's own prefix (`tg-`; it was the query API's `qa-` before the split), so an order's
 * origin reads from its correlation id in the service's book: 3 + 24 characters, within its 30.
 */
export function newCorrelationId(): string {
  return `tg-${randomBytes(12).toString('hex')}`;
}

export class OrderDesk {
  readonly #audit: AuditLog;
  readonly #checks: PreTradeChecks;
  readonly #metrics: Pick<GatewayMetrics, 'orders' | 'orderPhases'>;
  readonly #now: () => number;
  readonly #owners: OrderOwners;
  /** correlationId -> the placement in flight, and the key that sent it. */
  readonly #inflight = new Map<string, { keyId: string; promise: Promise<OrderResult> }>();

  constructor(
    audit: AuditLog,
    checks: PreTradeChecks,
    owners: OrderOwners,
    metrics: Pick<GatewayMetrics, 'orders' | 'orderPhases'>,
    now: () => number = Date.now,
  ) {
    this.#audit = audit;
    this.#checks = checks;
    this.#owners = owners;
    this.#metrics = metrics;
    this.#now = now;
  }

  get owners(): OrderOwners {
    return this.#owners;
  }

  /** The keys that sent an order with this correlationId (its owner, since ids are per key). */
  keysOfCorrelation(correlationId: string): Promise<string[]> {
    return this.#audit.keysOf(correlationId);
  }

  get checks(): PreTradeChecks {
    return this.#checks;
  }

  async execute<T>(req: OrderRequest<T>): Promise<OrderResult> {
    if (!req.placement) return this.#run(req, '');
    const correlationId = req.placement.correlationId ?? newCorrelationId();
    const pending = this.#inflight.get(correlationId);
    if (pending) {
      if (pending.keyId !== req.keyId) throw conflict(correlationId);
      const earlier = await pending.promise;
      return { body: earlier.body, replayed: true };
    }
    const promise = this.#placeOnce(req, correlationId);
    this.#inflight.set(correlationId, { keyId: req.keyId, promise });
    try {
      return await promise;
    } finally {
      this.#inflight.delete(correlationId);
    }
  }

  async #placeOnce<T>(req: OrderRequest<T>, correlationId: string): Promise<OrderResult> {
    const { last, otherKeys } = await this.#timed('history', () =>
      this.#audit.history(correlationId, req.keyId),
    );
    if (otherKeys) {
      // Not audited under this id: a row of this key would make the id look like its own.
      this.#metrics.orders.inc({ action: req.action, outcome: 'refused' });
      throw conflict(correlationId);
    }
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
    for (const id of orderIdsOf(req, body)) this.#owners.note(id, req.keyId);
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
      await this.#timed('checks', () => this.#authorizeAndCheck(req));
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
    await this.#timed('audit', () => this.#audit.write({ ...base, phase: 'request', outcome: '' }));
    let answer: T;
    try {
      answer = await this.#timed('upstream', () => req.send(correlationId));
    } catch (error) {
      const mapped = await this.#refusalOf(req, error);
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
    const ids = orderIdsOf(req, body);
    // The order exists now: a failed outcome row must not turn its success into an error.
    const outcomes = this.#metrics.orderPhases.startTimer({ phase: 'audit' });
    for (const orderId of ids.length > 0 ? ids : [req.summary.orderId ?? '']) {
      await this.#audit
        .write({
          ...base,
          phase: 'outcome',
          outcome: 'accepted',
          httpStatus: 200,
          orderId,
          orderStatus: String(body.orderStatus ?? body.alertStatus ?? body.killSwitchStatus ?? ''),
          response: body,
          latencyMs: this.#now() - started,
        })
        .catch(() => undefined);
    }
    outcomes();
    this.#metrics.orders.inc({ action: req.action, outcome: 'accepted' });
    if (req.placement) for (const id of ids) this.#owners.note(id, req.keyId);
    return { body, replayed: false };
  }

  async #authorizeAndCheck(req: OrderRequest<unknown>): Promise<void> {
    if (req.authorize) await req.authorize();
    if (req.killSwitch) await this.#checks.assertKillSwitchOff();
    const checks = typeof req.checks === 'function' ? await req.checks() : (req.checks ?? []);
    for (const facts of checks) await this.#checks.check(facts);
  }

  /** Times one phase of a request (failures included: a slow failure is time spent too). */
  async #timed<R>(phase: 'history' | 'checks' | 'audit' | 'upstream', run: () => Promise<R>): Promise<R> {
    const end = this.#metrics.orderPhases.startTimer({ phase });
    try {
      return await run();
    } finally {
      end();
    }
  }

  /**
   * The answer to a failed call. An order refused by the account's state while our cached
   * kill-switch state said "off" (it was turned on since, by another key or the service's
   * console) reads the switch again: if it is on, the answer is the gateway's own 409
   * KILL_SWITCH_ACTIVE with the service's refusal kept under `upstream`, and the next orders are
   * refused before reaching the service.
   */
  async #refusalOf(req: OrderRequest<unknown>, error: unknown): Promise<HttpError<string>> {
    const mapped = toGatewayError(error);
    if (!req.killSwitch || !isBrokerApiError(error) || error.status !== 403 || !isOrderRefusal(error))
      return mapped;
    let active: boolean;
    try {
      active = await this.#checks.killSwitchActive({ fresh: true });
    } catch {
      return mapped;
    }
    if (!active) return mapped;
    return new TradingGatewayError(
      'KILL_SWITCH_ACTIVE',
      'the kill switch is active: the service refused the order; trading is disabled until it is deactivated',
      { ...(mapped.upstream ? { upstream: mapped.upstream } : {}), cause: error },
    );
  }
}

/** The order ids an answer names (none for answers that are not about an order). */
function orderIdsOf(req: OrderRequest<unknown>, body: Record<string, unknown>): string[] {
  if (req.orderIds) return req.orderIds(body).filter((id) => id !== '');
  const id = String(body.orderId ?? body.alertId ?? '');
  return id === '' ? [] : [id];
}

function conflict(correlationId: string): TradingGatewayError {
  return new TradingGatewayError(
    'CORRELATION_ID_CONFLICT',
    `correlationId ${correlationId} was already sent by another key; use a correlationId of your own`,
    { field: 'correlationId' },
  );
}
