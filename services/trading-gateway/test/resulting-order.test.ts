/** The state a modification leaves, for every combination of the fields the limits look at. */
import { describe, expect, it } from 'vitest';
import { resultingForeverOrder, resultingOrder, resultingSuperOrder } from '../src/orders/resulting-order.js';

const LIMIT = { securityId: '11536', orderType: 'LIMIT', quantity: 2, price: 3000 };

describe('resultingOrder', () => {
  it.each([
    ['neither', {}, { quantity: 2, price: 3000 }],
    ['quantity only', { quantity: 5_000_000 }, { quantity: 5_000_000, price: 3000 }],
    ['price only', { price: 1_000_000 }, { quantity: 2, price: 1_000_000 }],
    ['both', { quantity: 7, price: 10 }, { quantity: 7, price: 10 }],
    ['type only, still LIMIT', { orderType: 'LIMIT' }, { quantity: 2, price: 3000 }],
    ['to MARKET: the last price', { orderType: 'MARKET' }, { quantity: 2, price: 0 }],
    [
      'to MARKET with a price: still the last price',
      { orderType: 'MARKET', price: 1 },
      { quantity: 2, price: 0 },
    ],
    ['to STOP_LOSS_MARKET', { orderType: 'STOP_LOSS_MARKET', quantity: 9 }, { quantity: 9, price: 0 }],
    ['to STOP_LOSS (a limit price)', { orderType: 'STOP_LOSS', price: 2990 }, { quantity: 2, price: 2990 }],
  ])('%s', (_name, change, expected) => {
    expect(resultingOrder(LIMIT, change)).toEqual({ securityId: '11536', ...expected });
  });

  it('a MARKET order given a price by a change to LIMIT is judged at that price, else at its own (0: the last price)', () => {
    const market = { ...LIMIT, orderType: 'MARKET', price: 0 };
    expect(resultingOrder(market, { orderType: 'LIMIT', price: 3100 })).toMatchObject({ price: 3100 });
    expect(resultingOrder(market, { orderType: 'LIMIT' })).toMatchObject({ price: 0 });
    expect(resultingOrder(market, { quantity: 4 })).toMatchObject({ quantity: 4, price: 0 });
  });
});

describe('resultingSuperOrder', () => {
  it('applies entry changes only to the entry leg; exit legs are judged at their price for the entry quantity', () => {
    expect(resultingSuperOrder(LIMIT, { legName: 'TARGET_LEG', quantity: 9, price: 9 })).toEqual([
      { securityId: '11536', quantity: 2, price: 3000 },
    ]);
    expect(resultingSuperOrder(LIMIT, { legName: 'ENTRY_LEG', quantity: 9 })).toEqual([
      { securityId: '11536', quantity: 9, price: 3000 },
    ]);
    expect(
      resultingSuperOrder(LIMIT, {
        legName: 'ENTRY_LEG',
        quantity: 5,
        targetPrice: 4000,
        stopLossPrice: 2500,
      }),
    ).toEqual([
      { securityId: '11536', quantity: 5, price: 3000 },
      { securityId: '11536', quantity: 5, price: 4000, notionalField: 'targetPrice' },
      { securityId: '11536', quantity: 5, price: 2500, notionalField: 'stopLossPrice' },
    ]);
  });
});

describe('resultingForeverOrder', () => {
  const oco = { ...LIMIT, orderFlag: 'OCO', quantity1: 3, price1: 2900 };
  it('a SINGLE order is one leg; an OCO both, the STOP_LOSS_LEG change going to the second', () => {
    expect(
      resultingForeverOrder({ ...LIMIT, orderFlag: 'SINGLE' }, { legName: 'STOP_LOSS_LEG', price: 7 }),
    ).toEqual([{ securityId: '11536', quantity: 2, price: 7 }]);
    expect(resultingForeverOrder(oco, { legName: 'STOP_LOSS_LEG', price: 7 })).toEqual([
      { securityId: '11536', quantity: 2, price: 3000 },
      { securityId: '11536', quantity: 3, price: 7 },
    ]);
    expect(resultingForeverOrder(oco, { legName: 'TARGET_LEG', quantity: 8 })).toEqual([
      { securityId: '11536', quantity: 8, price: 3000 },
      { securityId: '11536', quantity: 3, price: 2900 },
    ]);
  });
});
