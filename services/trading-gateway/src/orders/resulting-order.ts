/**
 * What an order becomes once a modification is applied: the facts the pre-trade checks judge.
 *
 * A modification body carries only what changes (quantity alone, price alone, an order type,
 * a trigger price, nothing the limits look at). Checking the body alone let an order grow in two
 * steps that each looked harmless: `{quantity: 5000000}` (no price, so no notional) and then
 * `{price: 1000000}` (no quantity). So every modification is checked against the order's
 * RESULTING state: each field the body sets, and every other field as the service reports the
 * current order. A market order type (or a stop-loss market one) has no price of its own: the
 * notional then uses the last traded price, as for a market placement.
 *
 * Pure functions of (current order, body), so every combination of fields is unit-tested.
 */
import type { OrderFacts } from './pre-trade.js';

/** The fields of an order the limits depend on, as the service reports it. */
export interface CurrentOrder {
  securityId: string;
  orderType?: string | undefined;
  quantity: number;
  price: number;
}

/** A forever order: a second leg (OCO) has its own quantity and price. */
export interface CurrentForeverOrder extends CurrentOrder {
  orderFlag?: string | undefined;
  quantity1?: number | undefined;
  price1?: number | undefined;
}

/** The body fields of a modification that move quantity or price (the others do not matter here). */
export interface PriceChange {
  orderType?: string | undefined;
  quantity?: number | undefined;
  price?: number | undefined;
}

const PRICELESS = new Set(['MARKET', 'STOP_LOSS_MARKET']);

/** Market-type orders trade at the market: 0 means "use the last price" to the checks. */
function priceFor(orderType: string | undefined, price: number): number {
  return orderType !== undefined && PRICELESS.has(orderType) ? 0 : price;
}

/** A regular order (also a US order, and a super order's entry leg) after `change`. */
export function resultingOrder(current: CurrentOrder, change: PriceChange): OrderFacts {
  const orderType = change.orderType ?? current.orderType;
  return {
    securityId: current.securityId,
    quantity: change.quantity ?? current.quantity,
    price: priceFor(orderType, change.price ?? current.price),
  };
}

/** A super order's leg change: the entry leg like a regular order; an exit leg at its new price. */
export function resultingSuperOrder(
  current: CurrentOrder,
  change: PriceChange & {
    legName: string;
    targetPrice?: number | undefined;
    stopLossPrice?: number | undefined;
  },
): OrderFacts[] {
  const entry = resultingOrder(current, change.legName === 'ENTRY_LEG' ? change : {});
  const facts: OrderFacts[] = [entry];
  // An exit leg sells (or buys back) the entry's whole quantity at its own price: a target of
  // 1,000,000 on 5 shares is a 5,000,000 order the moment it triggers.
  if (change.targetPrice !== undefined && change.targetPrice > 0) {
    facts.push({
      securityId: current.securityId,
      quantity: entry.quantity,
      price: change.targetPrice,
      notionalField: 'targetPrice',
    });
  }
  if (change.stopLossPrice !== undefined && change.stopLossPrice > 0) {
    facts.push({
      securityId: current.securityId,
      quantity: entry.quantity,
      price: change.stopLossPrice,
      notionalField: 'stopLossPrice',
    });
  }
  return facts;
}

/**
 * A forever order after `change`: the OCO's STOP_LOSS_LEG is its second leg (quantity1, price1),
 * any other leg the first; the leg not named keeps its state and is checked too, since the
 * order as a whole must stay within limits.
 */
export function resultingForeverOrder(
  current: CurrentForeverOrder,
  change: PriceChange & { legName?: string | undefined },
): OrderFacts[] {
  const oco = current.orderFlag === 'OCO';
  const second = oco && change.legName === 'STOP_LOSS_LEG';
  const first = resultingOrder(current, second ? {} : change);
  if (!oco) return [first];
  const secondLeg = resultingOrder(
    {
      securityId: current.securityId,
      orderType: current.orderType,
      quantity: current.quantity1 ?? 0,
      price: current.price1 ?? 0,
    },
    second ? change : {},
  );
  return secondLeg.quantity === undefined || secondLeg.quantity <= 0 ? [first] : [first, secondLeg];
}
