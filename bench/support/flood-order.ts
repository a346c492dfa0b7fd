/**
 * The order bench:flood sends to the gateway: a 1-share limit buy of TCS well below the
 * simulator's market, so the probes' real orders rest and change nothing else, and the flood's
 * copies (with made-up keys) have a body the gateway would otherwise accept.
 */
export const RESTING_ORDER = {
  transactionType: 'BUY',
  exchangeSegment: 'NSE_EQ',
  productType: 'INTRADAY',
  orderType: 'LIMIT',
  validity: 'DAY',
  securityId: '11536',
  quantity: 1,
  price: 3000,
} as const;
