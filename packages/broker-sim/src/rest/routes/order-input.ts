/** Reading order bodies (regular, super, forever, alert legs) and answering book refusals. */
import type { BookRefusal, PlaceOrder } from '../../accounts/order-book.js';
import {
  ORDER_SEGMENTS,
  ORDER_TYPES,
  type OrderSegment,
  PRODUCT_TYPES,
  TRANSACTION_TYPES,
  VALIDITIES,
} from '../../accounts/types.js';
import type { SimContext } from '../context.js';
import { inputError, notFoundError, orderError, type SimRestError } from '../errors.js';
import {
  type Fields,
  optBool,
  optEnum,
  optInt,
  optNumber,
  optString,
  reqEnum,
  reqSecurityId,
} from '../input.js';
import type { SimInstrument } from '../market-source.js';

/** Spec: correlationId max 30 characters of [a-zA-Z0-9 _-]. */
const CORRELATION_RE = /^[a-zA-Z0-9 _-]{0,30}$/;

export function readCorrelationId(f: Fields): string {
  const c = optString(f, 'correlationId', 30) ?? '';
  if (!CORRELATION_RE.test(c))
    throw inputError('correlationId: at most 30 characters of a-z, A-Z, 0-9, space, _ and -');
  return c;
}

/** The instrument of an order: must exist and be tradable in the given segment (NSE_EQ/BSE_EQ here). */
export function orderInstrument(ctx: SimContext, segment: OrderSegment, securityId: number): SimInstrument {
  const inst = ctx.market.instrument(securityId);
  if (!inst || inst.exchangeSegment !== segment || inst.instrumentType !== 'EQUITY') {
    throw inputError(`Invalid securityId ${securityId} for exchangeSegment ${segment}`);
  }
  return inst;
}

export function readPlaceOrder(
  ctx: SimContext,
  f: Fields,
  allowedTypes: readonly (typeof ORDER_TYPES)[number][] = ORDER_TYPES,
): { order: PlaceOrder; instrument: SimInstrument } {
  const transactionType = reqEnum(f, 'transactionType', TRANSACTION_TYPES);
  const exchangeSegment = reqEnum(f, 'exchangeSegment', ORDER_SEGMENTS);
  const productType = reqEnum(f, 'productType', PRODUCT_TYPES);
  const orderType = reqEnum(f, 'orderType', allowedTypes);
  const validity = optEnum(f, 'validity', VALIDITIES) ?? 'DAY';
  const securityId = reqSecurityId(f);
  const quantity = optInt(f, 'quantity', 1, 10_000_000);
  if (quantity === undefined) throw inputError('quantity is required');
  const disclosedQuantity = optInt(f, 'disclosedQuantity', 0, quantity) ?? 0;
  const price = optNumber(f, 'price') ?? 0;
  const triggerPrice = optNumber(f, 'triggerPrice') ?? 0;
  if ((orderType === 'LIMIT' || orderType === 'STOP_LOSS') && !(price > 0)) {
    throw inputError(`price must be positive for ${orderType} orders`);
  }
  if ((orderType === 'STOP_LOSS' || orderType === 'STOP_LOSS_MARKET') && !(triggerPrice > 0)) {
    throw inputError(`triggerPrice must be positive for ${orderType} orders`);
  }
  if (price < 0 || triggerPrice < 0) throw inputError('price and triggerPrice must not be negative');
  const instrument = orderInstrument(ctx, exchangeSegment, securityId);
  if (quantity % instrument.lotSize !== 0)
    throw inputError(`quantity must be a multiple of the lot size ${instrument.lotSize}`);
  return {
    order: {
      correlationId: readCorrelationId(f),
      transactionType,
      exchangeSegment,
      productType,
      orderType,
      validity,
      securityId,
      quantity,
      disclosedQuantity,
      price,
      triggerPrice,
      afterMarketOrder: optBool(f, 'afterMarketOrder') ?? false,
    },
    instrument,
  };
}

export function refusal(r: BookRefusal | 'unknown' | 'not-active', what = 'order'): SimRestError {
  switch (r) {
    case 'unknown-order':
    case 'unknown':
      return notFoundError(`No ${what} with this id`);
    case 'not-open':
    case 'not-active':
      return orderError(`The ${what} is not open: it can no longer be modified or cancelled`);
    case 'modification-limit':
      return orderError('Modification limit reached: at most 25 modifications per order');
    case 'bad-quantity':
      return orderError('quantity must exceed the quantity already traded');
  }
}
