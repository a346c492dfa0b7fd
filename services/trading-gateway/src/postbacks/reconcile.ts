/**
 * Reconciliation: after the receiver was down (or the service gave up on a postback), read the
 * order book, the day's trades and the US-stocks book through the client, rebuild each order's
 * transitions (TRANSIT at createTime, PENDING at exchangeTime, one PENDING per partial fill at
 * the trade's time, then the order as it stands now) and record those the table lacks.
 *
 * A rebuilt transition of an unmodified order has the same event key as its postback, so a late
 * delivery after reconciliation is still recognised as a duplicate. Modifications leave no trace
 * in the book, so earlier transitions of a modified order are matched by status, filled quantity
 * and update time instead (the service's times have one-second resolution: a fill and a
 * modification of the same order in the same second look alike), and the order's current state is recorded when its exact key is missing (a
 * modification the receiver never heard of becomes one transition with the current values).
 */
import type { BrokerClient, Order, Trade } from '@feedpipe/broker-api';
import type { StoreLane } from '@feedpipe/store';
import { PostbackError } from './errors.js';
import { recordedTransitions } from './events-table.js';
import { type OrderEvent, toOrderEvent } from './order-event.js';
import type { OrderEventPipeline } from './pipeline.js';

export interface ReconcileResult {
  /** Orders read (regular and US). */
  orders: number;
  /** Transitions rebuilt. */
  rebuilt: number;
  /** Transitions that were missing and are now recorded. */
  added: number;
}

export interface ReconcileDeps {
  readonly broker: BrokerClient;
  readonly pipeline: OrderEventPipeline;
  readonly store: StoreLane;
  readonly table: string;
  readonly now?: () => number;
}

type Body = Record<string, unknown>;

/** Updates appended to the log per round of reconciliation. */
const RECONCILE_CHUNK = 500;

const round2 = (x: number): number => Math.round(x * 100) / 100;

/** The transitions of one regular order as the book and its trades show them, oldest first. */
export function rebuildOrder(order: Order, fills: readonly Trade[]): Body[] {
  const base: Body = { ...order };
  const at = (status: string, filled: number, avg: number, updateTime: string, extra: Body = {}): Body => ({
    ...base,
    orderStatus: status,
    filledQty: filled,
    remainingQuantity: order.quantity - filled,
    averageTradedPrice: avg,
    updateTime,
    omsErrorCode: '',
    omsErrorDescription: '',
    ...extra,
  });
  const out: Body[] = [at('TRANSIT', 0, 0, order.createTime, { exchangeOrderId: '', exchangeTime: '' })];
  if (order.exchangeOrderId) out.push(at('PENDING', 0, 0, order.exchangeTime));
  let filled = 0;
  let value = 0;
  for (const t of fills) {
    filled += t.tradedQuantity;
    value += t.tradedQuantity * t.tradedPrice;
    if (filled < order.quantity) out.push(at('PENDING', filled, round2(value / filled), t.updateTime));
  }
  out.push(base);
  return out;
}

/** US orders fill whole: TRANSIT, PENDING once it reached the exchange, then the current state. */
export function rebuildUsOrder(order: Body): Body[] {
  const out: Body[] = [
    {
      ...order,
      orderStatus: 'TRANSIT',
      tradedQty: 0,
      remainingQuantity: order.quantity,
      avgTradedPrice: 0,
      updateTime: order.createTime,
      exchangeOrderId: '',
      exchangeTime: '',
      omsErrorCode: '',
      omsErrorDescription: '',
    },
  ];
  if (order.exchangeOrderId) {
    out.push({
      ...order,
      orderStatus: 'PENDING',
      tradedQty: 0,
      remainingQuantity: order.quantity,
      avgTradedPrice: 0,
      updateTime: order.exchangeTime,
    });
  }
  out.push(order);
  return out;
}

export async function reconcileOrders(deps: ReconcileDeps): Promise<ReconcileResult> {
  const now = deps.now ?? Date.now;
  // Whatever the receiver already holds must be in the table before it is compared.
  await deps.pipeline.flush();
  let orders: Order[];
  let trades: Trade[];
  let usOrders: Body[];
  try {
    [orders, trades, usOrders] = await Promise.all([
      deps.broker.orders.list(),
      deps.broker.trades.today(),
      deps.broker.globalStocks.orders() as unknown as Promise<Body[]>,
    ]);
  } catch (error) {
    throw new PostbackError('RECONCILE_FAILED', `cannot read the order book: ${(error as Error).message}`, {
      cause: error,
      retryable: true,
    });
  }
  const fillsOf = new Map<string, Trade[]>();
  for (const t of trades) {
    const list = fillsOf.get(t.orderId) ?? [];
    list.push(t);
    fillsOf.set(t.orderId, list);
  }
  const candidates: OrderEvent[][] = [];
  const at = now();
  for (const o of orders) {
    const bodies = rebuildOrder(o, fillsOf.get(o.orderId) ?? []);
    candidates.push(bodies.map((b) => toOrderEvent(b, 'reconcile', at)));
  }
  for (const o of usOrders) candidates.push(rebuildUsOrder(o).map((b) => toOrderEvent(b, 'reconcile', at)));

  const ids = candidates.map((c) => c[0]?.orderId ?? '').filter((id) => id !== '');
  let recorded: Awaited<ReturnType<typeof recordedTransitions>>;
  try {
    recorded = await recordedTransitions(deps.store, deps.table, ids);
  } catch (error) {
    throw new PostbackError('RECONCILE_FAILED', `cannot read ${deps.table}: ${(error as Error).message}`, {
      cause: error,
      retryable: true,
    });
  }
  const keys = new Set(recorded.map((r) => r.eventKey));
  const milestones = new Set(
    recorded.map((r) => `${r.orderId}|${r.status}|${r.filledQty}|${r.updateTimeIst}`),
  );

  let rebuilt = 0;
  const missing: OrderEvent[] = [];
  for (const events of candidates) {
    const seen = new Set<string>();
    events.forEach((e, i) => {
      rebuilt += 1;
      const current = i === events.length - 1;
      if (keys.has(e.eventKey) || seen.has(e.eventKey)) return;
      if (!current && milestones.has(`${e.orderId}|${e.status}|${e.filledQty}|${e.updateTimeIst}`)) return;
      seen.add(e.eventKey);
      missing.push(e);
    });
  }
  // Appended in chunks without waiting between them, so the log syncs a chunk at once (group
  // commit) while keeping the order: an append takes its place in the log when it is called.
  let added = 0;
  for (let at = 0; at < missing.length; at += RECONCILE_CHUNK) {
    const chunk = missing.slice(at, at + RECONCILE_CHUNK);
    const results = await Promise.all(chunk.map((e) => deps.pipeline.accept(e, JSON.stringify(e.payload))));
    added += results.filter((r) => r === 'accepted').length;
    if (results.includes('full')) {
      throw new PostbackError(
        'RECONCILE_FAILED',
        'the receiver backlog is full; run reconciliation again later',
        {
          retryable: true,
        },
      );
    }
  }
  await deps.pipeline.flush();
  return { orders: candidates.length, rebuilt, added };
}
