/**
 * The spec's four rate-limit categories and which endpoint falls into which. The spec leaves the
 * assignment "not shown"; the defaults below follow the service's public documentation and are the
 * same table the simulator enforces.
 */
export type RateCategory = 'order' | 'data' | 'quote' | 'nonTrading';

export const RATE_CATEGORIES: readonly RateCategory[] = ['order', 'data', 'quote', 'nonTrading'];

/** At most `max` requests within any `windowMs` long stretch of time (a sliding window). */
export interface WindowLimit {
  windowMs: number;
  max: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Defaults, from the spec's Limits table:
 * - order: 10/s, 250/min, 1000/h, 7000/day
 * - data: 5/s, 100,000/day (per minute and hour: not shown, so not limited)
 * - quote: 1/s
 * - nonTrading: 20/s
 */
export const DEFAULT_LIMITS: Readonly<Record<RateCategory, readonly WindowLimit[]>> = {
  order: [
    { windowMs: SECOND, max: 10 },
    { windowMs: MINUTE, max: 250 },
    { windowMs: HOUR, max: 1000 },
    { windowMs: DAY, max: 7000 },
  ],
  data: [
    { windowMs: SECOND, max: 5 },
    { windowMs: DAY, max: 100_000 },
  ],
  quote: [{ windowMs: SECOND, max: 1 }],
  nonTrading: [{ windowMs: SECOND, max: 20 }],
};

/** One unique option-chain request (same underlying, segment and expiry) per 3 seconds. */
export const DEFAULT_OPTION_CHAIN_INTERVAL_MS = 3 * SECOND;

/** Modifications allowed per order (spec, Limits). */
export const DEFAULT_MAX_MODIFICATIONS_PER_ORDER = 25;

const ORDER_PREFIXES = [
  '/orders',
  '/super/orders',
  '/forever/orders',
  '/alerts/orders',
  '/alerts/multi/orders',
  '/globalstocks/orders',
];
const DATA_PATHS = [
  '/charts/historical',
  '/charts/intraday',
  '/charts/rollingoption',
  '/optionchain',
  '/optionchain/expirylist',
];
const QUOTE_PATHS = ['/marketfeed/ltp', '/marketfeed/ohlc', '/marketfeed/quote'];

/**
 * Default category of a route written as `METHOD /path-template` (relative to `{api_root}`):
 * - order: POST, PUT and DELETE of /orders, /orders/slicing, /super/orders, /forever/orders,
 *   /alerts/orders, /alerts/multi/orders, /globalstocks/orders (and their /{id} sub-paths);
 * - data: /charts/historical, /charts/intraday, /charts/rollingoption, /optionchain,
 *   /optionchain/expirylist;
 * - quote: /marketfeed/ltp, /marketfeed/ohlc, /marketfeed/quote;
 * - nonTrading: everything else, including the auth endpoints and reads of orders.
 */
export function defaultCategoryOf(route: string): RateCategory {
  const space = route.indexOf(' ');
  const method = route.slice(0, space);
  const path = route.slice(space + 1);
  if (QUOTE_PATHS.includes(path)) return 'quote';
  if (DATA_PATHS.includes(path)) return 'data';
  if (method !== 'GET' && ORDER_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`))) {
    return 'order';
  }
  return 'nonTrading';
}
