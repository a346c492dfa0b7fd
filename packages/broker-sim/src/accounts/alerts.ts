/**
 * Conditional orders (alerts): a price condition on an equity or index and up to 15 orders that are
 * placed, in their given sequence, when it holds. The simulator evaluates the LTP against a value
 * (comparisonType PRICE_WITH_VALUE); other comparison types are refused at placement as
 * unsupported rather than silently never firing.
 */
import { formatIstDateTime, istDay, parseDay } from '../history/calendar.js';
import type { SimInstrument } from '../rest/market-source.js';
import type { PlaceOrder } from './order-book.js';
import type { OrderRecord } from './types.js';

/** Spec: a conditional order holds up to 15 orders. */
export const MAX_ALERT_ORDERS = 15;
/** Active alerts per account. */
export const MAX_ALERTS = 500;

export const ALERT_OPERATORS = [
  'GREATER_THAN',
  'LESS_THAN',
  'GREATER_THAN_EQUAL',
  'LESS_THAN_EQUAL',
  'EQUAL',
  'CROSSING_UP',
  'CROSSING_DOWN',
  'CROSSING_ANY_SIDE',
] as const;
export type AlertOperator = (typeof ALERT_OPERATORS)[number];
export type AlertStatus = 'ACTIVE' | 'TRIGGERED' | 'EXPIRED' | 'CANCELLED';

export interface AlertCondition {
  comparisonType: 'PRICE_WITH_VALUE';
  exchangeSegment: 'NSE_EQ' | 'BSE_EQ' | 'IDX_I';
  securityId: string;
  indicatorName: string;
  timeFrame: string;
  operator: AlertOperator;
  comparingValue: number;
  /** YYYY-MM-DD; the alert expires after this day. */
  expDate: string;
  frequency: string;
  userNote: string;
}

export interface AlertOrderInput {
  readonly order: PlaceOrder;
  readonly instrument: SimInstrument;
}

export interface AlertRecord {
  alertId: string;
  alertStatus: AlertStatus;
  svcClientId: string;
  condition: AlertCondition;
  orders: Array<Record<string, unknown>>;
  createdTime: string;
  triggeredTime: string;
  /** Order ids placed when the condition held, in sequence. */
  placedOrderIds: string[];
}

interface AlertState {
  readonly record: AlertRecord;
  inputs: AlertOrderInput[];
  /** Last price seen, for the crossing operators. */
  lastLtp: number;
}

export class Alerts {
  private readonly alerts = new Map<string, AlertState>();
  private seq = 0;

  constructor(
    private readonly clientId: string,
    private readonly now: () => number,
    private readonly placeRegular: (input: PlaceOrder, inst: SimInstrument) => OrderRecord | string,
    /** Told once per trigger, after the orders were placed (the service posts a postback then). */
    private readonly onTrigger: (alert: AlertRecord) => void = () => {},
  ) {}

  activeCount(): number {
    let n = 0;
    for (const a of this.alerts.values()) if (a.record.alertStatus === 'ACTIVE') n += 1;
    return n;
  }

  place(condition: AlertCondition, inputs: AlertOrderInput[], ltp: number): AlertRecord {
    this.seq += 1;
    const record: AlertRecord = {
      alertId: `A${String(this.seq).padStart(7, '0')}`,
      alertStatus: 'ACTIVE',
      svcClientId: this.clientId,
      condition,
      orders: inputs.map((i, n) => ({ ...i.order, securityId: String(i.order.securityId), sequence: n + 1 })),
      createdTime: formatIstDateTime(this.now()),
      triggeredTime: '',
      placedOrderIds: [],
    };
    this.alerts.set(record.alertId, { record, inputs, lastLtp: ltp });
    return record;
  }

  get(alertId: string): AlertRecord | undefined {
    return this.alerts.get(alertId)?.record;
  }

  list(): AlertRecord[] {
    return [...this.alerts.values()].map((a) => a.record);
  }

  modify(
    alertId: string,
    condition: AlertCondition,
    inputs: AlertOrderInput[],
  ): AlertRecord | 'unknown' | 'not-active' {
    const a = this.alerts.get(alertId);
    if (!a) return 'unknown';
    if (a.record.alertStatus !== 'ACTIVE') return 'not-active';
    a.record.condition = condition;
    a.inputs = inputs;
    a.record.orders = inputs.map((i, n) => ({
      ...i.order,
      securityId: String(i.order.securityId),
      sequence: n + 1,
    }));
    return a.record;
  }

  cancel(alertId: string): AlertRecord | 'unknown' | 'not-active' {
    const a = this.alerts.get(alertId);
    if (!a) return 'unknown';
    if (a.record.alertStatus !== 'ACTIVE') return 'not-active';
    a.record.alertStatus = 'CANCELLED';
    return a.record;
  }

  private holds(op: AlertOperator, prev: number, ltp: number, value: number): boolean {
    switch (op) {
      case 'GREATER_THAN':
        return ltp > value;
      case 'LESS_THAN':
        return ltp < value;
      case 'GREATER_THAN_EQUAL':
        return ltp >= value;
      case 'LESS_THAN_EQUAL':
        return ltp <= value;
      case 'EQUAL':
        return ltp === value;
      case 'CROSSING_UP':
        return prev < value && ltp >= value;
      case 'CROSSING_DOWN':
        return prev > value && ltp <= value;
      case 'CROSSING_ANY_SIDE':
        return (prev < value && ltp >= value) || (prev > value && ltp <= value);
    }
  }

  step(ltpOf: (securityId: number) => number | undefined): void {
    const today = istDay(this.now() / 1000);
    for (const a of this.alerts.values()) {
      const r = a.record;
      if (r.alertStatus !== 'ACTIVE') continue;
      const exp = parseDay(r.condition.expDate);
      if (exp !== undefined && today > exp) {
        r.alertStatus = 'EXPIRED';
        continue;
      }
      const ltp = ltpOf(Number(r.condition.securityId));
      if (ltp === undefined) continue;
      const fire = this.holds(r.condition.operator, a.lastLtp, ltp, r.condition.comparingValue);
      a.lastLtp = ltp;
      if (!fire) continue;
      r.alertStatus = 'TRIGGERED';
      r.triggeredTime = formatIstDateTime(this.now());
      for (const i of a.inputs) {
        const placed = this.placeRegular(i.order, i.instrument);
        if (typeof placed !== 'string') r.placedOrderIds.push(placed.orderId);
      }
      this.onTrigger(r);
    }
  }
}
